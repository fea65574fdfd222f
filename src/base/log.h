// A thin logging facade: one line per call, written to stderr (or a sink set for tests), as
//   2026-12-01T06:00:00.123Z INFO [component] message
//
// Usage:
//   MIRRA_LOG_INFO("opened segment {} at offset {}", path, base);
//   MIRRA_CLOG_WARN("storage", "fsync took {} ms", ms);       // explicit component
//
// The MIRRA_LOG_* macros take the component from the name `kMirraLogComponent`, found by
// ordinary lookup: the global default is "mirra"; a module overrides it by declaring
//   constexpr std::string_view kMirraLogComponent = "storage";
// inside its own namespace (e.g. in namespace mirra::storage, or an anonymous namespace within
// it). Arguments are formatted with fmt 9 only when the level is enabled.
//
// The level is a process-wide atomic, settable at run time; writes are serialized by one mutex.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <utility>

#include <fmt/format.h>

inline constexpr std::string_view kMirraLogComponent = "mirra";

namespace mirra::log {

enum class Level : uint8_t { kTrace = 0, kDebug, kInfo, kWarn, kError, kOff };

void set_level(Level level);
Level level();
inline bool enabled(Level l) { return l >= level() && l != Level::kOff; }

// "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF".
std::string_view level_name(Level l);
// Case-insensitive; also accepts "warning".
std::optional<Level> parse_level(std::string_view text);

// Receives each complete line (without the trailing newline), under the log mutex. An empty
// function restores the default sink (stderr).
using Sink = std::function<void(Level, std::string_view line)>;
void set_sink(Sink sink);

// Formats the line prefix and hands the line to the sink. Does not check the level.
void write(Level l, std::string_view component, std::string_view message);

// "2026-12-01T06:00:00.123Z" for a wall-clock time in ms since the epoch.
void format_timestamp(fmt::memory_buffer& out, int64_t epoch_ms);

template <typename... Args>
void logf(Level l, std::string_view component, fmt::format_string<Args...> format, Args&&... args) {
  if (!enabled(l)) return;
  fmt::memory_buffer buf;
  fmt::format_to(std::back_inserter(buf), format, std::forward<Args>(args)...);
  write(l, component, std::string_view(buf.data(), buf.size()));
}

}  // namespace mirra::log

#define MIRRA_CLOG(level, component, ...)                    \
  do {                                                       \
    if (::mirra::log::enabled(level)) {                      \
      ::mirra::log::logf((level), (component), __VA_ARGS__); \
    }                                                        \
  } while (0)

#define MIRRA_CLOG_TRACE(component, ...) \
  MIRRA_CLOG(::mirra::log::Level::kTrace, component, __VA_ARGS__)
#define MIRRA_CLOG_DEBUG(component, ...) \
  MIRRA_CLOG(::mirra::log::Level::kDebug, component, __VA_ARGS__)
#define MIRRA_CLOG_INFO(component, ...) \
  MIRRA_CLOG(::mirra::log::Level::kInfo, component, __VA_ARGS__)
#define MIRRA_CLOG_WARN(component, ...) \
  MIRRA_CLOG(::mirra::log::Level::kWarn, component, __VA_ARGS__)
#define MIRRA_CLOG_ERROR(component, ...) \
  MIRRA_CLOG(::mirra::log::Level::kError, component, __VA_ARGS__)

#define MIRRA_LOG_TRACE(...) MIRRA_CLOG_TRACE(kMirraLogComponent, __VA_ARGS__)
#define MIRRA_LOG_DEBUG(...) MIRRA_CLOG_DEBUG(kMirraLogComponent, __VA_ARGS__)
#define MIRRA_LOG_INFO(...) MIRRA_CLOG_INFO(kMirraLogComponent, __VA_ARGS__)
#define MIRRA_LOG_WARN(...) MIRRA_CLOG_WARN(kMirraLogComponent, __VA_ARGS__)
#define MIRRA_LOG_ERROR(...) MIRRA_CLOG_ERROR(kMirraLogComponent, __VA_ARGS__)
