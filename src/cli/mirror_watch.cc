// `mirra mirror --describe --watch` (mirror_watch.h).
#include "cli/mirror_watch.h"

#include <asio/experimental/awaitable_operators.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <iterator>
#include <variant>

#include <fmt/format.h>

#include "base/asio.h"
#include "base/clock.h"
#include "base/log.h"
#include "cli/mirror_describe_format.h"

namespace mirra::cli {
namespace {

// Writes `text` to stdout now; false once stdout cannot be written (e.g. a closed pipe).
bool put(std::string_view text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  return std::fflush(stdout) == 0 && std::ferror(stdout) == 0;
}

// The frames, one every s.interval_ms (from the start of one describe to the start of the
// next), until stdout fails (1). The signals end it from outside (watch_mirrors).
asio::awaitable<int> frames(client::Client& c, std::optional<std::vector<std::string>> names,
                            const WatchSettings& s) {
  asio::steady_timer next(co_await asio::this_coro::executor);
  for (bool first = true;; first = false) {
    next.expires_after(std::chrono::milliseconds(s.interval_ms));
    auto described = co_await c.describe_mirrors(names);
    if (!put(render_frame(s, described, now_ms(), first))) co_return 1;
    co_await next.async_wait(asio::use_awaitable);
  }
}

// On a terminal, the cursor is hidden while this lives and shown again after.
class HiddenCursor {
 public:
  explicit HiddenCursor(bool terminal) : terminal_(terminal) {
    if (terminal_) put(kHideCursor);
  }
  ~HiddenCursor() {
    if (terminal_) put(kShowCursor);
  }
  HiddenCursor(const HiddenCursor&) = delete;
  HiddenCursor& operator=(const HiddenCursor&) = delete;

 private:
  bool terminal_;
};

}  // namespace

std::string interval_text(int64_t interval_ms) {
  return fmt::format("{:g}s", static_cast<double>(interval_ms) / 1000.0);
}

std::string watch_header(const WatchSettings& s, int64_t now_ms) {
  fmt::memory_buffer time;
  log::format_timestamp(time, now_ms);  // as the broker's log lines show it
  return fmt::format("{}  {}  every {}, Ctrl-C to quit\n", fmt::to_string(time), s.broker,
                     interval_text(s.interval_ms));
}

std::string watch_body(const Result<std::vector<client::MirrorDescription>>& described,
                       int64_t now_ms) {
  if (!described.ok()) return fmt::format("error: {}\n", described.status().message());
  std::string errors;
  std::vector<client::MirrorDescription> found;
  for (const client::MirrorDescription& m : described.value()) {
    if (m.status.ok()) {
      found.push_back(m);
    } else {
      errors += fmt::format("error: {}\n", m.status.message());
    }
  }
  if (!errors.empty() && found.empty()) return errors;
  return errors + describe_text(found, now_ms);
}

std::string render_frame(const WatchSettings& s,
                         const Result<std::vector<client::MirrorDescription>>& described,
                         int64_t now_ms, bool first) {
  std::string_view before = s.terminal ? kClearScreen : first ? "" : "\n";
  return fmt::format("{}{}\n{}", before, watch_header(s, now_ms), watch_body(described, now_ms));
}

int watch_mirrors(client::SyncClient& c, std::optional<std::vector<std::string>> names,
                  const WatchSettings& s) {
  using namespace asio::experimental::awaitable_operators;
  // As `mirra server` stops (server/run.cc): the signals are waited for on the io_context.
  // Whichever ends first cancels the other, so a signal also cuts a describe short.
  asio::signal_set signals(c.io_context(), SIGINT, SIGTERM);
  HiddenCursor cursor(s.terminal);
  auto watching = frames(c.async(), std::move(names), s);
  auto signalled = signals.async_wait(asio::use_awaitable);
  auto ended = c.run(std::move(watching) || std::move(signalled));
  return ended.index() == 0 ? std::get<0>(ended) : 0;
}

}  // namespace mirra::cli
