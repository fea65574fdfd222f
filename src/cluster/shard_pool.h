// ShardPool: the threads that own partition logs and do blocking disk work.
//
// Storage calls block (fsync, segment roll, index reads), so they never run on the core thread
// that serves the network (server/server.h). Each partition is owned by exactly one shard for
// its whole life (shard_for()); the core thread hands it work with run_on() and resumes when
// the shard is done. A shard runs its jobs one at a time in the order they were posted, which
// is what keeps pipelined produce requests in order per partition.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

#include "base/asio.h"
#include "base/uuid.h"

namespace mirra::cluster {

class ShardPool {
 public:
  // Starts `threads` shard threads (at least one).
  explicit ShardPool(size_t threads);
  ~ShardPool();  // stop()
  ShardPool(const ShardPool&) = delete;
  ShardPool& operator=(const ShardPool&) = delete;

  size_t size() const { return shards_.size(); }
  asio::any_io_executor executor(size_t shard) const;
  // The shard that owns a partition: fixed for the partition's life.
  size_t shard_for(const Uuid& topic_id, int32_t partition) const;
  // Whether the calling thread is `shard`'s (for MIRRA_ASSERT: a log touched off its shard).
  bool on_shard(size_t shard) const;
  // Runs every job already posted, then joins the threads. Idempotent.
  void stop();

 private:
  struct Shard;
  std::vector<std::unique_ptr<Shard>> shards_;
};

// Runs f() on `ex` (a shard) and resumes the awaiting coroutine on its own executor with f's
// result. An exception thrown by f is rethrown in the awaiting coroutine.
//
// Capture by reference ([&]): the awaiting coroutine is suspended until f has run, so its
// locals outlive f. g++ 12 destroys some temporaries of a co_await expression twice (lambdas
// with init-captures, conditional operands with destructors); a lambda whose captures have
// no destructor is not affected.
template <typename F>
auto run_on(asio::any_io_executor ex, F f) -> asio::awaitable<std::invoke_result_t<F&>> {
  using R = std::invoke_result_t<F&>;
  using Slot = std::conditional_t<std::is_void_v<R>, bool, std::optional<R>>;
  Slot out{};
  std::exception_ptr error;
  co_await asio::async_initiate<decltype(asio::use_awaitable), void()>(
      [&](auto handler) {
        asio::post(ex, [&, handler = std::move(handler)]() mutable {
          try {
            if constexpr (std::is_void_v<R>) {
              f();
            } else {
              out.emplace(f());
            }
          } catch (...) {
            error = std::current_exception();
          }
          auto home = asio::get_associated_executor(handler);
          asio::post(home, std::move(handler));
        });
      },
      asio::use_awaitable);
  if (error) std::rethrow_exception(error);
  if constexpr (!std::is_void_v<R>) co_return std::move(*out);
}

}  // namespace mirra::cluster
