// `mirra mirror --describe --watch`'s frames (cli/mirror_watch.h): the header line, the table
// describe_text() prints, the errors shown in place of (or above) it, the screen cleared on a
// terminal and a blank line between frames elsewhere.
#include "cli/mirror_watch.h"

#include <gtest/gtest.h>

#include "cli/mirror_describe_format.h"

namespace mirra::cli {
namespace {

constexpr int64_t kNow = 1'796'457'628'123;  // 2026-12-05T08:00:28.123Z

client::MirrorDescription mirror_named(const std::string& name) {
  client::MirrorDescription m;
  m.name = name;
  auto& t = m.topics.emplace_back();
  t.name = "orders";
  client::MirrorPartitionDescription p;
  p.partition = 0;
  p.state = 1;  // MIRRORING
  p.source_high_watermark = 42;
  t.partitions.push_back(p);
  return m;
}

WatchSettings piped() { return {"dest:9092", 1000, false}; }

TEST(MirrorWatch, IntervalText) {
  EXPECT_EQ(interval_text(1000), "1s");
  EXPECT_EQ(interval_text(500), "0.5s");
  EXPECT_EQ(interval_text(2500), "2.5s");
  EXPECT_EQ(interval_text(60'000), "60s");
}

TEST(MirrorWatch, HeaderHasTimeBrokerAndInterval) {
  EXPECT_EQ(watch_header(piped(), kNow),
            "2026-12-05T08:00:28.123Z  dest:9092  every 1s, Ctrl-C to quit\n");
  EXPECT_EQ(watch_header({"a:1,b:2", 250, true}, kNow),
            "2026-12-05T08:00:28.123Z  a:1,b:2  every 0.25s, Ctrl-C to quit\n");
}

TEST(MirrorWatch, FrameIsHeaderBlankLineAndTheDescribeTable) {
  const std::vector<client::MirrorDescription> mirrors{mirror_named("dr")};
  const std::string frame = render_frame(piped(), mirrors, kNow, true);
  EXPECT_EQ(frame, watch_header(piped(), kNow) + "\n" + describe_text(mirrors, kNow));
  EXPECT_NE(frame.find("orders"), std::string::npos);
  EXPECT_EQ(frame.find('\x1b'), std::string::npos);  // no escape off a terminal
}

TEST(MirrorWatch, PipedFramesAreSeparatedByABlankLine) {
  const std::vector<client::MirrorDescription> mirrors{mirror_named("dr")};
  const std::string first = render_frame(piped(), mirrors, kNow, true);
  const std::string second = render_frame(piped(), mirrors, kNow + 1000, false);
  EXPECT_EQ(second, "\n" + render_frame(piped(), mirrors, kNow + 1000, true));
  EXPECT_EQ(first.back(), '\n');  // so the blank line is a line of its own
}

TEST(MirrorWatch, TerminalFramesClearTheScreenFirst) {
  const WatchSettings tty{"dest:9092", 1000, true};
  const std::vector<client::MirrorDescription> mirrors{mirror_named("dr")};
  for (bool first : {true, false}) {
    const std::string frame = render_frame(tty, mirrors, kNow, first);
    EXPECT_EQ(frame.substr(0, kClearScreen.size()), kClearScreen);
    EXPECT_EQ(frame.substr(kClearScreen.size()), render_frame(piped(), mirrors, kNow, true));
  }
}

TEST(MirrorWatch, ACallErrorIsTheFrame) {
  const Result<std::vector<client::MirrorDescription>> failed =
      Status(ErrorCode::NETWORK_EXCEPTION, "cannot connect to dest:9092");
  EXPECT_EQ(watch_body(failed, kNow), "error: cannot connect to dest:9092\n");
  EXPECT_EQ(render_frame(piped(), failed, kNow, true),
            watch_header(piped(), kNow) + "\nerror: cannot connect to dest:9092\n");
}

TEST(MirrorWatch, AMirrorsErrorGoesAboveTheOthersTable) {
  client::MirrorDescription unknown;
  unknown.name = "nope";
  unknown.status = Status(ErrorCode::UNKNOWN_MIRROR, "mirror 'nope' does not exist");
  EXPECT_EQ(watch_body(std::vector<client::MirrorDescription>{unknown}, kNow),
            "error: mirror 'nope' does not exist\n");  // no empty table under it
  const std::vector<client::MirrorDescription> both{unknown, mirror_named("dr")};
  EXPECT_EQ(watch_body(both, kNow),
            "error: mirror 'nope' does not exist\n" + describe_text({mirror_named("dr")}, kNow));
}

TEST(MirrorWatch, NoMirrorIsTheEmptyTable) {
  EXPECT_EQ(watch_body(std::vector<client::MirrorDescription>{}, kNow), describe_text({}, kNow));
}

}  // namespace
}  // namespace mirra::cli
