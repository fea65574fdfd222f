#include "mirror/cluster_sync_destination.h"

#include "mirror/mirror_manager.h"

namespace mirra::mirror {

DestinationGroup ClusterSyncDestination::group(const std::string&) const { return {}; }

std::optional<DestinationBounds> ClusterSyncDestination::bounds(
    const client::TopicPartition&) const {
  return std::nullopt;
}

asio::awaitable<Result<std::vector<client::PartitionStatus>>>
ClusterSyncDestination::commit_offsets(const std::string&, std::vector<client::OffsetToCommit>) {
  co_return Status(ErrorCode::UNKNOWN_SERVER_ERROR, "not built yet");
}

}  // namespace mirra::mirror
