#include "base/log_limit.h"

namespace mirra::log {

Limiter::Limiter(std::string what, Options options, std::function<int64_t()> clock)
    : what_(std::move(what)),
      options_(options),
      clock_(std::move(clock)),
      tokens_(options.burst),
      refilled_at_(clock_()) {}

// Adds one token per whole refill_ms elapsed; time short of the next token is kept, so a
// steady trickle of calls does not lose it. Time spent with a full bucket earns nothing.
void Limiter::refill(int64_t now) {
  const int64_t earned = options_.refill_ms > 0 ? (now - refilled_at_) / options_.refill_ms : 0;
  if (earned <= 0) return;
  if (tokens_ + earned > options_.burst) {
    tokens_ = options_.burst;
    refilled_at_ = now;
  } else {
    tokens_ += earned;
    refilled_at_ += earned * options_.refill_ms;
  }
}

std::optional<Limiter::Admitted> Limiter::admit() {
  std::lock_guard lock(mu_);
  const int64_t now = clock_();
  refill(now);
  if (tokens_ == 0) {
    if (suppressed_++ == 0) first_suppressed_at_ = now;
    return std::nullopt;
  }
  --tokens_;
  Admitted a{suppressed_, suppressed_ > 0 ? now - first_suppressed_at_ : 0};
  suppressed_ = 0;
  return a;
}

void write_suppressed(Level l, std::string_view component, const Limiter& limiter,
                      const Limiter::Admitted& admitted) {
  if (admitted.suppressed == 0) return;
  logf(l, component, "suppressed {} similar messages ({}) in the last {} s", admitted.suppressed,
       limiter.what(), (admitted.since_ms + 999) / 1000);
}

}  // namespace mirra::log
