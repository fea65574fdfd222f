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
//     it also stops reading while the client is muted for a quota throttle (KIP-219: the
//     answer goes out at once with throttle_time_ms, then nothing more is read from the
//     client until the throttle has passed, so a client that ignores it is held back too);
//     a connection once throttled is read one request at a time, as Kafka reads every
//     connection, so that requests pipelined ahead cannot carry it past its quota;
//   - idle_watchdog: closes the connection after connections.max.idle.ms with nothing in
//     flight and no complete request. A partial frame does not count as activity, so a client
//     trickling bytes (slow loris) is closed like an idle one; a response write that makes no
//     progress for as long (a client that stopped reading) closes it too.
// Anything wrong on the wire ends reading; responses to earlier requests are still written,
// then the socket closes with one log line naming the client address.
//
// Security (connection_auth.cc): on an SSL or SASL_SSL listener the read loop first completes
// the TLS handshake (waiting on the socket, never blocking other connections; the idle
// watchdog closes a connection that stalls in it); every byte then goes through the
// TlsStream. On a SASL listener, frames before authentication are handled one at a time in the
// read loop (SaslSession decides what is allowed), so the SASL state changes in request order;
// once authenticated, requests are dispatched as on any listener.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "base/asio.h"
#include "security/tls.h"
#include "server/request_context.h"
#include "server/request_memory.h"
#include "server/response_queue.h"

namespace mirra::server {

class Server;
class SaslSession;
struct ListenerSecurity;

struct ConnectionLimits {
  int32_t max_request_bytes = 104857600;
  std::chrono::milliseconds idle{600000};
  size_t max_queued_responses = 64;
  size_t max_queued_bytes = 16 << 20;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // `security`: the listener's TLS and SASL settings (null: plaintext, no SASL); it must
  // outlive the connection.
  Connection(asio::ip::tcp::socket socket, ConnectionInfo info, ConnectionLimits limits,
             std::shared_ptr<RequestMemory> memory, BrokerState& broker, Server& server,
             const ListenerSecurity* security = nullptr);
  ~Connection();

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
  // Fills `buf` from the socket or the TLS session; empty message: the client went away.
  asio::awaitable<Status> read_exact(std::span<uint8_t> buf, bool at_frame_start);
  void dispatch(FrameBuffer frame);
  // connection_auth.cc: the TLS handshake and the principal of a certificate; false: closed.
  asio::awaitable<bool> accept_tls();
  // connection_auth.cc: a refused handshake's close, letting the client read the TLS alert.
  asio::awaitable<void> close_after_alert(std::string why);
  // connection_auth.cc: a frame on a SASL listener; false when reading must end.
  asio::awaitable<bool> serve_sasl_frame(FrameBuffer& frame);
  // connection_auth.cc: a request handled in the read loop, its answer queued in order.
  asio::awaitable<bool> dispatch_inline(FrameBuffer& frame);
  asio::awaitable<bool> raw_sasl_token(FrameBuffer& frame);
  int32_t frame_limit() const;
  asio::awaitable<Status> write_response(const Response& r);
  asio::awaitable<Status> write_bytes(std::span<const uint8_t> bytes);
  asio::awaitable<Status> send_file(const storage::FileSlice& slice);
  void end_reading(std::string reason);
  // KIP-219: a throttled client's next request is not read before the throttle has passed.
  void mute_for(int64_t throttle_ms);

  asio::ip::tcp::socket socket_;
  const ListenerSecurity* security_;
  std::unique_ptr<security::TlsStream> tls_;  // SSL, SASL_SSL
  std::unique_ptr<SaslSession> sasl_;         // SASL_PLAINTEXT, SASL_SSL
  ConnectionSecurity handler_security_;       // what the SASL handlers see of sasl_
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
  std::chrono::steady_clock::time_point muted_until_{};  // quota throttle (docs/quotas.md)
  bool throttled_ = false;  // once throttled, one request at a time (read_loop)
  bool reading_ = true;
  bool writing_ = false;  // a response write is in progress
  bool closed_ = false;
};

}  // namespace mirra::server
