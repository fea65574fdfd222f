// The memory held by requests read from every connection, bounded by queued.max.request.bytes
// (Kafka's key; docs in the repository README and src/server/README.md).
//
// After reading a request's 4-byte size (already checked against socket.request.max.bytes),
// a connection reserves that many bytes here before it allocates the buffer and reads the
// body; the reservation goes with the request and is released when its handler has finished.
// While the bound is reached the connection waits here without reading from its socket: the
// client's bytes stay in the kernel's socket buffers and TCP flow control stops the client
// (back-pressure), instead of the broker buffering them. Charging the announced size, as
// Kafka's memory pool does, means a request that got its reservation can always be read to the
// end: partly read requests can never hold the whole bound between them and wait for each
// other. Waiters are served in arrival order, so a large request is not starved by a stream of
// small ones; a request larger than the whole bound is admitted when nothing else is held.
//
// Threading: the core thread only (server/README.md), like the connections that use it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>

#include "base/asio.h"

namespace mirra::server {

class RequestMemory : public std::enable_shared_from_this<RequestMemory> {
 public:
  static constexpr int64_t kUnbounded = -1;
  // `limit` in bytes, or kUnbounded.
  explicit RequestMemory(int64_t limit) : limit_(limit) {}

  // Bytes held until destroyed (or moved from).
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& o) noexcept { *this = std::move(o); }
    Reservation& operator=(Reservation&& o) noexcept;
    ~Reservation() { reset(); }
    void reset();
    int64_t bytes() const { return bytes_; }

   private:
    friend class RequestMemory;
    Reservation(std::shared_ptr<RequestMemory> pool, int64_t bytes)
        : pool_(std::move(pool)), bytes_(bytes) {}
    std::shared_ptr<RequestMemory> pool_;
    int64_t bytes_ = 0;
  };

  // Waits until `bytes` can be held, sleeping on `wake` (the caller's timer; release() cancels
  // it when this waiter is next in line). nullopt when `stop()` turned true while waiting: the
  // caller cancels `wake` after making it true (the connection closing).
  asio::awaitable<std::optional<Reservation>> reserve(int64_t bytes, asio::steady_timer& wake,
                                                      std::function<bool()> stop);

  int64_t limit() const { return limit_; }
  int64_t held() const { return held_; }
  size_t waiting() const { return waiters_.size(); }

 private:
  bool fits(int64_t bytes) const;
  void release(int64_t bytes);
  void wake_first();

  const int64_t limit_;
  int64_t held_ = 0;
  std::deque<asio::steady_timer*> waiters_;  // in arrival order
};

}  // namespace mirra::server
