// A blocking face for Client, for command-line tools and tests.
//
// It owns a private io_context and runs it on the calling thread only while a call is in
// progress, so it needs no thread of its own; background work (connection read loops) simply
// waits between calls. Not thread-safe: one thread at a time.
#pragma once

#include <exception>
#include <memory>
#include <optional>

#include "base/asio.h"
#include "client/client.h"

namespace mirra::client {

class SyncClient {
 public:
  static Result<std::unique_ptr<SyncClient>> create(ClientOptions options);
  ~SyncClient();

  Result<ClusterMetadata> metadata(std::optional<std::vector<std::string>> topics);
  Result<TopicInfo> topic(const std::string& name);
  Result<ClusterDescription> describe_cluster();
  Result<std::vector<TopicResult>> create_topics(std::vector<NewTopic> topics,
                                                 bool validate_only = false);
  Result<std::vector<TopicResult>> delete_topics(std::vector<std::string> names);
  Result<std::vector<TopicResult>> create_partitions(std::vector<NewPartitions> topics,
                                                     bool validate_only = false);
  Result<std::vector<ConfigResourceResult>> describe_configs(std::vector<ConfigResource> resources,
                                                             bool include_synonyms = false);
  Result<std::vector<ResourceResult>> incremental_alter_configs(
      std::vector<AlterConfigResource> resources, bool validate_only = false);
  Result<std::vector<PartitionOffset>> list_offsets(
      std::vector<OffsetQuery> queries,
      IsolationLevel isolation = IsolationLevel::read_uncommitted);
  Result<std::vector<ProduceResult>> produce(std::vector<ProduceBatch> batches,
                                             ProduceOptions options = {});
  Result<std::vector<FetchedPartition>> fetch(std::vector<FetchPosition> positions,
                                              FetchOptions options = {});

  Result<Coordinator> find_coordinator(const std::string& group);
  Result<std::vector<Coordinator>> find_coordinators(std::vector<std::string> groups);
  Result<GroupListings> list_groups(std::vector<std::string> states = {},
                                    std::vector<std::string> types = {});
  Result<std::vector<GroupDescription>> describe_groups(std::vector<std::string> groups);
  Result<std::vector<CommittedOffset>> offset_fetch(
      const std::string& group, std::optional<std::vector<TopicPartition>> partitions);
  Result<std::vector<PartitionStatus>> offset_commit(const std::string& group,
                                                     std::vector<OffsetToCommit> offsets);
  Result<std::vector<GroupResult>> delete_groups(std::vector<std::string> groups);
  Result<std::vector<PartitionStatus>> offset_delete(const std::string& group,
                                                     std::vector<TopicPartition> partitions);

  Result<std::vector<ShareGroupOffsets>> share_group_offsets(
      std::vector<std::string> groups, std::optional<std::vector<TopicPartition>> partitions);
  Result<std::vector<PartitionStatus>> alter_share_group_offsets(
      const std::string& group, std::vector<ShareGroupOffset> offsets);
  Result<std::vector<TopicResult>> delete_share_group_offsets(const std::string& group,
                                                              std::vector<std::string> topics);
  Result<std::vector<ShareGroupDescription>> describe_share_groups(std::vector<std::string> groups);

  Result<TransactionListings> list_transactions(TransactionFilter filter = {});
  Result<std::vector<TransactionDescription>> describe_transactions(
      std::vector<std::string> transactional_ids);
  Result<std::vector<PartitionProducers>> describe_producers(
      std::vector<TopicPartition> partitions, std::optional<int32_t> broker_id = std::nullopt);
  Status abort_transaction(AbortTransactionSpec spec);

  Result<std::vector<UserScramCredentials>> describe_user_scram_credentials(
      std::optional<std::vector<std::string>> users);
  Result<std::vector<ScramUserResult>> alter_user_scram_credentials(
      std::vector<ScramDeletion> deletions, std::vector<ScramUpsertion> upsertions);
  Result<std::vector<QuotaEntry>> describe_client_quotas(QuotaFilter filter);
  Result<std::vector<QuotaAlterationResult>> alter_client_quotas(
      std::vector<QuotaAlteration> alterations, bool validate_only = false);
  Result<std::vector<Status>> create_acls(std::vector<security::AclBinding> acls);
  Result<std::vector<security::AclBinding>> describe_acls(security::AclBindingFilter filter);
  Result<std::vector<AclDeletion>> delete_acls(std::vector<security::AclBindingFilter> filters);

  Status create_mirror(const std::string& name,
                       std::vector<std::pair<std::string, std::string>> configs,
                       bool validate_only = false);
  Status delete_mirror(const std::string& name);
  Result<std::vector<MirrorListing>> list_mirrors(bool include_topics);
  Result<std::vector<MirrorTopicResult>> add_topics_to_mirror(const std::string& mirror,
                                                              std::vector<std::string> names,
                                                              std::vector<std::string> patterns);
  Result<std::vector<MirrorTopicResult>> remove_topics_from_mirror(
      const std::string& mirror, std::vector<std::string> names, std::vector<std::string> patterns);
  Result<std::vector<MirrorDescription>> describe_mirrors(
      std::optional<std::vector<std::string>> names);

  // Runs any coroutine to completion on the private io_context (e.g. one using async()).
  template <typename T>
  T run(asio::awaitable<T> op);

  Client& async() { return *client_; }
  asio::io_context& io_context() { return io_; }

 private:
  SyncClient() = default;

  asio::io_context io_;  // declared first: destroyed after the client's connections close
  std::unique_ptr<Client> client_;
};

template <typename T>
T SyncClient::run(asio::awaitable<T> op) {
  std::optional<T> out;
  std::exception_ptr error;
  bool finished = false;
  // The result is stored from inside the coroutine: co_spawn's handler would need a
  // default-constructible T, which Result is not.
  auto store = [&out](asio::awaitable<T> inner) -> asio::awaitable<void> {
    out.emplace(co_await std::move(inner));
  };
  asio::co_spawn(io_, store(std::move(op)), [&](std::exception_ptr e) {
    error = e;
    finished = true;
  });
  while (!finished) {
    if (io_.run_one() == 0) io_.restart();
  }
  if (error) std::rethrow_exception(error);  // a bug, not a Kafka error
  return std::move(*out);
}

}  // namespace mirra::client
