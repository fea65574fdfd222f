// Topic administration shared by CreateTopics, Metadata's auto-creation, DeleteTopics and
// CreatePartitions: validation with Kafka's rules and errors, the metadata records of each
// change, and the partition-log work that follows a committed change.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/status.h"
#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"

namespace mirra::cluster {

struct NewTopic {
  std::string name;
  int32_t partitions = -1;          // -1: num.partitions
  int16_t replication_factor = -1;  // -1: default.replication.factor
  // Explicit assignments (partition -> broker ids); when given, partitions and replication
  // factor must be -1, as in Kafka.
  std::vector<std::vector<int32_t>> assignments;
  std::map<std::string, std::string> configs;
  std::optional<Uuid> id;  // a given id (mirroring); default: a fresh random one
  // The mirror the topic belongs to (its mirror.name config, which clients cannot set).
  std::optional<std::string> mirror_name;
};

struct TopicDefaults {
  // A bound on partitions per topic, so that one request cannot make the broker create
  // millions of directories (Kafka has no such key; its controller would run out of memory).
  static constexpr int32_t kMaxPartitionsPerTopic = 100000;

  int32_t node_id = 1;
  int32_t num_partitions = 1;
  int16_t default_replication_factor = 1;
  int32_t max_partitions = kMaxPartitionsPerTopic;
};

// Kafka's topic name rules: 1-249 characters of [a-zA-Z0-9._-], not "." or "..".
// INVALID_TOPIC_EXCEPTION with the reason.
Status validate_topic_name(std::string_view name);

// Everything CreateTopics checks before writing: name, counts, assignments, configs.
// Fills in the defaults. Errors carry Kafka's codes (INVALID_PARTITIONS,
// INVALID_REPLICATION_FACTOR, INVALID_REPLICA_ASSIGNMENT, INVALID_CONFIG, ...).
Status validate_new_topic(NewTopic& topic, const TopicDefaults& defaults);

class TopicAdmin {
 public:
  TopicAdmin(MetadataStore& store, PartitionManager& partitions, TopicDefaults defaults)
      : store_(store), partitions_(partitions), defaults_(defaults) {}

  const TopicDefaults& defaults() const { return defaults_; }
  void set_max_partitions(int32_t n) { defaults_.max_partitions = n; }

  // Validates, then (unless validate_only) records the topic and opens its partition logs.
  // TOPIC_ALREADY_EXISTS when the name is taken. Returns the topic's id.
  asio::awaitable<Result<Uuid>> create_topic(NewTopic topic, bool validate_only);
  // UNKNOWN_TOPIC_OR_PARTITION when there is no such topic.
  asio::awaitable<Status> delete_topic(const std::string& name);
  // Grows a topic to `count` partitions (INVALID_PARTITIONS if not more than now).
  asio::awaitable<Status> create_partitions(const std::string& name, int32_t count,
                                            bool validate_only);
  // Sets (value) or removes (nullopt) topic config overrides.
  // Makes an existing topic a mirror topic of `mirror` (a failback), bypassing the client rule
  // that mirror.name cannot be set.
  asio::awaitable<Status> set_mirror_name(const std::string& name, const std::string& mirror);
  // Raises a partition's leader epoch to `epoch` (nothing if it is there already): a mirror
  // partition keeps its epoch at or above every epoch it copied (docs/mirroring-design.md §2).
  asio::awaitable<Status> raise_leader_epoch(const std::string& name, int32_t partition,
                                             int32_t epoch);
  // Start-up after an unclean shutdown: every partition's leader epoch goes up by one, in one
  // metadata change, before anything is produced. The log may have lost a tail it had served;
  // batches written from now on carry the new epoch, so a follower or a mirror can tell the
  // old log from the new one (OffsetForLeaderEpoch, docs/mirroring-design.md §2.4). Returns
  // how many partitions moved.
  asio::awaitable<Result<size_t>> bump_leader_epochs();
  asio::awaitable<Status> alter_topic_configs(
      const std::string& name, const std::map<std::string, std::optional<std::string>>& changes,
      bool validate_only);

 private:
  MetadataStore& store_;
  PartitionManager& partitions_;
  TopicDefaults defaults_;
};

}  // namespace mirra::cluster
