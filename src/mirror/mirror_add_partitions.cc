// MirrorManager::add_partitions(): partitions the source added, created here for the partitions
// sync (docs/mirroring-design.md §8).
#include <fmt/format.h>

#include "base/log.h"
#include "cluster/topic_config.h"
#include "mirror/mirror_manager.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

}  // namespace

asio::awaitable<Status> MirrorManager::add_partitions(const std::string& mirror,
                                                      const std::string& topic, int32_t count) {
  MIRRA_ASSERT_OWNER(owner_);
  const metadata::TopicInfo* t = store_.image().topic(topic);
  if (t == nullptr) {
    co_return Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                     fmt::format("topic {} does not exist here", topic));
  }
  auto m = t->configs.find(std::string(cluster::kMirrorNameConfig));
  if (m == t->configs.end() || m->second != mirror) {
    co_return Status(ErrorCode::TOPIC_NOT_IN_MIRROR,
                     fmt::format("topic {} is not in mirror {}", topic, mirror));
  }
  const Uuid id = t->id;
  const auto before = static_cast<int32_t>(t->partitions.size());
  // The new partitions' states name the source cluster as the others' do.
  std::string source_cluster_id;
  if (const MirrorStateValue* first = states_.get({id, 0})) {
    source_cluster_id = first->source_cluster_id;
  }
  if (count > before) {
    // Topic administration itself, not CreatePartitions' handler: a mirror topic is read-only
    // to clients, and this is the mirror's change.
    if (Status s = co_await topics_.create_partitions(topic, count, false); !s.ok()) co_return s;
  }
  // PREPARING: the runner fetches each from its log start, as for a topic just added. A state
  // the runner recorded first (it fetches what the image has) stays, as in create_mirror_topic.
  // Also a partition a crash left without its state gets one here.
  for (int32_t p = 0; p < count; ++p) {
    const MirrorStateKey key{id, p};
    if (states_.get(key) != nullptr) continue;
    if (Status s = co_await write_state(key, mirror, MirrorState::preparing, -1, source_cluster_id);
        !s.ok()) {
      co_return s;
    }
  }
  if (count > before) {
    MIRRA_LOG_INFO("mirror {}: topic {}: partitions {} -> {} as on the source", mirror, topic,
                   before, count);
  }
  if (auto r = runners_.find(mirror); r != runners_.end()) r->second->wake();
  co_return Status::OK();
}

}  // namespace mirra::mirror
