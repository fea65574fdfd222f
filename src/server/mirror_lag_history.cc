#include "server/mirror_lag_history.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "base/assert.h"
#include "base/json.h"

namespace mirra::server {

void MirrorLagHistory::add(int64_t now_ms, const std::vector<MirrorSample>& mirrors,
                           const std::vector<MirrorPartitionSample>& partitions) {
  std::map<std::string, LagPoint> points;
  for (const MirrorSample& m : mirrors) points[m.name] = {now_ms, 0, -1, m.loss_records};
  for (const MirrorPartitionSample& p : partitions) {
    auto it = points.find(p.mirror);
    MIRRA_ASSERT(it != points.end(), "a mirror partition's mirror is in the same sample");
    if (p.lag >= 0) it->second.lag += p.lag;
    it->second.lag_ms = std::max(it->second.lag_ms, p.lag_ms);
  }
  std::erase_if(series_, [&](const auto& s) { return !points.contains(s.first); });
  for (auto& [name, point] : points) {
    std::deque<LagPoint>& s = series_[name];
    // A clock stepped back starts the series afresh rather than break its order.
    if (!s.empty() && s.back().time_ms > point.time_ms) s.clear();
    s.push_back(point);
    if (s.size() > kPoints) s.pop_front();
  }
}

std::string MirrorLagHistory::json() const {
  std::vector<std::string> mirrors;
  for (const auto& [name, points] : series_) {
    std::vector<std::string> rows;
    rows.reserve(points.size());
    for (const LagPoint& p : points) {
      rows.push_back(fmt::format(R"({{"timeMs":{},"lag":{},"lagMs":{},"lossRecords":{}}})",
                                 p.time_ms, p.lag, p.lag_ms, p.loss_records));
    }
    mirrors.push_back(
        fmt::format(R"({{"mirror":{},"points":[{}]}})", json_string(name), fmt::join(rows, ",")));
  }
  return fmt::format(R"({{"intervalMs":{},"mirrors":[{}]}})", kIntervalMs, fmt::join(mirrors, ","));
}

}  // namespace mirra::server
