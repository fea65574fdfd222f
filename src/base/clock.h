// Millisecond clocks.
//
// now_ms(): wall-clock time, milliseconds since the Unix epoch (UTC). Use it for values that
// leave the process (record timestamps, log lines, metadata); it can jump when the system clock
// is set.
// steady_ms(): a monotonic clock with an arbitrary origin. Use it for timeouts, deadlines,
// backoff and durations; it never goes backwards.
#pragma once

#include <chrono>
#include <cstdint>

namespace mirra {

inline int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

inline int64_t steady_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

inline int64_t steady_us() {
  using namespace std::chrono;
  return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace mirra
