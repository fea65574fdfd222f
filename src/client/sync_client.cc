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
    std::vector<ConfigResource> resources, bool include_synonyms) {
  return run(client_->describe_configs(std::move(resources), include_synonyms));
}

Result<std::vector<QuotaEntry>> SyncClient::describe_client_quotas(QuotaFilter filter) {
  return run(client_->describe_client_quotas(std::move(filter)));
}

Result<std::vector<QuotaAlterationResult>> SyncClient::alter_client_quotas(
    std::vector<QuotaAlteration> alterations, bool validate_only) {
  return run(client_->alter_client_quotas(std::move(alterations), validate_only));
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

Result<Coordinator> SyncClient::find_coordinator(const std::string& group) {
  return run(client_->find_coordinator(group));
}

Result<std::vector<Coordinator>> SyncClient::find_coordinators(std::vector<std::string> groups) {
  return run(client_->find_coordinators(std::move(groups)));
}

Result<GroupListings> SyncClient::list_groups(std::vector<std::string> states,
                                              std::vector<std::string> types) {
  return run(client_->list_groups(std::move(states), std::move(types)));
}

Result<std::vector<GroupDescription>> SyncClient::describe_groups(std::vector<std::string> groups) {
  return run(client_->describe_groups(std::move(groups)));
}

Result<std::vector<CommittedOffset>> SyncClient::offset_fetch(
    const std::string& group, std::optional<std::vector<TopicPartition>> partitions) {
  return run(client_->offset_fetch(group, std::move(partitions)));
}

Result<std::vector<PartitionStatus>> SyncClient::offset_commit(
    const std::string& group, std::vector<OffsetToCommit> offsets) {
  return run(client_->offset_commit(group, std::move(offsets)));
}

Result<std::vector<GroupResult>> SyncClient::delete_groups(std::vector<std::string> groups) {
  return run(client_->delete_groups(std::move(groups)));
}

Result<std::vector<PartitionStatus>> SyncClient::offset_delete(
    const std::string& group, std::vector<TopicPartition> partitions) {
  return run(client_->offset_delete(group, std::move(partitions)));
}

Result<std::vector<ShareGroupOffsets>> SyncClient::share_group_offsets(
    std::vector<std::string> groups, std::optional<std::vector<TopicPartition>> partitions) {
  return run(client_->share_group_offsets(std::move(groups), std::move(partitions)));
}

Result<std::vector<PartitionStatus>> SyncClient::alter_share_group_offsets(
    const std::string& group, std::vector<ShareGroupOffset> offsets) {
  return run(client_->alter_share_group_offsets(group, std::move(offsets)));
}

Result<std::vector<TopicResult>> SyncClient::delete_share_group_offsets(
    const std::string& group, std::vector<std::string> topics) {
  return run(client_->delete_share_group_offsets(group, std::move(topics)));
}

Result<std::vector<ShareGroupDescription>> SyncClient::describe_share_groups(
    std::vector<std::string> groups) {
  return run(client_->describe_share_groups(std::move(groups)));
}

Result<TransactionListings> SyncClient::list_transactions(TransactionFilter filter) {
  return run(client_->list_transactions(std::move(filter)));
}

Result<std::vector<TransactionDescription>> SyncClient::describe_transactions(
    std::vector<std::string> transactional_ids) {
  return run(client_->describe_transactions(std::move(transactional_ids)));
}

Result<std::vector<PartitionProducers>> SyncClient::describe_producers(
    std::vector<TopicPartition> partitions, std::optional<int32_t> broker_id) {
  return run(client_->describe_producers(std::move(partitions), broker_id));
}

Status SyncClient::abort_transaction(AbortTransactionSpec spec) {
  return run(client_->abort_transaction(spec));
}

Result<std::vector<UserScramCredentials>> SyncClient::describe_user_scram_credentials(
    std::optional<std::vector<std::string>> users) {
  return run(client_->describe_user_scram_credentials(std::move(users)));
}

Result<std::vector<ScramUserResult>> SyncClient::alter_user_scram_credentials(
    std::vector<ScramDeletion> deletions, std::vector<ScramUpsertion> upsertions) {
  return run(client_->alter_user_scram_credentials(std::move(deletions), std::move(upsertions)));
}

Result<std::vector<Status>> SyncClient::create_acls(std::vector<security::AclBinding> acls) {
  return run(client_->create_acls(std::move(acls)));
}

Result<std::vector<security::AclBinding>> SyncClient::describe_acls(
    security::AclBindingFilter filter) {
  return run(client_->describe_acls(std::move(filter)));
}

Result<std::vector<AclDeletion>> SyncClient::delete_acls(
    std::vector<security::AclBindingFilter> filters) {
  return run(client_->delete_acls(std::move(filters)));
}

Status SyncClient::create_mirror(const std::string& name,
                                 std::vector<std::pair<std::string, std::string>> configs,
                                 bool validate_only) {
  return run(client_->create_mirror(name, std::move(configs), validate_only));
}

Status SyncClient::delete_mirror(const std::string& name) {
  return run(client_->delete_mirror(name));
}

Result<std::vector<MirrorListing>> SyncClient::list_mirrors(bool include_topics) {
  return run(client_->list_mirrors(include_topics));
}

Result<std::vector<MirrorTopicResult>> SyncClient::add_topics_to_mirror(
    const std::string& mirror, std::vector<std::string> names, std::vector<std::string> patterns) {
  return run(client_->add_topics_to_mirror(mirror, std::move(names), std::move(patterns)));
}

Result<std::vector<MirrorTopicResult>> SyncClient::remove_topics_from_mirror(
    const std::string& mirror, std::vector<std::string> names, std::vector<std::string> patterns) {
  return run(client_->remove_topics_from_mirror(mirror, std::move(names), std::move(patterns)));
}

Result<std::vector<MirrorDescription>> SyncClient::describe_mirrors(
    std::optional<std::vector<std::string>> names) {
  return run(client_->describe_mirrors(std::move(names)));
}

}  // namespace mirra::client
