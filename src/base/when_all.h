// when_all: runs coroutines side by side on one executor and returns when every one has
// finished. For work whose parts wait on different threads (appends to partitions on different
// shards) and would otherwise wait for each other for no reason.
#pragma once

#include <memory>
#include <vector>

#include "base/asio.h"

namespace mirra {

namespace when_all_detail {

struct Countdown {
  explicit Countdown(asio::any_io_executor ex, size_t n)
      : left(n), done(ex, asio::steady_timer::time_point::max()) {}
  size_t left;
  asio::steady_timer done;
};

inline asio::awaitable<void> counted(asio::awaitable<void> task,
                                     std::shared_ptr<Countdown> countdown) {
  co_await std::move(task);
  if (--countdown->left == 0) countdown->done.cancel();
}

}  // namespace when_all_detail

// The tasks must not throw (Mirra's coroutines report errors as Status).
inline asio::awaitable<void> when_all(std::vector<asio::awaitable<void>> tasks) {
  if (tasks.empty()) co_return;
  auto ex = co_await asio::this_coro::executor;
  auto countdown = std::make_shared<when_all_detail::Countdown>(ex, tasks.size());
  for (auto& task : tasks) {
    asio::co_spawn(ex, when_all_detail::counted(std::move(task), countdown), asio::detached);
  }
  while (countdown->left > 0) {
    asio::error_code ec;
    co_await countdown->done.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

}  // namespace mirra
