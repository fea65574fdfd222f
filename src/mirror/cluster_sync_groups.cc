// ClusterSyncDestination's group side (cluster_sync_destination.h): the groups sync's view of
// this broker's group coordinator (through the broker's GroupHooks) and of its partitions.
#include <fmt/format.h>

#include "base/failpoint.h"
#include "cluster/partition_manager.h"
#include "mirror/cluster_sync_destination.h"
#include "mirror/mirror_manager.h"

namespace mirra::mirror {

DestinationGroup ClusterSyncDestination::group(const std::string& group_id) const {
  if (!groups_.describe) return {};
  return groups_.describe(group_id);
}

std::optional<DestinationBounds> ClusterSyncDestination::bounds(
    const client::TopicPartition& tp) const {
  auto p = partitions_.find(tp.topic, tp.partition);
  if (p == nullptr || !p->online()) return std::nullopt;
  // The offsets as of the partition's last operation on its shard: a commit clamped to them is
  // at most a little behind, never past the data.
  return DestinationBounds{p->offsets.log_start, p->offsets.last_stable};
}

asio::awaitable<Result<std::vector<client::PartitionStatus>>>
ClusterSyncDestination::commit_offsets(const std::string& group_id,
                                       std::vector<client::OffsetToCommit> offsets) {
  if (failpoints_active()) {  // tests: one group's commits refused
    Status injected = failpoint(fmt::format("mirror.sync.group_commit.{}", group_id));
    if (!injected.ok()) co_return injected;
  }
  if (!groups_.commit) {
    co_return Status(ErrorCode::COORDINATOR_NOT_AVAILABLE,
                     "this broker's group coordinator is not set up for mirroring");
  }
  co_return co_await groups_.commit(group_id, std::move(offsets));
}

}  // namespace mirra::mirror
