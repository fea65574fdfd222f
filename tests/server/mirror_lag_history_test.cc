// MirrorLagHistory (server/mirror_lag_history.h): the console's chart data. Points are summed
// per mirror, bounded, in time order, and a mirror that is gone loses its history.
#include "server/mirror_lag_history.h"

#include <gtest/gtest.h>

namespace mirra::server {
namespace {

MirrorSample mirror(const std::string& name, int64_t loss) {
  MirrorSample m;
  m.name = name;
  m.loss_records = loss;
  return m;
}

MirrorPartitionSample partition(const std::string& mirror, int64_t lag, int64_t lag_ms) {
  MirrorPartitionSample p;
  p.mirror = mirror;
  p.lag = lag;
  p.lag_ms = lag_ms;
  return p;
}

TEST(MirrorLagHistory, SumsLagTakesLargestLagMsAndSkipsUnknown) {
  MirrorLagHistory h;
  h.add(1000, {mirror("dr", 7), mirror("idle", 0)},
        {partition("dr", 5, 200), partition("dr", -1, -1), partition("dr", 3, 900)});
  const LagPoint& dr = h.series().at("dr").back();
  EXPECT_EQ(dr.time_ms, 1000);
  EXPECT_EQ(dr.lag, 8);
  EXPECT_EQ(dr.lag_ms, 900);
  EXPECT_EQ(dr.loss_records, 7);
  const LagPoint& idle = h.series().at("idle").back();
  EXPECT_EQ(idle.lag, 0);
  EXPECT_EQ(idle.lag_ms, -1);  // no partition: no lag in time known
}

TEST(MirrorLagHistory, KeepsTheLastPointsOnly) {
  MirrorLagHistory h;
  const int64_t n = static_cast<int64_t>(MirrorLagHistory::kPoints) + 5;
  for (int64_t i = 0; i < n; ++i) h.add(i * 1000, {mirror("dr", 0)}, {partition("dr", i, 0)});
  const auto& points = h.series().at("dr");
  ASSERT_EQ(points.size(), MirrorLagHistory::kPoints);
  EXPECT_EQ(points.front().lag, 5);
  EXPECT_EQ(points.back().lag, n - 1);
}

TEST(MirrorLagHistory, ForgetsGoneMirrorsAndRestartsOnAClockStepBack) {
  MirrorLagHistory h;
  h.add(5000, {mirror("a", 0), mirror("b", 0)}, {});
  h.add(6000, {mirror("a", 0)}, {});
  EXPECT_FALSE(h.series().contains("b"));
  EXPECT_EQ(h.series().at("a").size(), 2u);
  h.add(4000, {mirror("a", 0)}, {});
  ASSERT_EQ(h.series().at("a").size(), 1u);
  EXPECT_EQ(h.series().at("a").back().time_ms, 4000);
}

TEST(MirrorLagHistory, Json) {
  MirrorLagHistory h;
  EXPECT_EQ(h.json(), R"({"intervalMs":1000,"mirrors":[]})");
  h.add(1000, {mirror("d\"r", 2)}, {partition("d\"r", 2, 30)});
  EXPECT_EQ(h.json(), R"({"intervalMs":1000,"mirrors":[{"mirror":"d\"r","points":[)"
                      R"({"timeMs":1000,"lag":2,"lagMs":30,"lossRecords":2}]}]})");
}

}  // namespace
}  // namespace mirra::server
