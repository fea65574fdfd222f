#include "base/clock.h"

#include <gtest/gtest.h>

namespace mirra {
namespace {

TEST(Clock, WallClockIsAfter2024) {
  EXPECT_GT(now_ms(), int64_t{1704067200000});  // 2024-01-01T00:00:00Z
}

TEST(Clock, SteadyNeverGoesBackwards) {
  int64_t last = steady_ms();
  for (int i = 0; i < 1000; ++i) {
    const int64_t t = steady_ms();
    EXPECT_GE(t, last);
    last = t;
  }
  EXPECT_GE(steady_us() / 1000, last);
}

}  // namespace
}  // namespace mirra
