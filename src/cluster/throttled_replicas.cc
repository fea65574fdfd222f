#include "cluster/throttled_replicas.h"

#include <fmt/format.h>

#include <charconv>
#include <optional>

#include "base/text.h"

namespace mirra::cluster {
namespace {

std::optional<int32_t> whole_number(std::string_view s) {
  s = trim(s);
  int32_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

}  // namespace

Result<ThrottledReplicas> parse_throttled_replicas(std::string_view key, std::string_view value,
                                                   int32_t node_id) {
  ThrottledReplicas out;
  if (trim(value) == "*") {
    out.all = true;
    return out;
  }
  for (const std::string& entry : split_list(value)) {
    const size_t colon = entry.find(':');
    const std::string_view e(entry);
    auto partition = whole_number(e.substr(0, colon));
    auto broker = colon == std::string::npos ? std::nullopt : whole_number(e.substr(colon + 1));
    if (!partition || !broker) {
      return Status(
          ErrorCode::INVALID_CONFIG,
          fmt::format("{}: '{}' is not partition:broker (or the whole value *)", key, entry));
    }
    if (*broker == node_id) out.partitions.insert(*partition);
  }
  return out;
}

}  // namespace mirra::cluster
