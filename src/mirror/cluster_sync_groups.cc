// ClusterSyncDestination's group side (cluster_sync_destination.h): the groups sync's view of
// this broker's group coordinator (through the broker's GroupHooks) and of its partitions; the
// share-groups sync's AlterShareGroupOffsets through the same hooks.
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

namespace {

// A group's write through the broker's hook (commit, alter_share): refused by the failpoint
// `<failpoint>.<group>` in tests, and while the broker has not set the hook.
template <typename Offset>
asio::awaitable<Result<std::vector<client::PartitionStatus>>> through_hook(
    const std::function<asio::awaitable<Result<std::vector<client::PartitionStatus>>>(
        std::string, std::vector<Offset>)>& hook,
    const char* failpoint_prefix, const std::string& group_id, std::vector<Offset> offsets) {
  if (failpoints_active()) {  // tests: one group's writes refused
    Status injected = failpoint(fmt::format("{}.{}", failpoint_prefix, group_id));
    if (!injected.ok()) co_return injected;
  }
  if (!hook) {
    co_return Status(ErrorCode::COORDINATOR_NOT_AVAILABLE,
                     "this broker's group coordinator is not set up for mirroring");
  }
  co_return co_await hook(group_id, std::move(offsets));
}

}  // namespace

asio::awaitable<Result<std::vector<client::PartitionStatus>>>
ClusterSyncDestination::commit_offsets(const std::string& group_id,
                                       std::vector<client::OffsetToCommit> offsets) {
  co_return co_await through_hook(groups_.commit, "mirror.sync.group_commit", group_id,
                                  std::move(offsets));
}

asio::awaitable<Result<std::vector<client::PartitionStatus>>>
ClusterSyncDestination::alter_share_offsets(const std::string& group_id,
                                            std::vector<client::ShareGroupOffset> offsets) {
  co_return co_await through_hook(groups_.alter_share, "mirror.sync.share_commit", group_id,
                                  std::move(offsets));
}

}  // namespace mirra::mirror
