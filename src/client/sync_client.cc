#include "client/sync_client.h"

namespace mirra::client {

Result<std::unique_ptr<SyncClient>> SyncClient::create(ClientOptions options) {
  std::unique_ptr<SyncClient> sync(new SyncClient());
  auto client = Client::create(sync->io_.get_executor(), std::move(options));
  if (!client.ok()) return client.status();
  sync->client_ = std::move(client.value());
  return sync;
}

SyncClient::~SyncClient() {
  client_.reset();
  // Lets the read loops see their sockets closed and finish.
  io_.restart();
  io_.poll();
}

Result<ClusterMetadata> SyncClient::metadata(std::optional<std::vector<std::string>> topics) {
  return run(client_->metadata(std::move(topics)));
}

Result<TopicInfo> SyncClient::topic(const std::string& name) { return run(client_->topic(name)); }

Result<ClusterDescription> SyncClient::describe_cluster() {
  return run(client_->describe_cluster());
}

Result<std::vector<TopicResult>> SyncClient::create_topics(std::vector<NewTopic> topics,
                                                           bool validate_only) {
  return run(client_->create_topics(std::move(topics), validate_only));
}

Result<std::vector<TopicResult>> SyncClient::delete_topics(std::vector<std::string> names) {
  return run(client_->delete_topics(std::move(names)));
}

Result<std::vector<TopicResult>> SyncClient::create_partitions(std::vector<NewPartitions> topics,
                                                               bool validate_only) {
  return run(client_->create_partitions(std::move(topics), validate_only));
}

Result<std::vector<ConfigResourceResult>> SyncClient::describe_configs(
    std::vector<ConfigResource> resources) {
  return run(client_->describe_configs(std::move(resources)));
}

Result<std::vector<ResourceResult>> SyncClient::incremental_alter_configs(
    std::vector<AlterConfigResource> resources, bool validate_only) {
  return run(client_->incremental_alter_configs(std::move(resources), validate_only));
}

Result<std::vector<PartitionOffset>> SyncClient::list_offsets(std::vector<OffsetQuery> queries,
                                                              IsolationLevel isolation) {
  return run(client_->list_offsets(std::move(queries), isolation));
}

Result<std::vector<ProduceResult>> SyncClient::produce(std::vector<ProduceBatch> batches,
                                                       ProduceOptions options) {
  return run(client_->produce(std::move(batches), options));
}

Result<std::vector<FetchedPartition>> SyncClient::fetch(std::vector<FetchPosition> positions,
                                                        FetchOptions options) {
  return run(client_->fetch(std::move(positions), options));
}

}  // namespace mirra::client
