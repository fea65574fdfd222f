// Partition: the broker's handle on one topic partition.
//
// Ownership (two threads, no locks):
//   - identity fields are immutable;
//   - `log` belongs to the partition's shard thread (cluster/shard_pool.h): only code running
//     through PartitionManager::run() touches it;
//   - everything else belongs to the core thread: the offsets as of the last operation the
//     shard finished (what Metadata/ListOffsets/fetch long-polls read without a round trip),
//     the fetch waiters, and the removed flag.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/uuid.h"
#include "storage/partition_log.h"

namespace mirra::cluster {

struct PartitionOffsets {
  int64_t log_start = 0;
  int64_t high_watermark = 0;
  int64_t last_stable = 0;
  int64_t log_end = 0;
  int64_t size_bytes = 0;  // of the segment files, for metrics
  bool operator==(const PartitionOffsets&) const = default;
};

// Read on the shard thread, right after an operation.
PartitionOffsets offsets_of(const storage::PartitionLog& log);

class Partition {
 public:
  Partition(std::string topic, Uuid topic_id, int32_t index, size_t shard)
      : topic(std::move(topic)), topic_id(topic_id), index(index), shard(shard) {}

  const std::string topic;
  const Uuid topic_id;
  const int32_t index;
  const size_t shard;

  // Shard thread only. Null while offline: `offline_reason` (core thread) says why.
  std::unique_ptr<storage::PartitionLog> log;

  // Core thread only.
  PartitionOffsets offsets;
  int32_t leader_epoch = 0;
  std::string offline_reason;
  bool removed = false;

  bool online() const { return offline_reason.empty(); }

  // Long-polling fetches wait on a timer; a change of offsets cancels them all (core thread).
  void add_waiter(const std::shared_ptr<asio::steady_timer>& t) {
    // Fetches that timed out leave expired entries behind; an idle partition polled by
    // long-polling consumers would otherwise collect them until its next append.
    if (waiters_.size() >= 16) std::erase_if(waiters_, [](const auto& w) { return w.expired(); });
    waiters_.push_back(t);
  }
  void wake_waiters();

 private:
  std::vector<std::weak_ptr<asio::steady_timer>> waiters_;
};

}  // namespace mirra::cluster
