// One client connection.
//
// Threading and ownership: a Connection lives on the core thread (server.h) and is touched by
// nothing else. Three coroutines share it, each holding a shared_ptr so the object outlives
// them all:
//   - read_loop: reads a 4-byte size (checked against socket.request.max.bytes), reserves
//     that many bytes of the broker-wide request memory (queued.max.request.bytes,
//     request_memory.h; it waits without reading while the bound is reached), then reads the
//     frame, reserves the next slot in the ResponseQueue and spawns the request's dispatch;
//     it stops reading while the queue is full (backpressure on this client only);
//   - write_loop: writes completed responses strictly in sequence order;
//   - idle_watchdog: closes the connection after connections.max.idle.ms with nothing in
//     flight and no complete request. A partial frame does not count as activity, so a client
//     trickling bytes (slow loris) is closed like an idle one; a response write that makes no
//     progress for as long (a client that stopped reading) closes it too.
// Anything wrong on the wire ends reading; responses to earlier requests are still written,
// then the socket closes with one log line naming the client address.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "base/asio.h"
#include "server/request_context.h"
#include "server/request_memory.h"
#include "server/response_queue.h"

namespace mirra::server {

class Server;

struct ConnectionLimits {
  int32_t max_request_bytes = 104857600;
  std::chrono::milliseconds idle{600000};
  size_t max_queued_responses = 64;
  size_t max_queued_bytes = 16 << 20;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(asio::ip::tcp::socket socket, ConnectionInfo info, ConnectionLimits limits,
             std::shared_ptr<RequestMemory> memory, BrokerState& broker, Server& server);

  void start();
  // Graceful stop: read no further requests, write the answers to those already read, close.
  void stop_reading();
  // Immediate close; `why` is logged when not empty.
  void close(std::string_view why);

  const ConnectionInfo& info() const { return info_; }

 private:
  asio::awaitable<void> read_loop();
  asio::awaitable<void> write_loop();
  asio::awaitable<void> idle_watchdog();
  asio::awaitable<void> wait(asio::steady_timer& t);
  // A request frame's bytes. Not a std::vector: its resize() would zero-fill every request
  // before the socket overwrites it (measurable at produce rates of hundreds of MB/s).
  struct FrameBuffer {
    RequestMemory::Reservation memory;  // released with the buffer, after the handler
    std::unique_ptr<uint8_t[]> data;
    size_t size = 0;
    std::span<uint8_t> span() const { return {data.get(), size}; }
  };
  // Reads one frame into `frame`; a non-OK Status says why reading ends (empty message: EOF).
  asio::awaitable<Status> read_frame(FrameBuffer& frame);
  void dispatch(FrameBuffer frame);
  asio::awaitable<Status> write_response(const Response& r);
  asio::awaitable<Status> write_bytes(std::span<const uint8_t> bytes);
  asio::awaitable<Status> send_file(const storage::FileSlice& slice);
  void end_reading(std::string reason);

  asio::ip::tcp::socket socket_;
  ConnectionInfo info_;
  ConnectionLimits limits_;
  std::shared_ptr<RequestMemory> memory_;
  BrokerState& broker_;
  Server& server_;
  ResponseQueue queue_;
  asio::steady_timer reader_wake_;
  asio::steady_timer writer_wake_;
  asio::steady_timer idle_timer_;
  std::chrono::steady_clock::time_point last_active_;
  bool reading_ = true;
  bool writing_ = false;  // a response write is in progress
  bool closed_ = false;
};

}  // namespace mirra::server
