// ShareStore: share partitions' state in the internal compacted topic __share_group_state
// (Kafka's name for the role; format in docs/formats/share_group_state.md). One record per
// (group, topic id, partition), keyed by them, holding the partition's whole snapshot
// (ShareSnapshot: start offset and the states of the offsets in flight); compaction keeps the
// latest. A group's records go to partition java_hash(group) mod the partition count, as
// __consumer_offsets does.
//
// Written before acknowledgements are answered (ShareFetch, ShareAcknowledge), so that after a
// crash no acknowledged record is delivered again; read back whole at start-up.
//
// Threading: core thread; the log work runs on the partition's shard (cluster::InternalTopic).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/status.h"
#include "cluster/internal_topic.h"
#include "share/share_partition.h"
#include "share/share_sessions.h"

namespace mirra::share {

inline constexpr const char* kShareStateTopic = "__share_group_state";

// Record encodings (docs/formats/share_group_state.md).
inline constexpr int16_t kShareStateKeyVersion = 0;
inline constexpr int16_t kShareStateValueVersion = 0;
protocol::Bytes encode_share_key(const ShareKey& key);
protocol::Bytes encode_share_snapshot(const ShareSnapshot& snapshot);
Result<ShareKey> decode_share_key(std::span<const uint8_t> bytes);
Result<ShareSnapshot> decode_share_snapshot(std::span<const uint8_t> bytes);

// Kafka's defaults for the topic (share.coordinator.state.topic.*).
struct ShareStoreConfig {
  int32_t partitions = 50;              // share.coordinator.state.topic.num.partitions
  int64_t segment_bytes = 104'857'600;  // share.coordinator.state.topic.segment.bytes
};
cluster::InternalTopicSpec share_state_topic_spec(const ShareStoreConfig& config);

class ShareStore {
 public:
  explicit ShareStore(cluster::InternalTopic& topic) : topic_(topic) {}

  // Appends the partition's snapshot, taken by `take` right before the append is queued (after
  // the topic exists), so that of two writes of one key the later one holds the later state.
  // Nothing is written when `take` gives nothing (the partition is gone meanwhile).
  asio::awaitable<Status> write(const ShareKey& key,
                                std::function<std::optional<ShareSnapshot>()> take);
  // Tombstones for the keys (a deleted group, deleted offsets).
  asio::awaitable<Status> erase(const std::vector<ShareKey>& keys);
  // Every key's latest snapshot. Nothing when the topic does not exist yet. A record that does
  // not decode is an error naming its partition.
  asio::awaitable<Result<std::map<ShareKey, ShareSnapshot>>> load();

 private:
  int32_t partition_of(const std::string& group) const;
  cluster::InternalTopic& topic_;
};

}  // namespace mirra::share
