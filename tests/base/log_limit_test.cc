// The log rate limiter (base/log_limit.h) on a fake clock.
#include "base/log_limit.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mirra::logtest {

constexpr std::string_view kMirraLogComponent = "limittest";

class LogLimitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = log::level();
    log::set_level(log::Level::kInfo);
    log::set_sink([this](log::Level, std::string_view line) { lines_.emplace_back(line); });
  }
  void TearDown() override {
    log::set_sink(nullptr);
    log::set_level(saved_);
  }
  log::Limiter limiter(int32_t burst, int64_t refill_ms) {
    return log::Limiter("bad input", {burst, refill_ms}, [this] { return now_; });
  }
  bool has(size_t i, std::string_view text) const {
    return i < lines_.size() && lines_[i].find(text) != std::string::npos;
  }

  int64_t now_ = 1000;
  log::Level saved_{};
  std::vector<std::string> lines_;
};

TEST_F(LogLimitTest, BurstThenOnePerRefillInterval) {
  auto l = limiter(3, 1000);
  int admitted = 0;
  for (int i = 0; i < 100; ++i) admitted += l.admit().has_value();
  EXPECT_EQ(admitted, 3);
  now_ += 999;
  EXPECT_FALSE(l.admit());
  now_ += 1;
  auto a = l.admit();
  ASSERT_TRUE(a);
  EXPECT_EQ(a->suppressed, 98u);
  EXPECT_EQ(a->since_ms, 1000);
  EXPECT_FALSE(l.admit());
  // A long quiet period refills the burst, no more.
  now_ += 60000;
  admitted = 0;
  for (int i = 0; i < 10; ++i) admitted += l.admit().has_value();
  EXPECT_EQ(admitted, 3);
}

TEST_F(LogLimitTest, PartialIntervalsAreNotLost) {
  auto l = limiter(1, 1000);
  ASSERT_TRUE(l.admit());
  int admitted = 0;
  for (int i = 0; i < 40; ++i) {  // a call every 300 ms for 12 s: 12 tokens earned
    now_ += 300;
    admitted += l.admit().has_value();
  }
  EXPECT_EQ(admitted, 12);
}

TEST_F(LogLimitTest, MacroWritesOneSummaryBeforeTheNextLine) {
  auto l = limiter(2, 5000);
  for (int i = 0; i < 50; ++i) MIRRA_LOG_WARN_LIMITED(l, "closing connection {}", i);
  ASSERT_EQ(lines_.size(), 2u);
  EXPECT_TRUE(has(0, "closing connection 0"));
  EXPECT_TRUE(has(1, "closing connection 1"));
  now_ += 5000;
  MIRRA_LOG_WARN_LIMITED(l, "closing connection {}", 50);
  ASSERT_EQ(lines_.size(), 4u);
  EXPECT_TRUE(has(2, "suppressed 48 similar messages (bad input) in the last 5 s")) << lines_[2];
  EXPECT_TRUE(has(3, "closing connection 50"));
}

TEST_F(LogLimitTest, DisabledLevelCostsNoToken) {
  auto l = limiter(1, 5000);
  log::set_level(log::Level::kError);
  MIRRA_LOG_WARN_LIMITED(l, "hidden {}", 1);
  log::set_level(log::Level::kInfo);
  MIRRA_LOG_WARN_LIMITED(l, "shown {}", 2);
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_TRUE(has(0, "shown 2"));
}

}  // namespace mirra::logtest
