// The values the cluster client takes and returns. Per-item outcomes (a topic, a partition, a
// config resource) carry their own Status, so one bad partition does not hide the others; the
// call's own Result fails only when nothing could be asked at all.
#pragma once

#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/raw_bytes.h"
#include "base/status.h"
#include "base/uuid.h"
#include "protocol/wire.h"

namespace mirra::client {

struct HostPort {
  std::string host;
  uint16_t port = 0;
};
// "host:port,host:port" (spaces around commas allowed; IPv6 as [addr]:port).
Result<std::vector<HostPort>> parse_bootstrap_servers(std::string_view text);

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  auto operator<=>(const TopicPartition&) const = default;
};
std::string to_string(const TopicPartition& tp);  // "topic-3", as Kafka prints it

// ---- metadata ---------------------------------------------------------------------------------

struct BrokerInfo {
  int32_t node_id = -1;
  std::string host;
  int32_t port = 0;
  std::optional<std::string> rack;
};

struct PartitionInfo {
  int32_t partition = 0;
  ErrorCode error = ErrorCode::NONE;
  int32_t leader = -1;
  int32_t leader_epoch = -1;
  std::vector<int32_t> replicas;
  std::vector<int32_t> isr;
  std::vector<int32_t> offline_replicas;
};

struct TopicInfo {
  std::string name;
  Uuid id;  // zero when the broker's Metadata version predates topic ids (v10)
  ErrorCode error = ErrorCode::NONE;
  bool internal = false;
  std::vector<PartitionInfo> partitions;  // by partition index

  const PartitionInfo* partition(int32_t index) const;
};

struct ClusterMetadata {
  std::optional<std::string> cluster_id;
  int32_t controller_id = -1;
  std::vector<BrokerInfo> brokers;  // by node id
  std::vector<TopicInfo> topics;    // by name

  const TopicInfo* topic(std::string_view name) const;
  const BrokerInfo* broker(int32_t node_id) const;
};

struct ClusterDescription {
  std::string cluster_id;
  int32_t controller_id = -1;
  std::vector<BrokerInfo> brokers;
};

// ---- admin --------------------------------------------------------------------------------------

struct NewTopic {
  std::string name;
  int32_t partitions = -1;          // -1: the broker's num.partitions
  int16_t replication_factor = -1;  // -1: the broker's default.replication.factor
  std::vector<std::pair<std::string, std::string>> configs;
};

struct NewPartitions {
  std::string topic;
  int32_t total_count = 0;  // the new partition count, not the increment (Kafka's meaning)
};

// The outcome for one topic of create/delete/create-partitions.
struct TopicResult {
  std::string name;
  Status status;
  Uuid id;                          // CreateTopics v7+
  int32_t partitions = -1;          // CreateTopics v5+
  int16_t replication_factor = -1;  // CreateTopics v5+
};

enum class ConfigResourceType : int8_t { topic = 2, broker = 4, broker_logger = 8 };

struct ConfigResource {
  ConfigResourceType type = ConfigResourceType::topic;
  std::string name;
  std::vector<std::string> keys;  // empty: every config
};

// Kafka's DescribeConfigs config sources.
enum class ConfigSource : int8_t {
  unknown = 0,
  dynamic_topic = 1,
  dynamic_broker = 2,
  dynamic_default_broker = 3,
  static_broker = 4,
  default_config = 5,
  dynamic_broker_logger = 6,
};

// A value the entry falls back through (DescribeConfigs with synonyms), most specific first.
struct ConfigSynonym {
  std::string name;
  std::optional<std::string> value;  // null for a sensitive config
  ConfigSource source = ConfigSource::unknown;
};

struct ConfigEntry {
  std::string name;
  std::optional<std::string> value;
  bool read_only = false;
  bool sensitive = false;
  ConfigSource source = ConfigSource::unknown;
  std::vector<ConfigSynonym> synonyms = {};  // asked for with include_synonyms only
};

struct ConfigResourceResult {
  ConfigResource resource;
  Status status;
  std::vector<ConfigEntry> entries;
};

enum class AlterConfigOp : int8_t { set = 0, remove = 1, append = 2, subtract = 3 };

struct ConfigAlteration {
  std::string name;
  AlterConfigOp op = AlterConfigOp::set;
  std::optional<std::string> value;
};

struct AlterConfigResource {
  ConfigResource resource;
  std::vector<ConfigAlteration> alterations;
};

struct ResourceResult {
  ConfigResource resource;
  Status status;
};

// ---- data ---------------------------------------------------------------------------------------

enum class IsolationLevel : int8_t { read_uncommitted = 0, read_committed = 1 };

// ListOffsets special timestamps.
inline constexpr int64_t kLatestTimestamp = -1;
inline constexpr int64_t kEarliestTimestamp = -2;
inline constexpr int64_t kMaxTimestamp = -3;  // the record with the largest timestamp (v7+)

struct OffsetQuery {
  TopicPartition tp;
  int64_t timestamp = kLatestTimestamp;
};

struct PartitionOffset {
  TopicPartition tp;
  Status status;
  int64_t offset = -1;
  int64_t timestamp = -1;
  int32_t leader_epoch = -1;
};

// OffsetForLeaderEpoch: where does `leader_epoch` end in the leader's log?
struct EpochQuery {
  TopicPartition tp;
  int32_t leader_epoch = -1;
  int32_t current_leader_epoch = -1;  // -1: no fencing
};

// The largest epoch at or below the one asked for and the offset where it ends; both -1 when
// the leader knows no such epoch (UNDEFINED).
struct EpochEndOffset {
  TopicPartition tp;
  Status status;
  int32_t leader_epoch = -1;
  int64_t end_offset = -1;
};

// One record batch (or several back to back) for one partition, e.g. from BatchBuilder.
struct ProduceBatch {
  TopicPartition tp;
  protocol::Bytes records;
};

struct ProduceOptions {
  int16_t acks = -1;  // -1 all, 1 leader, 0 none (no response; results carry offset -1)
  int32_t timeout_ms = 30000;
};

struct ProduceResult {
  TopicPartition tp;
  Status status;
  int64_t base_offset = -1;
  int64_t log_append_time = -1;
  int64_t log_start_offset = -1;
};

struct FetchPosition {
  TopicPartition tp;
  int64_t offset = 0;
  int32_t max_bytes = 1 << 20;
  int32_t current_leader_epoch = -1;  // -1: no fencing
};

class FetchSessions;  // client/fetch_sessions.h

struct FetchOptions {
  int32_t max_wait_ms = 500;
  int32_t min_bytes = 1;
  int32_t max_bytes = 50 << 20;
  IsolationLevel isolation = IsolationLevel::read_uncommitted;
  // KIP-227 fetch sessions, kept per broker in this caller-owned object (it must outlive the
  // call); null: full fetches without a session (session id 0, epoch -1).
  FetchSessions* sessions = nullptr;
};

struct AbortedTransaction {
  int64_t producer_id = -1;
  int64_t first_offset = -1;
};

// A partition's share of a Fetch response. `records` points into `buffer` (the whole response
// frame, shared by every partition of that response) and stays valid as long as it does. The
// last batch may be cut short by the size limits (see records::RecordSetIterator).
struct FetchedPartition {
  // The records, writable in place: the partitions of one response own disjoint parts of the
  // buffer and nothing else reads it, so whoever holds an answer may rewrite its own records
  // (the mirror's producer ids) without a copy.
  std::span<uint8_t> writable_records() const {
    if (records.empty()) return {};
    return {buffer->data() + (records.data() - buffer->data()), records.size()};
  }

  TopicPartition tp;
  Status status;
  int64_t high_watermark = -1;
  int64_t last_stable_offset = -1;
  int64_t log_start_offset = -1;
  std::vector<AbortedTransaction> aborted_transactions;
  std::shared_ptr<RawBytes> buffer;
  std::span<const uint8_t> records;
};

// ---- consumer groups ----------------------------------------------------------------------------

// Which kind of key a coordinator is looked up for (FindCoordinator's key type).
enum class CoordinatorType : int8_t { group = 0, transaction = 1 };

// Where FindCoordinator says a group (or transactional id) lives.
struct Coordinator {
  std::string key;  // the group id or transactional id
  Status status;
  int32_t node_id = -1;
  std::string host;
  int32_t port = 0;
};

struct GroupListing {
  std::string group_id;
  std::string protocol_type;  // "consumer" for consumer groups, "" for offsets-only groups
  std::string state;          // ListGroups v4+; empty from older brokers
  // ListGroups v5+ ("consumer", "classic", "share"); else empty. Defaulted so that listings
  // written as {id, protocol type, state} stay complete (-Wmissing-field-initializers).
  std::string type = {};
};

// Every broker's groups (deduplicated, by id). A broker that could not be asked adds a Status to
// `errors` and leaves the others' answers usable, so a listing may be partial.
struct GroupListings {
  std::vector<GroupListing> groups;
  std::vector<Status> errors;
};

struct GroupMember {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  protocol::Bytes metadata;    // the embedded protocol's subscription (groups/consumer_protocol.h)
  protocol::Bytes assignment;  // the embedded protocol's assignment
};

struct GroupDescription {
  std::string group_id;
  Status status;
  std::string state;          // Kafka's names: Empty, Stable, PreparingRebalance, Dead, ...
  std::string protocol_type;  // "consumer"
  std::string protocol;       // the assignor, e.g. "range"
  std::vector<GroupMember> members;
  Coordinator coordinator;  // the broker that answered
};

// A committed offset; offset -1 when the group has none for the partition.
struct CommittedOffset {
  TopicPartition tp;
  Status status;
  int64_t offset = -1;
  int32_t leader_epoch = -1;
  std::optional<std::string> metadata;
};

// One group's committed offsets out of a many-group OffsetFetch (Client::offset_fetch_groups):
// its own error (e.g. COORDINATOR_LOAD_IN_PROGRESS after the retries) in `status`.
struct GroupOffsets {
  std::string group_id;
  Status status;
  std::vector<CommittedOffset> offsets;
};

struct OffsetToCommit {
  TopicPartition tp;
  int64_t offset = 0;
  int32_t leader_epoch = -1;
  std::optional<std::string> metadata;
};

struct PartitionStatus {
  TopicPartition tp;
  Status status;
};

struct GroupResult {
  std::string group_id;
  Status status;
};

// ---- share groups -------------------------------------------------------------------------------

// A share partition's start offset (Kafka's SPSO: below it the group is done with every
// record). DescribeShareGroupOffsets answers with it (start_offset -1: the group holds no state
// for the partition; lag from v1, -1 when unknown); AlterShareGroupOffsets sets it.
struct ShareGroupOffset {
  TopicPartition tp;
  Status status;
  int64_t start_offset = -1;
  int32_t leader_epoch = -1;
  int64_t lag = -1;
};

// One share group's start offsets out of DescribeShareGroupOffsets, with the group's own Status
// (e.g. GROUP_ID_NOT_FOUND: unknown, or a consumer group of that id).
struct ShareGroupOffsets {
  std::string group_id;
  Status status;
  std::vector<ShareGroupOffset> offsets;
};

struct ShareGroupMember {
  std::string member_id;
  std::optional<std::string> rack_id;
  int32_t member_epoch = 0;
  std::string client_id;
  std::string client_host;
  std::vector<std::string> subscribed_topics;
  std::vector<TopicPartition> assignment;  // sorted
};

// A share group out of ShareGroupDescribe.
struct ShareGroupDescription {
  std::string group_id;
  Status status;
  std::string state;  // Kafka's names: Empty, Stable, Dead
  int32_t group_epoch = -1;
  int32_t assignment_epoch = -1;
  std::string assignor;  // "simple"
  std::vector<ShareGroupMember> members;
  Coordinator coordinator;  // the broker that answered
};

// ---- transactions -------------------------------------------------------------------------------

// ListTransactions filters (empty: all); `min_duration_ms` needs ListTransactions v1 (KIP-994).
struct TransactionFilter {
  std::vector<std::string> states;  // Kafka's names: Ongoing, PrepareCommit, ...
  std::vector<int64_t> producer_ids;
  int64_t min_duration_ms = -1;
};

struct TransactionListing {
  std::string transactional_id;
  int64_t producer_id = -1;
  std::string state;
  int32_t coordinator_id = -1;  // the broker that listed it
};

// Every broker's transactions; like GroupListings, a broker that could not be asked adds to
// `errors` and leaves the others' answers usable.
struct TransactionListings {
  std::vector<TransactionListing> transactions;
  std::vector<Status> errors;
};

struct TransactionDescription {
  std::string transactional_id;
  Status status;
  std::string state;
  int32_t timeout_ms = 0;
  int64_t start_time_ms = -1;  // -1: no transaction open
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  std::vector<TopicPartition> partitions;
  Coordinator coordinator;  // the broker that answered
};

// A producer a partition's leader knows (DescribeProducers).
struct ProducerState {
  int64_t producer_id = -1;
  int32_t producer_epoch = -1;
  int32_t last_sequence = -1;
  int64_t last_timestamp = -1;
  int32_t coordinator_epoch = -1;         // -1: no marker written yet
  int64_t current_txn_start_offset = -1;  // -1: no transaction open
};

struct PartitionProducers {
  TopicPartition tp;
  Status status;
  std::vector<ProducerState> producers;
};

// An abort marker for one producer's open transaction on one partition, written without the
// transaction coordinator (kafka-transactions.sh abort: a hanging transaction).
struct AbortTransactionSpec {
  TopicPartition tp;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t coordinator_epoch = 0;
};

// ---- mirrors (docs/mirroring-design.md §7) ------------------------------------------------------

struct MirrorTopicListing {
  std::string name;
  Uuid id;
  int8_t state = -1;  // docs/mirroring-design.md §3's numbers; -1: none
};

struct MirrorListing {
  std::string name;
  std::string source_bootstrap_servers;
  std::optional<std::string> source_cluster_id;  // known once the mirror reached its source
  int32_t topic_count = 0;
  std::vector<MirrorTopicListing> topics;  // with include_topics only
};

// A partition that AddTopicsToMirror restarted (a failback, or a restart after a failover;
// docs/mirroring-design.md §6): where it was truncated and how many offsets above that point
// were discarded.
struct MirrorPartitionRestart {
  int32_t partition = 0;
  int64_t truncated_to = -1;
  int64_t discarded = 0;
};

// A partition that RemoveTopicsFromMirror failed over (§5): its LMO, and how many offsets above
// it (the local LSO) the failover's truncation discarded.
struct MirrorPartitionStop {
  int32_t partition = 0;
  int64_t last_mirrored_offset = -1;
  int64_t discarded = 0;
};

struct MirrorTopicResult {
  std::string name;
  Uuid id;
  Status status;
  std::vector<MirrorPartitionStop> stops;        // RemoveTopicsFromMirror
  std::vector<MirrorPartitionRestart> restarts;  // AddTopicsToMirror
};

// One partition as DescribeMirrors shows it; -1 where unknown.
struct MirrorPartitionDescription {
  int32_t partition = 0;
  int8_t state = -1;
  int64_t source_log_start = -1;
  int64_t source_high_watermark = -1;
  int64_t destination_log_end = -1;
  int64_t lag = -1;
  int64_t last_mirrored_offset = -1;
  int32_t retries = 0;
  Status last_error;
  int64_t lag_ms = -1;
  int64_t bytes_per_second = 0;
  int64_t records_per_second = 0;
  int64_t fetch_latency_ms = -1;
};

struct MirrorTopicDescription {
  std::string name;
  Uuid id;
  std::vector<MirrorPartitionDescription> partitions;
};

// One kind of the mirror's sync tasks (docs/mirroring-design.md §8, §12): kind is
// DescribeMirrors' number (topics 0, configs 1, partitions 2, groups 3, acls 4, share groups 5);
// times are wall-clock
// ms, -1 for never.
struct MirrorSyncKindDescription {
  int8_t kind = 0;
  int64_t runs = 0;
  int64_t failures = 0;
  int64_t last_run_ms = -1;
  int64_t last_success_ms = -1;
  int64_t last_error_ms = -1;
  int64_t last_duration_us = -1;
  int64_t looked_at = 0;  // in the last round
  int64_t changed = 0;    // in the last round
  int64_t changed_total = 0;
  Status last_error;  // OK once a round succeeded after it
};

// A source group whose offset sync has something to say: an error, or skipped because it has
// members on the destination. `kind`: the sync kind's number, groups 3 (a consumer group's
// committed offsets) or share groups 5 (a share group's start offsets).
struct MirrorSyncGroupDescription {
  std::string group_id;
  Status error;
  bool active_on_destination = false;
  int64_t last_synced_ms = -1;
  int64_t offsets_committed = 0;
  int8_t kind = 3;
};

struct MirrorDescription {
  std::string name;
  Status status;
  std::string source_bootstrap_servers;
  std::optional<std::string> source_cluster_id;
  std::vector<MirrorTopicDescription> topics;
  // Empty from brokers that predate them (tagged fields) and for mirrors without sync tasks.
  std::vector<MirrorSyncKindDescription> sync_kinds;
  std::vector<MirrorSyncGroupDescription> sync_groups;
  // Throttling (docs/quotas.md): the destination broker's mirror.replication.throttled.rate
  // (-1: none), and the ms the mirror spent held back by it and throttled by the source.
  int64_t throttled_rate = -1;
  int64_t destination_throttled_ms = 0;
  int64_t source_throttled_ms = 0;
};

}  // namespace mirra::client
