// MirrorSync's configs sync (docs/mirroring-design.md §8): the source's dynamic topic configs
// follow on the destination's mirror topics, one DescribeConfigs per round for all of them.
#include <fmt/format.h>

#include "base/log.h"
#include "mirror/mirror_filters.h"
#include "mirror/mirror_sync.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

// The change that makes the destination's configs of one topic follow the source's.
struct ConfigChange {
  std::map<std::string, std::string> set;
  std::vector<std::string> removed;
  bool empty() const { return set.empty() && removed.empty(); }
};

// `copied`: what the source says the topic should have (copied_topic_configs()). `on_source`:
// every dynamic key the source has, copied or not, so that a key left out (refused here,
// sensitive) is not removed for being absent. Keys the sync does not own (never copied,
// excluded, mirror.name) are never touched: they are the destination's own.
ConfigChange config_change(const std::map<std::string, std::string>& copied,
                           const std::set<std::string>& on_source,
                           const std::map<std::string, std::string>& destination,
                           const PatternList& excluded) {
  ConfigChange out;
  for (const auto& [key, value] : copied) {
    auto it = destination.find(key);
    if (it == destination.end() || it->second != value) out.set.emplace(key, value);
  }
  for (const auto& [key, value] : destination) {
    if (never_copied(key) || excluded.matches(key) || on_source.count(key) != 0) continue;
    out.removed.push_back(key);
  }
  return out;
}

}  // namespace

asio::awaitable<SyncRound> MirrorSync::sync_configs() {
  MIRRA_ASSERT_OWNER(owner_);
  SyncRound out;
  if (!round_metadata_.ok()) {
    out.status = round_metadata_.status();
    co_return out;
  }
  // Topics the source has under the same id: a recreated one is another topic (the topics
  // sync fails it), whose configs are not ours to copy.
  std::vector<std::string> names;
  for (const SinkTopic& t : synced_topics()) {
    const client::TopicInfo* source = round_metadata_->topic(t.name);
    if (source == nullptr || source->error != ErrorCode::NONE) continue;
    if (!source->id.is_zero() && source->id != t.id) continue;
    names.push_back(t.name);
  }
  if (names.empty()) co_return out;
  auto described = co_await source_->topic_configs(names);
  if (!described.ok() && described.status().code() == ErrorCode::UNSUPPORTED_VERSION) {
    // A source without DescribeConfigs (librdkafka's mock cluster): nothing to follow.
    if (!configs_unsupported_logged_) {
      MIRRA_LOG_INFO(
          "mirror {}: the source has no DescribeConfigs, so topic configs are not "
          "synced ({})",
          mirror_, described.status().message());
      configs_unsupported_logged_ = true;
    }
    co_return out;
  }
  if (!described.ok()) {
    out.status = described.status();
    co_return out;
  }
  const PatternList excluded(settings_.topic_properties_exclude);
  for (const client::ConfigResourceResult& r : described.value()) {
    const std::string& topic = r.resource.name;
    ++out.looked_at;
    Status s = r.status;
    if (s.ok()) {
      auto done = co_await sync_topic_configs(topic, r.entries, excluded);
      if (done.ok()) {
        out.changed += done.value();
      } else {
        s = done.status();
      }
    }
    if (s.ok()) continue;
    // One topic's failure is the kind's, and the other topics go on.
    MIRRA_LOG_DEBUG("mirror {}: topic {}: configs not synced: {}", mirror_, topic, s.message());
    if (out.status.ok()) {
      out.status = Status(s.code(), fmt::format("topic {}: {}", topic, s.message()));
    }
  }
  co_return out;
}

asio::awaitable<Result<int64_t>> MirrorSync::sync_topic_configs(
    const std::string& topic, const std::vector<client::ConfigEntry>& entries,
    const PatternList& excluded) {
  const auto copied =
      copied_topic_configs(entries, excluded, [&](const std::string& key, const std::string& why) {
        // Once per topic and key: the same refusal comes back every round.
        if (refused_configs_logged_.insert(topic + "\n" + key).second) {
          MIRRA_LOG_WARN("mirror {}: topic {}: not syncing config {}: {}", mirror_, topic, key,
                         why);
        }
      });
  std::set<std::string> on_source;
  for (const client::ConfigEntry& e : entries) {
    if (e.source == client::ConfigSource::dynamic_topic) on_source.insert(e.name);
  }
  ConfigChange change =
      config_change(copied, on_source, ctx_.destination.topic_configs(topic), excluded);
  if (change.empty()) co_return int64_t{0};
  const auto changed = static_cast<int64_t>(change.set.size() + change.removed.size());
  std::string list;
  for (const auto& [key, value] : change.set) list += fmt::format(" {}={}", key, value);
  for (const std::string& key : change.removed) list += fmt::format(" -{}", key);
  Status s = co_await ctx_.destination.alter_topic_configs(topic, std::move(change.set),
                                                           std::move(change.removed));
  if (!s.ok()) co_return s;
  MIRRA_LOG_INFO("mirror {}: topic {}: configs follow the source:{}", mirror_, topic, list);
  co_return changed;
}

}  // namespace mirra::mirror
