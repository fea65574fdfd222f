// OffsetsTopic: the group coordinator's internal topic __consumer_offsets (compacted,
// partitioned by group: offsets_records.h), on cluster::InternalTopic. It creates the topic
// the first time a group needs it, as Kafka does, writes a group's records to the group's
// partition, and reads a partition back when the coordinator loads.
//
// Threading: core thread, as InternalTopic.
#pragma once

#include <string>
#include <vector>

#include "cluster/internal_topic.h"
#include "groups/group_config.h"
#include "groups/offsets_records.h"

namespace mirra::groups {

inline constexpr const char* kOffsetsTopic = "__consumer_offsets";

// One record: a key and its value, or a tombstone (no value).
using OffsetsEntry = cluster::InternalRecord;

class OffsetsTopic {
 public:
  OffsetsTopic(cluster::MetadataStore& metadata, cluster::PartitionManager& partitions,
               cluster::TopicAdmin& topics, const GroupConfig& config);

  bool exists() const { return topic_.exists(); }
  int32_t partition_count() const { return topic_.partition_count(); }
  int32_t partition_of(std::string_view group) const {
    return partition_for_group(group, partition_count());
  }

  asio::awaitable<Status> ensure_created() { return topic_.ensure_created(); }
  // Appends `entries` as one batch to the partition of `group`.
  asio::awaitable<Status> append(const std::string& group, std::vector<OffsetsEntry> entries,
                                 cluster::InternalProducer producer = {}) {
    return topic_.append(partition_of(group), std::move(entries), producer);
  }
  // Every record and marker of `partition`, in log order.
  asio::awaitable<Result<std::vector<cluster::InternalEntry>>> read_all(int32_t partition) {
    return topic_.read_all(partition);
  }

 private:
  cluster::InternalTopic topic_;
};

}  // namespace mirra::groups
