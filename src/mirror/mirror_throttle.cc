#include "mirror/mirror_throttle.h"

#include <fmt/format.h>

#include <charconv>

#include "base/text.h"

namespace mirra::mirror {
namespace {

// One second of the limit: the burst a catch-up may start with.
constexpr quota::WindowConfig kBucket{1, 1000};
// With a limit of 0 nothing is fetched; look again this often in case it changes.
constexpr int64_t kZeroRatePollMs = 1000;

std::optional<int64_t> whole_number(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

Status invalid(std::string message) {
  return Status(ErrorCode::INVALID_CONFIG, std::move(message));
}

}  // namespace

MirrorThrottle::MirrorThrottle(std::function<int64_t()> limit) : limit_(std::move(limit)) {}

bool MirrorThrottle::exceeded(int64_t now_ms) { return wait_ms(now_ms) > 0; }

void MirrorThrottle::record(int64_t bytes, int64_t now_ms) {
  const int64_t limit = limit_();
  if (limit == kUnthrottledRate || limit <= 0 || bytes <= 0) return;
  const auto rate = static_cast<double>(limit);
  if (!bucket_) bucket_.emplace(kBucket, rate, now_ms);
  bucket_->record(static_cast<double>(bytes), rate, now_ms);
}

int64_t MirrorThrottle::wait_ms(int64_t now_ms) {
  const int64_t limit = limit_();
  if (limit == kUnthrottledRate) return 0;
  if (limit <= 0) return kZeroRatePollMs;
  if (!bucket_) return 0;
  return bucket_->throttle_time_ms(static_cast<double>(limit), now_ms);
}

Result<int64_t> parse_throttled_rate(std::string_view value) {
  auto v = whole_number(trim(value));
  if (!v) {
    return invalid(fmt::format("{}: '{}' is not a whole number of bytes per second >= 0",
                               kMirrorThrottledRateKey, value));
  }
  return *v;
}

}  // namespace mirra::mirror
