// MirrorLagHistory: each mirror's lag over the last minutes, sampled by the broker itself once a
// second, so that the web console draws its chart without Prometheus (docs/observability.md
// "Web console"). A point per mirror and sample: the lag in records summed over its partitions
// (those with a known lag), the largest lag in ms, and what a failover would lose then.
//
// Invariants: a mirror's points are in time order and at most kPoints; a mirror that is gone
// from a sample loses its history (a mirror made again with the same name starts afresh).
//
// Threading: not synchronised; the broker keeps it on the core thread and hands copies to the
// HTTP thread.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "server/broker_metrics.h"

namespace mirra::server {

struct LagPoint {
  int64_t time_ms = 0;       // wall clock
  int64_t lag = 0;           // records
  int64_t lag_ms = -1;       // -1 when no partition's lag in time is known
  int64_t loss_records = 0;  // MirrorSample::loss_records
};

class MirrorLagHistory {
 public:
  static constexpr int64_t kIntervalMs = 1000;
  static constexpr size_t kPoints = 600;  // 10 minutes

  // One sample of every mirror (collect_mirrors()' output) at wall-clock `now_ms`.
  void add(int64_t now_ms, const std::vector<MirrorSample>& mirrors,
           const std::vector<MirrorPartitionSample>& partitions);

  const std::map<std::string, std::deque<LagPoint>>& series() const { return series_; }

  // {"intervalMs":1000,"mirrors":[{"mirror":"dr","points":[{"timeMs":..,"lag":..,"lagMs":..,
  //  "lossRecords":..}, ...]}]} (/v1/history).
  std::string json() const;

 private:
  std::map<std::string, std::deque<LagPoint>> series_;
};

}  // namespace mirra::server
