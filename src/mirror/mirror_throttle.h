// The destination's cap on mirror fetch traffic (docs/mirroring-design.md §10, docs/quotas.md):
// the broker config mirror.replication.throttled.rate (bytes per second, dynamic) limits the
// record bytes every mirror of this broker fetches for the partitions its topic's
// mirror.replication.throttled.replicas lists. While the cap is exceeded those partitions are
// left out of fetches; the others are not held back.
//
// The rate is kept by a token bucket holding one second of the limit, not by Kafka's windowed
// average: the average over eleven one-second samples lets ten seconds' worth through at once
// when a catch-up starts and again each time old samples expire, while a bucket keeps a long
// catch-up at the configured rate after a first second's burst. The limit is read on every
// call, so a change holds at once.
//
// Threading: the core thread, shared by every runner of the broker.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "base/status.h"
#include "cluster/throttled_replicas.h"
#include "quota/sampled_rate.h"

namespace mirra::mirror {

using cluster::kMirrorThrottledReplicasKey;
using cluster::parse_throttled_replicas;
using cluster::ThrottledReplicas;

// The default of mirror.replication.throttled.rate: no cap (Kafka's Long.MAX_VALUE).
inline constexpr int64_t kUnthrottledRate = INT64_MAX;
inline constexpr std::string_view kMirrorThrottledRateKey = "mirror.replication.throttled.rate";

class MirrorThrottle {
 public:
  // `limit`: the rate in force now (bytes per second; kUnthrottledRate for none).
  explicit MirrorThrottle(std::function<int64_t()> limit);

  int64_t limit() const { return limit_(); }
  // True while throttled partitions must be left out of fetches.
  bool exceeded(int64_t now_ms);
  // Record bytes fetched for throttled partitions.
  void record(int64_t bytes, int64_t now_ms);
  // How long until exceeded() turns false if nothing more is fetched (0 when it is false).
  int64_t wait_ms(int64_t now_ms);

 private:
  std::function<int64_t()> limit_;
  std::optional<quota::TokenBucket> bucket_;  // made on the first record under a limit
};

// Checks a value of mirror.replication.throttled.rate: a whole number >= 0.
Result<int64_t> parse_throttled_rate(std::string_view value);

}  // namespace mirra::mirror
