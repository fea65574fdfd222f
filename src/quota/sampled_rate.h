// Kafka's quota measurements with the time passed in: the windowed rate of the client quotas
// (org.apache.kafka.common.metrics.stats.Rate over a SampledTotal), the throttle time derived
// from it, and the token bucket of controller_mutation_rate (KIP-599).
//
// Threading: none inside; each object belongs to whoever owns its sensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mirra::quota {

// quota.window.num samples of quota.window.size.seconds (as milliseconds). Kafka's defaults.
struct WindowConfig {
  int num = 11;
  int64_t size_ms = 1000;
};

// The sum of recent values divided by the time they cover, per second. Values land in the
// current sample; a sample older than one window is complete and the next one starts at the
// recording time; samples that started num windows ago or more are expired (emptied).
class SampledRate {
 public:
  explicit SampledRate(WindowConfig config);

  void record(double value, int64_t now_ms);
  // Takes back a recorded value (a throttled fetch returns no records, so its bytes must not
  // count): Kafka records the negative value.
  void unrecord(double value, int64_t now_ms) { record(-value, now_ms); }

  // Units per second at `now_ms`.
  double rate(int64_t now_ms);
  // The time the rate divides by: from the start of the oldest live sample to now, padded to
  // (num - 1) full windows so that a new client's first bytes do not read as a huge burst; at
  // least 1 ms.
  int64_t window_ms(int64_t now_ms);

 private:
  struct Sample {
    int64_t start_ms = 0;
    double value = 0;
  };
  void purge(int64_t now_ms);

  WindowConfig config_;
  std::vector<Sample> samples_;  // a ring of at most config_.num samples
  size_t current_ = 0;
};

// The delay that brings `observed` back down to `limit` if nothing more is recorded, Kafka's
// QuotaUtils.throttleTime: (observed - limit) / limit * window_ms, rounded, never negative.
// `window_ms` is the rate's own window (SampledRate::window_ms).
int64_t throttle_time_ms(double observed, double limit, int64_t window_ms);

// A bucket of `rate` tokens per second holding at most num * window seconds' worth (the burst).
// Recording takes tokens and may drive the count below zero; the throttle time is how long the
// refill takes to bring it back to zero: -tokens / rate * 1000. The rate is passed on every
// call because a quota can change under a live bucket. A new bucket is full.
class TokenBucket {
 public:
  TokenBucket(WindowConfig config, double rate, int64_t now_ms);

  void record(double value, double rate, int64_t now_ms);
  double tokens(double rate, int64_t now_ms);
  // 0 while tokens >= 0.
  int64_t throttle_time_ms(double rate, int64_t now_ms);

 private:
  double burst(double rate) const;
  void refill(double rate, int64_t now_ms);

  WindowConfig config_;
  double tokens_;
  int64_t last_ms_;
};

}  // namespace mirra::quota
