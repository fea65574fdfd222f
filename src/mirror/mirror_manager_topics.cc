// MirrorManager's part of the topics sync (docs/mirroring-design.md §8): the `--add --topic`
// patterns a mirror remembers (in its MirrorRecord, so a restart keeps them), and the topics the
// sync fails for good because their source topic was deleted or recreated.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/log.h"
#include "mirror/mirror_manager.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

using Records = std::vector<metadata::MetadataRecord>;

}  // namespace

std::vector<std::string> topic_sync_patterns(const metadata::MirrorInfo& mirror) {
  std::vector<std::string> out = mirror.topic_patterns;
  // Only an include the user set: its default `.*` would take every topic of the source.
  auto include = mirror.configs.find("mirror.topics.include");
  if (include == mirror.configs.end()) return out;
  // A comma-separated list (mirror_filters.h): each item is one expression.
  const std::string& list = include->second;
  size_t start = 0;
  while (start < list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    std::string item = list.substr(start, comma - start);
    if (!item.empty() && std::find(out.begin(), out.end(), item) == out.end()) {
      out.push_back(std::move(item));
    }
    start = comma + 1;
  }
  return out;
}

asio::awaitable<Status> MirrorManager::remember_topic_patterns(
    const std::string& mirror, const std::vector<std::string>& patterns) {
  MIRRA_ASSERT_OWNER(owner_);
  bool added = false;
  auto build = [&](const metadata::MetadataImage& image) -> Result<Records> {
    const metadata::MirrorInfo* m = image.mirror(mirror);
    if (m == nullptr) {
      return Status(ErrorCode::UNKNOWN_MIRROR, fmt::format("mirror '{}' does not exist", mirror));
    }
    std::vector<std::string> next = m->topic_patterns;
    for (const std::string& p : patterns) {
      if (!p.empty() && std::find(next.begin(), next.end(), p) == next.end()) next.push_back(p);
    }
    added = next.size() != m->topic_patterns.size();
    if (!added) return Records{};
    return Records{
        metadata::MirrorRecord{mirror, {m->configs.begin(), m->configs.end()}, std::move(next)}};
  };
  Status s = co_await store_.change(build);
  if (s.ok() && added) {
    MIRRA_LOG_INFO(
        "mirror {}: remembers topic pattern(s) {}: topics created on the source that "
        "match are added by its topics sync",
        mirror, fmt::join(patterns, ", "));
  }
  co_return s;
}

asio::awaitable<Status> MirrorManager::fail_topic(const std::string& mirror,
                                                  const std::string& topic, Status why) {
  MIRRA_ASSERT_OWNER(owner_);
  auto it = runners_.find(mirror);
  if (it == runners_.end()) {
    co_return Status(ErrorCode::UNKNOWN_MIRROR, fmt::format("mirror '{}' is not running", mirror));
  }
  std::shared_ptr<MirrorRunner> runner = it->second;  // alive while it writes
  co_return co_await runner->fail_for_good(topic, std::move(why));
}

}  // namespace mirra::mirror
