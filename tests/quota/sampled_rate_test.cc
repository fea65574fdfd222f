// quota/sampled_rate.h against values computed by hand with Kafka's defaults (11 samples of one
// second): the padding of a new client's window, expiry, unrecord, the throttle formula and the
// token bucket.
#include <gtest/gtest.h>

#include "quota/sampled_rate.h"

namespace mirra::quota {
namespace {

TEST(SampledRate, ANewClientsWindowIsPaddedToTenSeconds) {
  SampledRate r({11, 1000});
  r.record(1000, 5'000);
  // Elapsed 0 ms is padded to (11 - 1) windows: 1000 bytes over 10 s, not over 1 ms.
  EXPECT_EQ(r.window_ms(5'000), 10'000);
  EXPECT_DOUBLE_EQ(r.rate(5'000), 100.0);
  // 2.5 s later: two full windows elapsed, padded by eight more.
  EXPECT_EQ(r.window_ms(7'500), 10'500);
  EXPECT_DOUBLE_EQ(r.rate(7'500), 1000.0 / 10.5);
}

TEST(SampledRate, SteadyRecordingFillsTheWindowsWithoutPadding) {
  SampledRate r({11, 1000});
  for (int64_t t = 0; t <= 10'000; t += 1000) r.record(1000, t);
  // 11 samples, the oldest started 10 s ago: 11000 bytes over 10 s.
  EXPECT_EQ(r.window_ms(10'000), 10'000);
  EXPECT_DOUBLE_EQ(r.rate(10'000), 1100.0);
  // The next recording reuses the oldest slot: the sample of t=0 is gone.
  r.record(1000, 11'000);
  EXPECT_EQ(r.window_ms(11'000), 10'000);
  EXPECT_DOUBLE_EQ(r.rate(11'000), 1100.0);
}

TEST(SampledRate, ValuesInOneWindowShareASample) {
  SampledRate r({3, 1000});
  r.record(100, 0);
  r.record(100, 999);   // same sample
  r.record(100, 1000);  // a new one
  // Oldest starts at 0, 1 full window elapsed at 1000, padded to 2.
  EXPECT_EQ(r.window_ms(1000), 2000);
  EXPECT_DOUBLE_EQ(r.rate(1000), 150.0);
}

TEST(SampledRate, ExpiredSamplesNoLongerCount) {
  SampledRate r({11, 1000});
  r.record(5000, 0);
  EXPECT_GT(r.rate(10'999), 0.0);
  // 11 windows after it started, the sample is expired.
  EXPECT_DOUBLE_EQ(r.rate(11'000), 0.0);
}

TEST(SampledRate, UnrecordTakesAValueBack) {
  SampledRate r({11, 1000});
  r.record(1000, 0);
  r.record(4000, 1000);
  // One full window elapsed, padded by nine: 5000 bytes over 10 s.
  EXPECT_DOUBLE_EQ(r.rate(1000), 500.0);
  r.unrecord(4000, 1000);
  EXPECT_DOUBLE_EQ(r.rate(1000), 100.0);
}

TEST(ThrottleTime, KafkasFormulaRoundedAndNeverNegative) {
  // (200 - 100) / 100 * 10000
  EXPECT_EQ(throttle_time_ms(200, 100, 10'000), 10'000);
  // (150 - 100) / 100 * 10000
  EXPECT_EQ(throttle_time_ms(150, 100, 10'000), 5'000);
  // 0.5 * 1001 = 500.5 rounds half up, as Java's Math.round.
  EXPECT_EQ(throttle_time_ms(150, 100, 1001), 501);
  // (1.0001 - 1) / 1 * 1000 = 0.1 rounds to 0.
  EXPECT_EQ(throttle_time_ms(1.0001, 1, 1000), 0);
  EXPECT_EQ(throttle_time_ms(100, 100, 10'000), 0);
  EXPECT_EQ(throttle_time_ms(50, 100, 10'000), 0);
}

TEST(ThrottleTime, FromARecordedBurst) {
  // A new client sends 2000 bytes against 100 B/s: the padded rate is 200 B/s, so it waits
  // (200 - 100) / 100 * 10 s.
  SampledRate r({11, 1000});
  r.record(2000, 0);
  EXPECT_EQ(throttle_time_ms(r.rate(0), 100, r.window_ms(0)), 10'000);
}

TEST(TokenBucket, StartsFullTakesTokensAndRefills) {
  // 2 tokens/s, burst 11 * 1 s * 2 = 22.
  TokenBucket b({11, 1000}, 2, 0);
  EXPECT_DOUBLE_EQ(b.tokens(2, 0), 22);
  b.record(30, 2, 0);
  EXPECT_DOUBLE_EQ(b.tokens(2, 0), -8);
  // -(-8) / 2 * 1000
  EXPECT_EQ(b.throttle_time_ms(2, 0), 4000);
  EXPECT_EQ(b.throttle_time_ms(2, 1000), 3000);
  EXPECT_EQ(b.throttle_time_ms(2, 4000), 0);
  // Refill stops at the burst.
  EXPECT_DOUBLE_EQ(b.tokens(2, 100'000), 22);
  // A lowered rate lowers the burst at once.
  EXPECT_DOUBLE_EQ(b.tokens(1, 100'000), 11);
}

}  // namespace
}  // namespace mirra::quota
