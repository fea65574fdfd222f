// RateMeter: an amount per second over the last few whole seconds (docs/mirroring-design.md §12:
// the bytes and records a partition mirrors per second, for DescribeMirrors). One-second buckets in
// a ring: an add is a few instructions, so it can run on every append. The current, partial
// second is left out so that the figure does not jump within a second.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

namespace mirra::mirror {

class RateMeter {
 public:
  static constexpr int64_t kSeconds = 5;  // the window

  void add(int64_t amount, int64_t now_ms) {
    const int64_t second = now_ms / 1000;
    if (second > latest_) {
      // Clear the buckets of the seconds skipped since the last add (the ring's whole length
      // at most): they saw nothing.
      for (int64_t s = std::max(latest_ + 1, second - kRing + 1); s <= second; ++s) {
        buckets_[s % kRing] = 0;
      }
      latest_ = second;
    }
    if (second > latest_ - kRing) buckets_[second % kRing] += amount;
  }

  // The mean per second over the kSeconds whole seconds before the current one.
  int64_t per_second(int64_t now_ms) const {
    const int64_t second = now_ms / 1000;
    int64_t sum = 0;
    for (int64_t s = second - kSeconds; s < second; ++s) {
      if (s <= latest_ && s > latest_ - kRing && s >= 0) sum += buckets_[s % kRing];
    }
    return sum / kSeconds;
  }

 private:
  static constexpr int64_t kRing = kSeconds + 1;  // the window and the current second
  std::array<int64_t, kRing> buckets_{};
  int64_t latest_ = -1;  // the newest second a bucket holds
};

}  // namespace mirra::mirror
