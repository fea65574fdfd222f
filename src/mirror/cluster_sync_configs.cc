#include "mirror/cluster_sync_destination.h"

#include "mirror/mirror_manager.h"

namespace mirra::mirror {

std::map<std::string, std::string> ClusterSyncDestination::topic_configs(const std::string&) const {
  return {};
}

asio::awaitable<Status> ClusterSyncDestination::alter_topic_configs(
    const std::string&, std::map<std::string, std::string>, std::vector<std::string>) {
  co_return Status(ErrorCode::UNKNOWN_SERVER_ERROR, "not built yet");
}

asio::awaitable<Status> ClusterSyncDestination::add_partitions(const std::string&,
                                                               const std::string&, int32_t) {
  co_return Status(ErrorCode::UNKNOWN_SERVER_ERROR, "not built yet");
}

}  // namespace mirra::mirror
