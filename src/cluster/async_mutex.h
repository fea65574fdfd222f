// AsyncMutex: a FIFO lock for coroutines of one thread (the core thread). Used where a
// read-check-write sequence spans a co_await, e.g. a metadata change that validates against
// the image, waits for the log to persist it, then applies it: two CreateTopics for the same
// name must not both pass the check.
#pragma once

#include <deque>
#include <memory>

#include "base/asio.h"

namespace mirra::cluster {

class AsyncMutex {
 public:
  // Holding a Guard holds the lock; destroying it hands the lock to the next waiter.
  class Guard {
   public:
    explicit Guard(AsyncMutex* m) : m_(m) {}
    Guard(Guard&& o) noexcept : m_(o.m_) { o.m_ = nullptr; }
    Guard(const Guard&) = delete;
    ~Guard() {
      if (m_ != nullptr) m_->unlock();
    }

   private:
    AsyncMutex* m_;
  };

  asio::awaitable<Guard> lock() {
    if (!locked_) {
      locked_ = true;
      co_return Guard(this);
    }
    auto ex = co_await asio::this_coro::executor;
    auto wake = std::make_shared<asio::steady_timer>(ex, asio::steady_timer::time_point::max());
    waiters_.push_back(wake);
    asio::error_code ec;
    co_await wake->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    co_return Guard(this);  // unlock() handed the lock over: locked_ stayed true
  }

 private:
  void unlock() {
    if (waiters_.empty()) {
      locked_ = false;
      return;
    }
    waiters_.front()->cancel();
    waiters_.pop_front();
  }

  bool locked_ = false;
  std::deque<std::shared_ptr<asio::steady_timer>> waiters_;
};

}  // namespace mirra::cluster
