// OffsetsTopic: the group coordinator's access to its internal topic __consumer_offsets
// (compacted, partitioned by group: offsets_records.h). It creates the topic the first time a
// group needs it, as Kafka does, writes a group's records to the group's partition, and reads
// a partition back when the coordinator loads.
//
// Threading: core thread; the log work runs on the partition's shard through the
// PartitionManager.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/status.h"
#include "groups/group_config.h"
#include "groups/offsets_records.h"

namespace mirra::cluster {
class MetadataStore;
class PartitionManager;
class TopicAdmin;
}  // namespace mirra::cluster

namespace mirra::groups {

inline constexpr const char* kOffsetsTopic = "__consumer_offsets";

// One record: a key and its value, or a tombstone (no value).
struct OffsetsEntry {
  Bytes key;
  std::optional<Bytes> value;
};

class OffsetsTopic {
 public:
  OffsetsTopic(cluster::MetadataStore& metadata, cluster::PartitionManager& partitions,
               cluster::TopicAdmin& topics, const GroupConfig& config)
      : metadata_(metadata), partitions_(partitions), topics_(topics), config_(config) {}

  bool exists() const;
  // The topic's partition count once it exists, else the configured count it will get.
  int32_t partition_count() const;
  int32_t partition_of(std::string_view group) const {
    return partition_for_group(group, partition_count());
  }

  // Creates the topic unless it exists (concurrent callers share the outcome of one create).
  asio::awaitable<Status> ensure_created();
  // Appends `entries` as one batch to the partition of `group`.
  asio::awaitable<Status> append(const std::string& group, std::vector<OffsetsEntry> entries);
  // Every record of `partition`, in log order.
  asio::awaitable<Result<std::vector<OffsetsEntry>>> read_all(int32_t partition);

 private:
  // Every partition of the existing topic has its handle in the partition manager.
  bool partitions_open() const;

  cluster::MetadataStore& metadata_;
  cluster::PartitionManager& partitions_;
  cluster::TopicAdmin& topics_;
  const GroupConfig& config_;
};

}  // namespace mirra::groups
