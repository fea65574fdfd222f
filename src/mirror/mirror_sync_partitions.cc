// MirrorSync's partitions sync (docs/mirroring-design.md §8): partitions added on the source
// are created on the destination with the same indexes and mirrored from the source's log
// start.
#include <fmt/format.h>

#include "base/log.h"
#include "mirror/mirror_sync.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

}  // namespace

asio::awaitable<SyncRound> MirrorSync::sync_partitions() {
  MIRRA_ASSERT_OWNER(owner_);
  SyncRound out;
  if (!round_metadata_.ok()) {
    out.status = round_metadata_.status();
    co_return out;
  }
  // A copy of what is needed: the metadata may be replaced while a topic grows.
  struct Growth {
    std::string topic;
    int32_t count;
    int32_t adding;
  };
  std::vector<Growth> grow;
  for (const SinkTopic& t : synced_topics()) {
    const client::TopicInfo* source = round_metadata_->topic(t.name);
    // A topic gone or recreated is the topics sync's to fail, not to grow.
    if (source == nullptr || source->error != ErrorCode::NONE) continue;
    if (!source->id.is_zero() && source->id != t.id) continue;
    ++out.looked_at;
    const auto on_source = static_cast<int32_t>(source->partitions.size());
    const auto here = static_cast<int32_t>(t.partitions.size());
    if (on_source > here) {
      grow.push_back({t.name, on_source, on_source - here});
    } else if (on_source < here && fewer_partitions_logged_.insert(t.name).second) {
      // Kafka topics cannot shrink; only a source topic deleted and recreated has fewer
      // partitions, and the topics sync tells that by the topic id.
      MIRRA_LOG_WARN(
          "mirror {}: topic {} has {} partition(s) on the source and {} here; the "
          "extra ones here are left alone",
          mirror_, t.name, on_source, here);
    }
  }
  for (const Growth& g : grow) {
    Status s = co_await ctx_.destination.add_partitions(mirror_, g.topic, g.count);
    if (s.ok()) {
      out.changed += g.adding;
      continue;
    }
    // One topic's failure is the kind's, and the other topics go on.
    if (out.status.ok()) {
      out.status = Status(s.code(), fmt::format("topic {}: {}", g.topic, s.message()));
    }
  }
  co_return out;
}

}  // namespace mirra::mirror
