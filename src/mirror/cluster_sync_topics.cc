#include "mirror/cluster_sync_destination.h"

#include "mirror/mirror_manager.h"

namespace mirra::mirror {

asio::awaitable<std::vector<Status>> ClusterSyncDestination::add_topics(
    const std::string&, std::vector<std::string> names) {
  co_return std::vector<Status>(names.size(),
                                Status(ErrorCode::UNKNOWN_SERVER_ERROR, "not built yet"));
}

asio::awaitable<Status> ClusterSyncDestination::fail_topic(const std::string&, const std::string&,
                                                           Status) {
  co_return Status(ErrorCode::UNKNOWN_SERVER_ERROR, "not built yet");
}

}  // namespace mirra::mirror
