#include "base/log.h"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <iterator>
#include <mutex>
#include <string>

#include "base/clock.h"

namespace mirra::log {
namespace {

std::atomic<Level> g_level{Level::kInfo};

struct State {
  std::mutex mu;
  Sink sink;  // empty: stderr
};

State& state() {
  static State* s = new State();  // never destroyed: logging stays usable during exit
  return *s;
}

}  // namespace

void set_level(Level l) { g_level.store(l, std::memory_order_relaxed); }
Level level() { return g_level.load(std::memory_order_relaxed); }

std::string_view level_name(Level l) {
  switch (l) {
    case Level::kTrace:
      return "TRACE";
    case Level::kDebug:
      return "DEBUG";
    case Level::kInfo:
      return "INFO";
    case Level::kWarn:
      return "WARN";
    case Level::kError:
      return "ERROR";
    case Level::kOff:
      return "OFF";
  }
  return "?";
}

std::optional<Level> parse_level(std::string_view text) {
  std::string lower;
  lower.reserve(text.size());
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "trace") return Level::kTrace;
  if (lower == "debug") return Level::kDebug;
  if (lower == "info") return Level::kInfo;
  if (lower == "warn" || lower == "warning") return Level::kWarn;
  if (lower == "error") return Level::kError;
  if (lower == "off") return Level::kOff;
  return std::nullopt;
}

void set_sink(Sink sink) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.sink = std::move(sink);
}

void format_timestamp(fmt::memory_buffer& out, int64_t epoch_ms) {
  int64_t secs = epoch_ms / 1000;
  int64_t millis = epoch_ms % 1000;
  if (millis < 0) {
    millis += 1000;
    secs -= 1;
  }
  const std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  fmt::format_to(std::back_inserter(out), "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                 millis);
}

void write(Level l, std::string_view component, std::string_view message) {
  fmt::memory_buffer line;
  format_timestamp(line, now_ms());
  fmt::format_to(std::back_inserter(line), " {} [{}] {}", level_name(l), component, message);

  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.sink) {
    s.sink(l, std::string_view(line.data(), line.size()));
    return;
  }
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace mirra::log
