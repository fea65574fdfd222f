#include "server/request_memory.h"

#include <algorithm>

#include "base/assert.h"

namespace mirra::server {

RequestMemory::Reservation& RequestMemory::Reservation::operator=(Reservation&& o) noexcept {
  if (this != &o) {
    reset();
    pool_ = std::move(o.pool_);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

void RequestMemory::Reservation::reset() {
  if (pool_) pool_->release(bytes_);
  pool_.reset();
  bytes_ = 0;
}

bool RequestMemory::fits(int64_t bytes) const {
  return limit_ == kUnbounded || held_ == 0 || held_ + bytes <= limit_;
}

void RequestMemory::release(int64_t bytes) {
  MIRRA_ASSERT(bytes <= held_, "releasing {} bytes of request memory, {} held", bytes, held_);
  held_ -= bytes;
  wake_first();
}

void RequestMemory::wake_first() {
  if (!waiters_.empty()) waiters_.front()->cancel();
}

asio::awaitable<std::optional<RequestMemory::Reservation>> RequestMemory::reserve(
    int64_t bytes, asio::steady_timer& wake, std::function<bool()> stop) {
  auto self = shared_from_this();
  if (waiters_.empty() && fits(bytes)) {
    held_ += bytes;
    co_return Reservation(self, bytes);
  }
  waiters_.push_back(&wake);
  while (!stop() && !(waiters_.front() == &wake && fits(bytes))) {
    wake.expires_at(asio::steady_timer::time_point::max());
    asio::error_code ec;
    co_await wake.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  waiters_.erase(std::find(waiters_.begin(), waiters_.end(), &wake));
  // The next in line may fit in what is left (or may now be first after this one gave up).
  wake_first();
  if (stop()) co_return std::nullopt;
  held_ += bytes;
  co_return Reservation(self, bytes);
}

}  // namespace mirra::server
