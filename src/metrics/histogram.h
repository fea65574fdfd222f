// Histogram: counts of observations (seconds) in fixed buckets, with their sum, as a Prometheus
// histogram reports them. The bounds are fixed at compile time so that recording is a few
// comparisons and an increment, cheap enough for every request on the broker's core thread.
//
// Threading: not synchronised; one owner thread records, and copies are taken on that thread.
#pragma once

#include <array>
#include <cstdint>

namespace mirra::metrics {

class Histogram {
 public:
  // Upper bounds in seconds, from 100 µs to 10 s in steps of about 2.5x: request latencies
  // on loopback and mirror fetch round trips across a WAN both land inside.
  static constexpr std::array<double, 12> kBounds = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                                     0.01,   0.025,   0.05,   0.1,   1.0,    10.0};

  void observe(double seconds);

  // Observations at or below kBounds[i] and above kBounds[i - 1] (not cumulative); the last
  // entry holds those above every bound.
  const std::array<uint64_t, kBounds.size() + 1>& counts() const { return counts_; }
  uint64_t count() const { return count_; }
  double sum() const { return sum_; }

 private:
  std::array<uint64_t, kBounds.size() + 1> counts_{};
  uint64_t count_ = 0;
  double sum_ = 0;
};

}  // namespace mirra::metrics
