#include <algorithm>

#include "cluster/metadata_store.h"
#include "mirror/cluster_sync_destination.h"
#include "mirror/mirror_manager.h"

namespace mirra::mirror {

asio::awaitable<std::vector<Status>> ClusterSyncDestination::add_topics(
    const std::string& mirror, std::vector<std::string> names) {
  const std::vector<std::string> no_patterns;
  auto added = co_await manager_.add_topics(mirror, names, no_patterns);
  if (!added.ok()) co_return std::vector<Status>(names.size(), added.status());
  // One outcome per name, in the order asked (the answer is by name).
  std::vector<Status> out;
  for (const std::string& name : names) {
    auto it = std::find_if(added->begin(), added->end(),
                           [&](const AddedTopic& a) { return a.name == name; });
    out.push_back(it == added->end() ? Status(ErrorCode::UNKNOWN_SERVER_ERROR, "no answer")
                                     : it->status);
  }
  co_return out;
}

asio::awaitable<Status> ClusterSyncDestination::fail_topic(const std::string& mirror,
                                                           const std::string& topic, Status why) {
  co_return co_await manager_.fail_topic(mirror, topic, std::move(why));
}

std::vector<std::string> ClusterSyncDestination::topic_patterns(const std::string& mirror) const {
  const metadata::MirrorInfo* m = store_.image().mirror(mirror);
  return m == nullptr ? std::vector<std::string>{} : topic_sync_patterns(*m);
}

bool ClusterSyncDestination::has_topic(const std::string& name) const {
  return store_.image().topic(name) != nullptr;
}

}  // namespace mirra::mirror
