// `mirra mirror --describe --watch` (docs/mirroring.md "Watch it"): the describe table redrawn
// every --interval-ms, like top(1), until SIGINT or SIGTERM, which end it with exit code 0.
//
// A frame is a header line (the time, the broker, "every 1s, Ctrl-C to quit"), a blank line and
// what `mirra mirror --describe` prints (describe_text). On a terminal each frame first moves
// the cursor home and clears the screen, and the cursor is hidden while watching; elsewhere
// (a pipe, a file) the frames follow one another, a blank line between two.
//
// A failed describe (the broker down, an unknown --mirror) is the frame's content, as
// "error: ..." lines, and watching goes on: the broker may come back, the mirror be created.
// render_frame() is pure (tests/cli/mirror_watch_test.cc); watch_mirrors() is the loop.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "client/sync_client.h"
#include "client/types.h"

namespace mirra::cli {

inline constexpr std::string_view kClearScreen = "\x1b[H\x1b[2J";  // cursor home, clear
inline constexpr std::string_view kHideCursor = "\x1b[?25l";
inline constexpr std::string_view kShowCursor = "\x1b[?25h";

inline constexpr int64_t kMaxWatchIntervalMs = 86'400'000;  // a day

struct WatchSettings {
  std::string broker;  // as given to --bootstrap-server
  int64_t interval_ms = 1000;
  bool terminal = false;  // stdout is a terminal: clear the screen before each frame
};

// "1s", "0.5s", "2.5s".
std::string interval_text(int64_t interval_ms);

// "2026-12-05T08:00:28.123Z  localhost:9092  every 1s, Ctrl-C to quit".
std::string watch_header(const WatchSettings& s, int64_t now_ms);

// The describe table at `now_ms`, or "error: ..." lines: the call's error, or each mirror's
// (e.g. an unknown --mirror) above the table of the others.
std::string watch_body(const Result<std::vector<client::MirrorDescription>>& described,
                       int64_t now_ms);

// One whole frame as written to stdout, `first` for the first one.
std::string render_frame(const WatchSettings& s,
                         const Result<std::vector<client::MirrorDescription>>& described,
                         int64_t now_ms, bool first);

// Describes `names` (every mirror when unset) every s.interval_ms and writes the frames to
// stdout until SIGINT or SIGTERM (0), or until stdout cannot be written (1).
int watch_mirrors(client::SyncClient& c, std::optional<std::vector<std::string>> names,
                  const WatchSettings& s);

}  // namespace mirra::cli
