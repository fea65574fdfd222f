#include "base/log.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <thread>
#include <vector>

namespace mirra::logtest {

constexpr std::string_view kMirraLogComponent = "logtest";

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = log::level();
    log::set_sink([this](log::Level l, std::string_view line) {
      levels_.push_back(l);
      lines_.emplace_back(line);
    });
  }
  void TearDown() override {
    log::set_sink(nullptr);
    log::set_level(saved_);
  }

  log::Level saved_{};
  std::vector<log::Level> levels_;
  std::vector<std::string> lines_;
};

TEST_F(LogTest, LineFormat) {
  log::set_level(log::Level::kInfo);
  MIRRA_LOG_INFO("opened {} at {}", "seg", 42);
  ASSERT_EQ(lines_.size(), 1u);
  // "dddd-dd-ddTdd:dd:dd.dddZ" then the rest (no <regex>: g++ 12 warns inside it under ASan).
  const std::string_view shape = "dddd-dd-ddTdd:dd:dd.dddZ";
  const std::string& line = lines_[0];
  ASSERT_GT(line.size(), shape.size()) << line;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 'd') {
      EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(line[i]))) << line;
    } else {
      EXPECT_EQ(line[i], shape[i]) << line;
    }
  }
  EXPECT_EQ(line.substr(shape.size()), " INFO [logtest] opened seg at 42");
  EXPECT_EQ(levels_[0], log::Level::kInfo);
}

TEST_F(LogTest, ExplicitComponent) {
  log::set_level(log::Level::kTrace);
  MIRRA_CLOG_WARN("storage", "fsync took {} ms", 12);
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_NE(lines_[0].find(" WARN [storage] fsync took 12 ms"), std::string::npos) << lines_[0];
}

TEST_F(LogTest, LevelFiltering) {
  log::set_level(log::Level::kWarn);
  MIRRA_LOG_TRACE("t");
  MIRRA_LOG_DEBUG("d");
  MIRRA_LOG_INFO("i");
  MIRRA_LOG_WARN("w");
  MIRRA_LOG_ERROR("e");
  ASSERT_EQ(lines_.size(), 2u);
  EXPECT_EQ(levels_[0], log::Level::kWarn);
  EXPECT_EQ(levels_[1], log::Level::kError);

  lines_.clear();
  log::set_level(log::Level::kTrace);
  MIRRA_LOG_TRACE("t");
  MIRRA_LOG_DEBUG("d");
  EXPECT_EQ(lines_.size(), 2u);

  lines_.clear();
  log::set_level(log::Level::kOff);
  MIRRA_LOG_ERROR("e");
  EXPECT_TRUE(lines_.empty());
}

TEST_F(LogTest, ArgumentsNotEvaluatedWhenDisabled) {
  log::set_level(log::Level::kError);
  int calls = 0;
  auto expensive = [&] { return ++calls; };
  MIRRA_LOG_DEBUG("value {}", expensive());
  EXPECT_EQ(calls, 0);
  MIRRA_LOG_ERROR("value {}", expensive());
  EXPECT_EQ(calls, 1);
}

TEST_F(LogTest, ConcurrentWritersProduceWholeLines) {
  log::set_level(log::Level::kInfo);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 200; ++i) MIRRA_LOG_INFO("thread {} line {}", t, i);
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(lines_.size(), 800u);
  for (const auto& line : lines_) EXPECT_NE(line.find("[logtest] thread "), std::string::npos);
}

TEST(LogLevels, ParseAndName) {
  EXPECT_EQ(log::parse_level("INFO"), log::Level::kInfo);
  EXPECT_EQ(log::parse_level("warning"), log::Level::kWarn);
  EXPECT_EQ(log::parse_level("Trace"), log::Level::kTrace);
  EXPECT_EQ(log::parse_level("off"), log::Level::kOff);
  EXPECT_FALSE(log::parse_level("verbose").has_value());
  EXPECT_EQ(log::level_name(log::Level::kError), "ERROR");
  EXPECT_EQ(log::level_name(log::Level::kDebug), "DEBUG");
}

TEST(LogTimestamp, Format) {
  fmt::memory_buffer buf;
  log::format_timestamp(buf, 1796104800123);  // 2026-12-01T06:00:00.123Z
  EXPECT_EQ(std::string(buf.data(), buf.size()), "2026-12-01T06:00:00.123Z");
  buf.clear();
  log::format_timestamp(buf, 0);
  EXPECT_EQ(std::string(buf.data(), buf.size()), "1970-01-01T00:00:00.000Z");
}

}  // namespace mirra::logtest

// The global default component.
TEST(LogDefaultComponent, IsMirra) {
  std::vector<std::string> lines;
  const auto saved = mirra::log::level();
  mirra::log::set_level(mirra::log::Level::kInfo);
  mirra::log::set_sink([&](mirra::log::Level, std::string_view line) { lines.emplace_back(line); });
  MIRRA_LOG_INFO("hello");
  mirra::log::set_sink(nullptr);
  mirra::log::set_level(saved);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find(" INFO [mirra] hello"), std::string::npos) << lines[0];
}
