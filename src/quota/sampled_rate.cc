#include "quota/sampled_rate.h"

#include <algorithm>
#include <cmath>

#include "base/assert.h"

namespace mirra::quota {

SampledRate::SampledRate(WindowConfig config) : config_(config) {
  MIRRA_ASSERT(config.num >= 1 && config.size_ms >= 1, "bad quota window {}x{}ms", config.num,
               config.size_ms);
  samples_.reserve(static_cast<size_t>(config.num));
}

void SampledRate::record(double value, int64_t now_ms) {
  if (samples_.empty()) samples_.push_back({now_ms, 0});
  Sample* s = &samples_[current_];
  if (now_ms - s->start_ms >= config_.size_ms) {
    // Complete: move to the next slot of the ring, reusing the oldest once it is full.
    current_ = (current_ + 1) % static_cast<size_t>(config_.num);
    if (current_ >= samples_.size()) samples_.push_back({now_ms, 0});
    s = &samples_[current_];
    *s = Sample{now_ms, 0};
  }
  s->value += value;
}

void SampledRate::purge(int64_t now_ms) {
  const int64_t expire_age = config_.num * config_.size_ms;
  for (Sample& s : samples_) {
    if (now_ms - s.start_ms >= expire_age) s = Sample{now_ms, 0};
  }
}

int64_t SampledRate::window_ms(int64_t now_ms) {
  purge(now_ms);
  int64_t oldest = now_ms;
  for (const Sample& s : samples_) oldest = std::min(oldest, s.start_ms);
  int64_t elapsed = now_ms - oldest;
  const int64_t full_windows = elapsed / config_.size_ms;
  const int64_t min_full_windows = config_.num - 1;
  if (full_windows < min_full_windows) {
    elapsed += (min_full_windows - full_windows) * config_.size_ms;
  }
  return std::max<int64_t>(elapsed, 1);
}

double SampledRate::rate(int64_t now_ms) {
  const int64_t window = window_ms(now_ms);  // purges first, as Kafka's measure does
  double total = 0;
  for (const Sample& s : samples_) total += s.value;
  return total / (static_cast<double>(window) / 1000.0);
}

int64_t throttle_time_ms(double observed, double limit, int64_t window_ms) {
  MIRRA_ASSERT(limit > 0, "quota limit {} must be positive", limit);
  if (observed <= limit) return 0;
  return std::llround((observed - limit) / limit * static_cast<double>(window_ms));
}

TokenBucket::TokenBucket(WindowConfig config, double rate, int64_t now_ms)
    : config_(config), tokens_(0), last_ms_(now_ms) {
  tokens_ = burst(rate);
}

double TokenBucket::burst(double rate) const {
  return static_cast<double>(config_.num) * (static_cast<double>(config_.size_ms) / 1000.0) * rate;
}

void TokenBucket::refill(double rate, int64_t now_ms) {
  const double elapsed_s = static_cast<double>(std::max<int64_t>(now_ms - last_ms_, 0)) / 1000.0;
  tokens_ = std::min(burst(rate), tokens_ + rate * elapsed_s);
  last_ms_ = std::max(last_ms_, now_ms);
}

void TokenBucket::record(double value, double rate, int64_t now_ms) {
  refill(rate, now_ms);
  tokens_ = std::min(burst(rate), tokens_ - value);
}

double TokenBucket::tokens(double rate, int64_t now_ms) {
  refill(rate, now_ms);
  return tokens_;
}

int64_t TokenBucket::throttle_time_ms(double rate, int64_t now_ms) {
  MIRRA_ASSERT(rate > 0, "controller mutation rate {} must be positive", rate);
  const double t = tokens(rate, now_ms);
  if (t >= 0) return 0;
  return std::llround(-t / rate * 1000.0);
}

}  // namespace mirra::quota
