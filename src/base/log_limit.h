// A rate limit for a class of log lines that input from outside can repeat without bound (one
// warning per bad connection, per refused request): garbage from the network must not flood
// the log. A class lets through `burst` lines at once and then one line per `refill_ms` on
// average (a token bucket); the lines it drops are counted, and the next line it lets through
// is preceded by one summary line:
//   WARN [server] suppressed 57 similar messages (closing a connection) in the last 12 s
//
// Usage: one limiter per class, e.g. a function-local static at the call site:
//   static log::Limiter limiter("closing a connection");
//   MIRRA_LOG_WARN_LIMITED(limiter, "closing connection {} from {}: {}", id, peer, why);
//
// The count of dropped lines is reported with the next line let through; a class that falls
// silent keeps its last count until then. Thread-safe (one mutex per limiter).
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/log.h"

namespace mirra::log {

struct LimiterOptions {
  int32_t burst = 20;        // lines let through at once
  int64_t refill_ms = 5000;  // then one more line per this many ms
};

class Limiter {
 public:
  using Options = LimiterOptions;
  // `clock` returns monotonic milliseconds (steady_ms; a fake one in tests).
  explicit Limiter(std::string what, Options options = {},
                   std::function<int64_t()> clock = &steady_ms);

  struct Admitted {
    uint64_t suppressed = 0;  // lines dropped since the last one let through
    int64_t since_ms = 0;     // how long ago the first of them was dropped
  };
  // Whether the next line of this class is written: nullopt drops it (and counts it).
  std::optional<Admitted> admit();

  const std::string& what() const { return what_; }

 private:
  void refill(int64_t now);

  const std::string what_;
  const Options options_;
  const std::function<int64_t()> clock_;
  std::mutex mu_;
  int64_t tokens_;
  int64_t refilled_at_;
  uint64_t suppressed_ = 0;
  int64_t first_suppressed_at_ = 0;
};

// The summary line written before a line let through after some were dropped.
void write_suppressed(Level l, std::string_view component, const Limiter& limiter,
                      const Limiter::Admitted& admitted);

}  // namespace mirra::log

#define MIRRA_CLOG_LIMITED(level, component, limiter, ...)                                 \
  do {                                                                                     \
    if (::mirra::log::enabled(level)) {                                                    \
      if (auto mirra_admitted_ = (limiter).admit()) {                                      \
        ::mirra::log::write_suppressed((level), (component), (limiter), *mirra_admitted_); \
        ::mirra::log::logf((level), (component), __VA_ARGS__);                             \
      }                                                                                    \
    }                                                                                      \
  } while (0)

#define MIRRA_LOG_WARN_LIMITED(limiter, ...) \
  MIRRA_CLOG_LIMITED(::mirra::log::Level::kWarn, kMirraLogComponent, limiter, __VA_ARGS__)
