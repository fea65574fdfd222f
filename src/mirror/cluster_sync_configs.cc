// ClusterSyncDestination's topic configs and partitions (cluster_sync_destination.h): through
// topic administration directly, as the mirror's own changes, not a client's: the handlers'
// checks for mirror topics (READ_ONLY_TOPIC for CreatePartitions) do not apply to the mirror.
#include <fmt/format.h>

#include "cluster/metadata_store.h"
#include "cluster/topic_admin.h"
#include "mirror/cluster_sync_destination.h"
#include "mirror/mirror_manager.h"

namespace mirra::mirror {

std::map<std::string, std::string> ClusterSyncDestination::topic_configs(
    const std::string& topic) const {
  const metadata::TopicInfo* t = store_.image().topic(topic);
  if (t == nullptr) return {};
  return t->configs;  // the overrides only; mirror.name among them, which the sync never owns
}

asio::awaitable<Status> ClusterSyncDestination::alter_topic_configs(
    const std::string& topic, std::map<std::string, std::string> set,
    std::vector<std::string> removed) {
  // One metadata change: the topic never shows half of the source's change.
  std::map<std::string, std::optional<std::string>> changes;
  for (auto& [key, value] : set) changes.emplace(key, std::move(value));
  for (std::string& key : removed) changes.emplace(std::move(key), std::nullopt);
  co_return co_await topics_.alter_topic_configs(topic, changes, false);
}

asio::awaitable<Status> ClusterSyncDestination::add_partitions(const std::string& mirror,
                                                               const std::string& topic,
                                                               int32_t count) {
  co_return co_await manager_.add_partitions(mirror, topic, count);
}

}  // namespace mirra::mirror
