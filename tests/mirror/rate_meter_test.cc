#include "mirror/rate_meter.h"

#include <gtest/gtest.h>

namespace mirra::mirror {
namespace {

TEST(RateMeter, MeanOverTheWholeSecondsBeforeThisOne) {
  RateMeter m;
  EXPECT_EQ(m.per_second(100'000), 0);
  for (int64_t s = 100; s < 105; ++s) m.add(1000, s * 1000 + 500);  // 1000 a second
  m.add(7777, 105'200);  // the current second: not counted yet
  EXPECT_EQ(m.per_second(105'900), 1000);
  EXPECT_EQ(m.per_second(106'000), (4 * 1000 + 7777) / 5);
}

TEST(RateMeter, QuietSecondsCountAsNothing) {
  RateMeter m;
  m.add(5000, 10'000);
  EXPECT_EQ(m.per_second(11'000), 1000);  // 5000 over a 5-second window
  EXPECT_EQ(m.per_second(15'999), 1000);
  EXPECT_EQ(m.per_second(16'000), 0);  // slid out of the window
  m.add(500, 40'000);                  // long after: the old buckets are cleared
  EXPECT_EQ(m.per_second(41'000), 100);
  m.add(10, 41'000);
  m.add(10, 41'999);
  EXPECT_EQ(m.per_second(42'000), (500 + 20) / 5);
}

}  // namespace
}  // namespace mirra::mirror
