// The cluster client: a Kafka client for a whole cluster, built on BrokerConnection.
//
// It keeps a metadata cache (brokers, controller, topics with ids, partitions with leader and
// epoch), one connection per broker, and routes each partition's request to its leader. Routed
// operations (produce, fetch, list_offsets) retry the partitions that failed with a retriable
// error (NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, a lost connection, ...; and
// UNKNOWN_TOPIC_OR_PARTITION for `unknown_topic_retry` only, since a new topic takes a moment to
// reach every broker), refreshing metadata and backing off between rounds, until
// `retry_timeout`. Admin operations go to the controller when the call needs it (create, delete,
// create partitions) and follow NOT_CONTROLLER.
//
// Threading: like BrokerConnection, a Client belongs to one executor and must only be used from
// coroutines running on it. Calls may overlap. Requests to different brokers of one call are
// sent one broker after the other. Produce retries after a lost connection may duplicate a batch
// (at-least-once; no idempotent producer yet). SyncClient wraps this for tools and tests.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/asio.h"
#include "client/acl_types.h"
#include "client/broker_connection.h"
#include "client/fetch_sessions.h"
#include "client/quota_types.h"
#include "client/scram_users.h"
#include "client/types.h"

namespace mirra::client {

struct ClientOptions {
  std::string bootstrap_servers;  // "host:port,host:port"
  std::string client_id = "mirra";
  Millis connect_timeout{10000};
  Millis request_timeout{30000};
  Millis retry_backoff{100};  // doubles per round up to retry_backoff_max
  Millis retry_backoff_max{1000};
  Millis retry_timeout{30000};  // how long one call keeps retrying
  Millis unknown_topic_retry{2000};
  // Metadata requests ask the broker to create unknown topics (Kafka producers do).
  bool allow_auto_topic_creation = false;
  // TLS and SASL for every connection (client/security.h). create() makes the TLS context
  // when it is missing; the connections share it.
  ClientSecurity security;
};

class Client {
 public:
  // Fails on an empty or malformed bootstrap list, or TLS key or trust stores that cannot be
  // loaded. Connects lazily.
  static Result<std::unique_ptr<Client>> create(asio::any_io_executor ex, ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const ClientOptions& options() const { return options_; }
  // The throttle time brokers asked of this client so far (quotas, KIP-219), in ms.
  int64_t throttled_ms() const { return *throttled_ms_total_; }

  // Fresh metadata for these topics (nullopt: every topic); also refreshes the cache. A topic
  // that does not exist is in the result with its error.
  asio::awaitable<Result<ClusterMetadata>> metadata(std::optional<std::vector<std::string>> topics);
  // The cached topic, refreshed when unknown; fails when the broker reports an error for it.
  asio::awaitable<Result<TopicInfo>> topic(const std::string& name);
  asio::awaitable<Result<ClusterDescription>> describe_cluster();

  asio::awaitable<Result<std::vector<TopicResult>>> create_topics(std::vector<NewTopic> topics,
                                                                  bool validate_only = false);
  asio::awaitable<Result<std::vector<TopicResult>>> delete_topics(std::vector<std::string> names);
  asio::awaitable<Result<std::vector<TopicResult>>> create_partitions(
      std::vector<NewPartitions> topics, bool validate_only = false);
  // With `include_synonyms`, each entry lists the values it falls back through.
  asio::awaitable<Result<std::vector<ConfigResourceResult>>> describe_configs(
      std::vector<ConfigResource> resources, bool include_synonyms = false);
  asio::awaitable<Result<std::vector<ResourceResult>>> incremental_alter_configs(
      std::vector<AlterConfigResource> resources, bool validate_only = false);

  asio::awaitable<Result<std::vector<PartitionOffset>>> list_offsets(
      std::vector<OffsetQuery> queries,
      IsolationLevel isolation = IsolationLevel::read_uncommitted);
  // OffsetForLeaderEpoch (v2+) to each partition's leader, as a consumer (replica id -1, as
  // librdkafka sends it); one answer per query, in order. A leader without the API gives
  // UNSUPPORTED_VERSION.
  asio::awaitable<Result<std::vector<EpochEndOffset>>> offset_for_leader_epoch(
      std::vector<EpochQuery> queries);
  asio::awaitable<Result<std::vector<ProduceResult>>> produce(std::vector<ProduceBatch> batches,
                                                              ProduceOptions options = {});
  // One answer per position, in order. With options.sessions, requests go in the caller's
  // KIP-227 sessions (client/fetch_sessions.h); partitions an incremental answer leaves out come
  // back OK, without records, with the offsets last reported. A broker's quota may answer
  // without any partition (a throttled fetch): those answers are THROTTLING_QUOTA_EXCEEDED,
  // to be asked again (the connection first waits out the throttle).
  asio::awaitable<Result<std::vector<FetchedPartition>>> fetch(std::vector<FetchPosition> positions,
                                                               FetchOptions options = {});

  // ---- consumer groups (client_groups.cc) ----
  // Each call goes to the group's coordinator, found with FindCoordinator (one request for all
  // groups from v4, else one per group) and cached. NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE,
  // a lost connection (a new lookup) and COORDINATOR_LOAD_IN_PROGRESS (the same coordinator) are
  // retried until retry_timeout. The single-group offset calls fail as a whole on a group-level
  // error (e.g. GROUP_ID_NOT_FOUND); their partitions carry their own Status otherwise.
  asio::awaitable<Result<Coordinator>> find_coordinator(std::string group);
  asio::awaitable<Result<std::vector<Coordinator>>> find_coordinators(
      std::vector<std::string> groups);
  // Every broker's groups; with `states`, only groups in those states (ListGroups v4+); with
  // `types` ("consumer", "classic", "share"), only groups of those types (ListGroups v5+; from
  // an older broker, the groups whose protocol type is one of `types`).
  asio::awaitable<Result<GroupListings>> list_groups(std::vector<std::string> states = {},
                                                     std::vector<std::string> types = {});
  asio::awaitable<Result<std::vector<GroupDescription>>> describe_groups(
      std::vector<std::string> groups);
  // The group's committed offsets for `partitions` (-1 where none), or for every partition it
  // has committed (nullopt), sorted.
  asio::awaitable<Result<std::vector<CommittedOffset>>> offset_fetch(
      std::string group, std::optional<std::vector<TopicPartition>> partitions);
  // The committed offsets of many groups for the same partitions, one entry per group in the
  // caller's order, each with its own Status (one group's error never fails the others). A
  // coordinator that speaks OffsetFetch v8+ gets the groups it coordinates in one request
  // (KIP-709, up to kGroupsPerOffsetFetch each); an older one gets one request per group.
  static constexpr size_t kGroupsPerOffsetFetch = 500;
  asio::awaitable<Result<std::vector<GroupOffsets>>> offset_fetch_groups(
      std::vector<std::string> groups, std::optional<std::vector<TopicPartition>> partitions);
  // An admin commit (generation -1, no member id), as Kafka's tools do: the coordinator takes it
  // only while the group has no members.
  asio::awaitable<Result<std::vector<PartitionStatus>>> offset_commit(
      std::string group, std::vector<OffsetToCommit> offsets);
  asio::awaitable<Result<std::vector<GroupResult>>> delete_groups(std::vector<std::string> groups);
  asio::awaitable<Result<std::vector<PartitionStatus>>> offset_delete(
      std::string group, std::vector<TopicPartition> partitions);

  // ---- share groups (client_share_groups.cc) ----
  // Routed to each group's coordinator and retried as the consumer-group calls are.
  // The start offsets of many share groups (DescribeShareGroupOffsets v0-1), one entry per group
  // in the caller's order with its own Status; for `partitions`, or every partition a group
  // holds state for (nullopt).
  asio::awaitable<Result<std::vector<ShareGroupOffsets>>> share_group_offsets(
      std::vector<std::string> groups, std::optional<std::vector<TopicPartition>> partitions);
  // AlterShareGroupOffsets: the group (created if missing) must have no members; a group-level
  // refusal (NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND) fails the call, partitions carry their own.
  asio::awaitable<Result<std::vector<PartitionStatus>>> alter_share_group_offsets(
      std::string group, std::vector<ShareGroupOffset> offsets);
  // DeleteShareGroupOffsets: the group's state for whole topics forgotten (the next share
  // consumer starts at share.auto.offset.reset); group-level refusals as above.
  asio::awaitable<Result<std::vector<TopicResult>>> delete_share_group_offsets(
      std::string group, std::vector<std::string> topics);
  // Each share group's state, epochs, assignor and members with their assignments
  // (ShareGroupDescribe v1), one entry per group with its own Status (GROUP_ID_NOT_FOUND: none,
  // or a group of another type). Share groups are listed with list_groups({}, {"share"}).
  asio::awaitable<Result<std::vector<ShareGroupDescription>>> describe_share_groups(
      std::vector<std::string> groups);

  // ---- transactions (client_transactions.cc) ----
  // Every broker's transactions, filtered by the brokers (ListTransactions).
  asio::awaitable<Result<TransactionListings>> list_transactions(TransactionFilter filter = {});
  // Each id's coordinator describes its transaction (DescribeTransactions); routed and retried
  // as the group calls are.
  asio::awaitable<Result<std::vector<TransactionDescription>>> describe_transactions(
      std::vector<std::string> transactional_ids);
  // The producers each partition's leader knows (DescribeProducers); with `broker_id`, the
  // producers that broker knows, leader or not.
  asio::awaitable<Result<std::vector<PartitionProducers>>> describe_producers(
      std::vector<TopicPartition> partitions, std::optional<int32_t> broker_id = std::nullopt);
  // Writes an ABORT marker for the producer into the partition (WriteTxnMarkers to its leader).
  asio::awaitable<Status> abort_transaction(AbortTransactionSpec spec);

  // ---- ACLs (client_acls.cc) ----
  // One Status per ACL, in order (INVALID_REQUEST with the broker's reason, SECURITY_DISABLED
  // without an authorizer, CLUSTER_AUTHORIZATION_FAILED without ALTER on the cluster).
  asio::awaitable<Result<std::vector<Status>>> create_acls(std::vector<security::AclBinding> acls);
  // The ACLs the filter matches; the Result fails on the broker's error.
  asio::awaitable<Result<std::vector<security::AclBinding>>> describe_acls(
      security::AclBindingFilter filter);
  // Per filter, in order, the ACLs the broker removed.
  asio::awaitable<Result<std::vector<AclDeletion>>> delete_acls(
      std::vector<security::AclBindingFilter> filters);

  // ---- mirrors (client_mirrors.cc) ----
  // Mirra's mirror admin RPCs, sent to the controller. The Status is the broker's answer
  // (INVALID_MIRROR_NAME, MIRROR_ALREADY_EXISTS, UNKNOWN_MIRROR, MIRROR_NOT_EMPTY, ...).
  asio::awaitable<Status> create_mirror(std::string name,
                                        std::vector<std::pair<std::string, std::string>> configs,
                                        bool validate_only = false);
  asio::awaitable<Status> delete_mirror(std::string name);
  // Starts mirroring source topics by name and by regular expression; per-topic outcomes.
  asio::awaitable<Result<std::vector<MirrorTopicResult>>> add_topics_to_mirror(
      std::string mirror, std::vector<std::string> names, std::vector<std::string> patterns);
  // The failover of topics (names and regular expressions): per topic, each partition's LMO.
  asio::awaitable<Result<std::vector<MirrorTopicResult>>> remove_topics_from_mirror(
      std::string mirror, std::vector<std::string> names, std::vector<std::string> patterns);
  // Pauses fetching (PAUSED, still read-only) / resumes it from the local log end; resuming
  // a FAILED partition recovers it (its retry count starts over).
  asio::awaitable<Result<std::vector<MirrorTopicResult>>> pause_mirror_topics(
      std::string mirror, std::vector<std::string> names, std::vector<std::string> patterns);
  asio::awaitable<Result<std::vector<MirrorTopicResult>>> resume_mirror_topics(
      std::string mirror, std::vector<std::string> names, std::vector<std::string> patterns);
  // The LMOs the cluster's failovers recorded for `partitions` of `topic` mirrored from the
  // cluster `requester_cluster_id`, in the order asked; -1 where none (LastMirroredOffsets).
  asio::awaitable<Result<std::vector<int64_t>>> last_mirrored_offsets(
      std::string requester_cluster_id, Uuid topic, std::vector<int32_t> partitions);
  // These mirrors (nullopt: every one), per partition.
  asio::awaitable<Result<std::vector<MirrorDescription>>> describe_mirrors(
      std::optional<std::vector<std::string>> names);
  // Every mirror; with `topic_names`, only those holding one of these topics.
  asio::awaitable<Result<std::vector<MirrorListing>>> list_mirrors(
      bool include_topics, std::optional<std::vector<std::string>> topic_names = std::nullopt);

  // ---- SCRAM users (client_scram.cc) ----
  // The users' mechanisms and iterations (nullopt or empty: every user), sent to any broker.
  asio::awaitable<Result<std::vector<UserScramCredentials>>> describe_user_scram_credentials(
      std::optional<std::vector<std::string>> users);
  // One request; one result per user. Salts and salted passwords are made here (the password
  // never leaves the client); a user named twice is refused by the broker (DUPLICATE_RESOURCE).
  asio::awaitable<Result<std::vector<ScramUserResult>>> alter_user_scram_credentials(
      std::vector<ScramDeletion> deletions, std::vector<ScramUpsertion> upsertions);

  // ---- client quotas (client_quotas.cc) ----
  // The quota entities the filter matches, with their values, sent to any broker (quotas live
  // in the metadata log every broker holds). The Result fails on the broker's error.
  asio::awaitable<Result<std::vector<QuotaEntry>>> describe_client_quotas(QuotaFilter filter);
  // One request; one result per alteration, in the broker's order.
  asio::awaitable<Result<std::vector<QuotaAlterationResult>>> alter_client_quotas(
      std::vector<QuotaAlteration> alterations, bool validate_only = false);

  // The connection to a broker by node id (from metadata), opened if needed.
  asio::awaitable<Result<std::shared_ptr<BrokerConnection>>> connection(int32_t node_id);
  // Any live connection: an open one, else a known broker, else the bootstrap servers in order.
  asio::awaitable<Result<std::shared_ptr<BrokerConnection>>> any_connection();
  // The cache as it is (no request).
  const ClusterMetadata& cached_metadata() const { return cache_; }
  // Makes the next routed call refresh metadata first.
  void invalidate_metadata() { metadata_stale_ = true; }
  void close();

 private:
  Client(asio::any_io_executor ex, ClientOptions options, std::vector<HostPort> bootstrap);

  ConnectionOptions connection_options() const;
  asio::awaitable<Result<std::shared_ptr<BrokerConnection>>> open(int32_t key, std::string host,
                                                                  uint16_t port);
  asio::awaitable<Result<std::shared_ptr<BrokerConnection>>> controller_connection();
  // Refreshes the cache for `topics` (plus every topic already cached).
  asio::awaitable<Status> refresh_metadata(const std::set<std::string>& topics);
  void merge_metadata(ClusterMetadata fresh, bool all_topics);
  asio::awaitable<void> backoff(int round);

  // The mirror RPCs that name topics and patterns and answer per topic (client_mirrors.cc).
  template <typename Req>
  asio::awaitable<Result<std::vector<MirrorTopicResult>>> mirror_topics_call(
      std::string mirror, std::vector<std::string> names, std::vector<std::string> patterns);

  // Sends an admin request to the controller (or any broker), retrying transport failures and
  // the replies for which `misrouted` says NOT_CONTROLLER, with fresh metadata in between.
  template <typename Req, typename Misrouted>
  asio::awaitable<Result<Reply<response_t<Req>>>> send_admin(const Req& req, bool to_controller,
                                                             Misrouted misrouted);
  // The retry loop shared by produce, fetch and list_offsets (client_routing.h). `send_group`
  // is called as (connection, indexes, results), or (node id, connection, indexes, results).
  template <typename Out, typename Item, typename SendGroup>
  asio::awaitable<Result<std::vector<Out>>> route(std::vector<Item>& items, SendGroup send_group);

  // One FindCoordinator round for `keys` (no retries): the Result fails only when no broker
  // can be reached; a failed lookup is that key's Status.
  asio::awaitable<Result<std::vector<Coordinator>>> lookup_coordinators(
      std::vector<std::string> keys, CoordinatorType type);
  asio::awaitable<Result<std::shared_ptr<BrokerConnection>>> coordinator_connection(
      const Coordinator& c);
  // The retry loop of the group and transaction calls (client_groups.cc): `results[i]` (which
  // has a `status`) is for `keys[i]`; `send_group(conn, coordinator, indexes, results)` asks one
  // coordinator (`send_group(coordinator, indexes, results)`: nothing to ask, no connection is
  // opened).
  template <typename Out, typename SendGroup>
  asio::awaitable<Status> route_to_coordinators(const std::vector<std::string>& keys,
                                                std::vector<Out>& results, SendGroup send_group,
                                                CoordinatorType type = CoordinatorType::group);
  // One group's call (the offset calls): `ask(connection, outcome)` asks its coordinator and
  // fills `outcome` (client_group_calls.h: a status and a T), routed and retried by
  // route_to_coordinators(); a group-level error in the outcome fails the call.
  template <typename T, typename Ask>
  asio::awaitable<Result<T>> call_group_coordinator(const std::string& group, Ask ask);
  // `ask(connection)` of one broker (ListGroups, ListTransactions), retried while retriable
  // until retry_timeout.
  template <typename T, typename Ask>
  asio::awaitable<Result<T>> ask_broker(int32_t node_id, Ask ask);

  asio::any_io_executor ex_;
  ClientOptions options_;
  std::shared_ptr<int64_t> throttled_ms_total_ = std::make_shared<int64_t>(0);
  std::vector<HostPort> bootstrap_;
  // Broker connections by node id; bootstrap connections under -1, -2, ... (their node ids are
  // not known when they open).
  std::map<int32_t, std::shared_ptr<BrokerConnection>> connections_;
  ClusterMetadata cache_;
  std::set<std::string> known_topics_;
  bool metadata_stale_ = true;
  std::map<std::pair<CoordinatorType, std::string>, Coordinator> coordinators_;  // by key
};

// Status for an error code in a response: OK for NONE, else the code with the broker's message
// (or the code's own) prefixed by `what` ("topic t partition 0").
Status status_from(int16_t code, const std::optional<std::string>& message, std::string_view what);

}  // namespace mirra::client
