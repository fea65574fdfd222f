#include "server/connection.h"

#include <sys/sendfile.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/log.h"
#include "base/log_limit.h"
#include "server/dispatch.h"
#include "server/listener_security.h"
#include "server/sasl_session.h"
#include "server/server.h"

namespace mirra::server {
namespace {

constexpr std::string_view kMirraLogComponent = "server";
using std::chrono::steady_clock;

auto ec_awaitable(asio::error_code& ec) { return asio::redirect_error(asio::use_awaitable, ec); }

// A client that disconnects with a response still owed (a consumer closing during a long poll)
// is routine, not worth a warning: such write failures get this message.
constexpr std::string_view kPeerGone = "the client closed the connection";

bool is_peer_gone(int err) { return err == EPIPE || err == ECONNRESET; }

Status write_failed(const asio::error_code& ec) {
  if (is_peer_gone(ec.value())) return Status(ErrorCode::NETWORK_EXCEPTION, std::string(kPeerGone));
  return Status(ErrorCode::NETWORK_EXCEPTION, "write: " + ec.message());
}

}  // namespace

Connection::Connection(asio::ip::tcp::socket socket, ConnectionInfo info, ConnectionLimits limits,
                       std::shared_ptr<RequestMemory> memory, BrokerState& broker, Server& server,
                       const ListenerSecurity* security)
    : socket_(std::move(socket)),
      security_(security),
      info_(std::move(info)),
      limits_(limits),
      memory_(std::move(memory)),
      broker_(broker),
      server_(server),
      queue_(limits.max_queued_responses, limits.max_queued_bytes),
      reader_wake_(socket_.get_executor()),
      writer_wake_(socket_.get_executor()),
      idle_timer_(socket_.get_executor()),
      last_active_(steady_clock::now()) {
  if (security_ != nullptr && security_->tls != nullptr) {
    tls_ = std::make_unique<security::TlsStream>(security_->tls, socket_);
  }
  if (security_ != nullptr && uses_sasl(security_->listener.protocol)) {
    sasl_ = std::make_unique<SaslSession>(*security_);
    handler_security_.sasl = sasl_.get();
    handler_security_.listener = security_;
  }
}

Connection::~Connection() = default;

void Connection::start() {
  // sendfile() on the raw descriptor must not block the core thread.
  asio::error_code ec;
  socket_.native_non_blocking(true, ec);
  // Responses go out as soon as they are written, as Kafka's broker does (setTcpNoDelay):
  // with Nagle a small response waits for the ACK of the previous one.
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  auto self = shared_from_this();
  auto ex = socket_.get_executor();
  asio::co_spawn(
      ex, [self]() { return self->read_loop(); }, asio::detached);
  asio::co_spawn(
      ex, [self]() { return self->write_loop(); }, asio::detached);
  asio::co_spawn(
      ex, [self]() { return self->idle_watchdog(); }, asio::detached);
}

// A timer used as a condition variable: cancel() wakes the waiter. Callers re-check their
// condition in a loop; everything runs on one thread, so no wake-up is lost between the check
// and the wait.
asio::awaitable<void> Connection::wait(asio::steady_timer& t) {
  t.expires_at(steady_clock::time_point::max());
  asio::error_code ec;
  co_await t.async_wait(ec_awaitable(ec));
}

asio::awaitable<Status> Connection::read_exact(std::span<uint8_t> buf, bool at_frame_start) {
  if (tls_ != nullptr) {
    size_t got = 0;
    while (got < buf.size()) {
      // Mid-frame, the client still owes bytes: read_some acknowledges what came before waiting.
      const bool mid_frame = !at_frame_start || got > 0;
      auto n = co_await tls_->read_some(buf.subspan(got), mid_frame);
      if (!n.ok()) co_return Status(ErrorCode::NETWORK_EXCEPTION, "read: " + n.status().message());
      // The client closed its TLS session between requests: a quiet close.
      if (n.value() == 0) {
        co_return Status(ErrorCode::NETWORK_EXCEPTION,
                         at_frame_start && got == 0 ? "" : "the client closed mid-frame");
      }
      got += n.value();
    }
    co_return Status::OK();
  }
  asio::error_code ec;
  co_await asio::async_read(socket_, asio::buffer(buf.data(), buf.size()), ec_awaitable(ec));
  // The client hung up between requests (EOF or a reset): a quiet close.
  if (at_frame_start && (ec == asio::error::eof || (ec && is_peer_gone(ec.value())))) {
    co_return Status(ErrorCode::NETWORK_EXCEPTION, "");
  }
  if (ec) co_return Status(ErrorCode::NETWORK_EXCEPTION, "read: " + ec.message());
  co_return Status::OK();
}

asio::awaitable<Status> Connection::read_frame(FrameBuffer& frame) {
  uint8_t prefix[protocol::kFrameSizeBytes];
  if (Status s = co_await read_exact(prefix, true); !s.ok()) co_return s;
  auto size = protocol::read_frame_size(prefix, frame_limit());
  if (!size.ok()) co_return size.status();
  // Nothing is allocated or read for the body until the broker-wide bound allows it; a close
  // while waiting (reader_wake_ cancelled) ends reading quietly, close() already logged why.
  auto memory = co_await memory_->reserve(size.value(), reader_wake_,
                                          [this] { return closed_ || !reading_; });
  if (!memory) co_return Status(ErrorCode::NETWORK_EXCEPTION, "");
  frame.memory = std::move(*memory);
  frame.size = static_cast<size_t>(size.value());
  frame.data.reset(new uint8_t[frame.size]);  // uninitialised: the read fills it
  Status s = co_await read_exact(frame.span(), false);
  if (!s.ok()) {
    co_return Status(ErrorCode::NETWORK_EXCEPTION,
                     fmt::format("truncated frame ({} bytes announced): {}", size.value(),
                                 s.message().empty() ? "the client closed" : s.message()));
  }
  co_return Status::OK();
}

asio::awaitable<void> Connection::read_loop() {
  if (tls_ != nullptr && !co_await accept_tls()) co_return;
  while (reading_ && !closed_) {
    while (queue_.full() && reading_ && !closed_) co_await wait(reader_wake_);
    // A throttled client is served as Kafka serves every client: one request at a time, the
    // next read once the answer is written and the throttle has passed, so that pipelining
    // cannot carry it past its quota.
    while (throttled_ && !queue_.empty() && reading_ && !closed_) co_await wait(reader_wake_);
    while (steady_clock::now() < muted_until_ && reading_ && !closed_) {
      reader_wake_.expires_at(muted_until_);
      asio::error_code ec;
      co_await reader_wake_.async_wait(ec_awaitable(ec));
    }
    if (!reading_ || closed_) break;
    FrameBuffer frame;
    Status s = co_await read_frame(frame);
    if (!reading_ || closed_) break;
    if (!s.ok()) {
      end_reading(s.message().empty() ? "" : s.to_string());
      break;
    }
    last_active_ = steady_clock::now();
    if (sasl_ != nullptr) {
      if (!co_await serve_sasl_frame(frame)) break;
      if (frame.data == nullptr) continue;  // served in the read loop
    }
    dispatch(std::move(frame));
  }
}

void Connection::dispatch(FrameBuffer frame) {
  const uint64_t seq = queue_.push();
  auto self = shared_from_this();
  // The frame moves into the coroutine frame: the request's body span stays valid until the
  // handler has finished.
  auto run = [self, frame = std::move(frame)]() mutable -> asio::awaitable<ResponseEntry> {
    HandlerResult r = co_await dispatch_request(frame.span(), self->info_, self->broker_);
    if (!r.ok()) co_return ResponseEntry{{}, true, r.status().message()};
    co_return ResponseEntry{std::move(r.value()), false, {}};
  };
  asio::co_spawn(socket_.get_executor(), std::move(run),
                 [self, seq](std::exception_ptr e, ResponseEntry entry) {
                   if (e) entry = ResponseEntry{{}, true, "request handler failed"};
                   if (entry.close) self->reading_ = false;
                   self->mute_for(entry.response.throttle_ms);
                   self->queue_.complete(seq, std::move(entry));
                   self->writer_wake_.cancel();
                 });
}

void Connection::mute_for(int64_t throttle_ms) {
  if (throttle_ms <= 0) return;
  throttled_ = true;
  muted_until_ =
      std::max(muted_until_, steady_clock::now() + std::chrono::milliseconds(throttle_ms));
}

void Connection::end_reading(std::string reason) {
  reading_ = false;
  const uint64_t seq = queue_.push();
  queue_.complete(seq, ResponseEntry{{}, true, std::move(reason)});
  writer_wake_.cancel();
}

asio::awaitable<void> Connection::write_loop() {
  while (!closed_) {
    while (!queue_.head_ready() && !closed_) co_await wait(writer_wake_);
    if (closed_) break;
    ResponseEntry e = queue_.pop();
    reader_wake_.cancel();
    if (e.close) {
      close(e.close_reason);
      break;
    }
    if (e.response.empty()) continue;  // a request without a response (Produce with acks=0)
    writing_ = true;
    Status s = co_await write_response(e.response);
    writing_ = false;
    if (!s.ok()) {
      close(closed_ || s.message() == kPeerGone ? "" : s.message());
      break;
    }
    last_active_ = steady_clock::now();
  }
}

asio::awaitable<Status> Connection::write_bytes(std::span<const uint8_t> bytes) {
  if (tls_ != nullptr) {
    Status s = co_await tls_->write_all(bytes);
    if (!s.ok()) co_return Status(ErrorCode::NETWORK_EXCEPTION, "write: " + s.message());
    co_return s;
  }
  asio::error_code ec;
  co_await asio::async_write(socket_, asio::buffer(bytes.data(), bytes.size()), ec_awaitable(ec));
  if (ec) co_return write_failed(ec);
  co_return Status::OK();
}

// sendfile(2) from a segment file straight into the socket. It runs on the core thread: data
// just produced or fetched is in the page cache, so it does not wait for the disk (Kafka's
// network threads do the same); a cold read would stall this thread for its duration.
asio::awaitable<Status> Connection::send_file(const storage::FileSlice& slice) {
  if (tls_ != nullptr) {
    Status s = co_await tls_->send_file(slice.fd(), static_cast<off_t>(slice.position),
                                        static_cast<size_t>(slice.size));
    if (!s.ok()) co_return Status(ErrorCode::NETWORK_EXCEPTION, "write: " + s.message());
    co_return s;
  }
  off_t offset = static_cast<off_t>(slice.position);
  size_t left = static_cast<size_t>(slice.size);
  while (left > 0 && !closed_) {
    const ssize_t n = ::sendfile(socket_.native_handle(), slice.fd(), &offset, left);
    if (n > 0) {
      left -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      asio::error_code ec;
      co_await socket_.async_wait(asio::ip::tcp::socket::wait_write, ec_awaitable(ec));
      if (ec) co_return write_failed(ec);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && is_peer_gone(errno))
      co_return Status(ErrorCode::NETWORK_EXCEPTION, std::string(kPeerGone));
    // n == 0: the segment file shrank after the read (truncated); the frame cannot be finished.
    co_return Status(ErrorCode::NETWORK_EXCEPTION,
                     n == 0 ? std::string("sendfile: segment file shorter than the fetched range")
                            : fmt::format("sendfile: {}", std::strerror(errno)));
  }
  co_return Status::OK();
}

asio::awaitable<Status> Connection::write_response(const Response& r) {
  std::span<const uint8_t> bytes(r.bytes);
  size_t pos = 0;
  for (const protocol::Splice& splice : r.splices) {
    if (Status s = co_await write_bytes(bytes.subspan(pos, splice.at - pos)); !s.ok()) co_return s;
    pos = splice.at;
    for (const storage::FileSlice& slice : *static_cast<const FileSliceList*>(splice.source)) {
      if (Status s = co_await send_file(slice); !s.ok()) co_return s;
    }
  }
  co_return co_await write_bytes(bytes.subspan(pos));
}

asio::awaitable<void> Connection::idle_watchdog() {
  while (!closed_) {
    idle_timer_.expires_at(last_active_ + limits_.idle);
    asio::error_code ec;
    co_await idle_timer_.async_wait(ec_awaitable(ec));
    if (closed_) break;
    if (steady_clock::now() < last_active_ + limits_.idle) continue;
    if (writing_) {
      // A response has been stuck in the socket that long: the client stopped reading.
      close(fmt::format("client read nothing for {} ms (connections.max.idle.ms)",
                        limits_.idle.count()));
    } else if (queue_.empty()) {
      close(fmt::format("idle for {} ms (connections.max.idle.ms)", limits_.idle.count()));
    }
  }
}

void Connection::stop_reading() {
  if (closed_ || !reading_) return;
  // Wakes a pending read with EOF; read_loop then queues the close behind every response
  // still owed.
  asio::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_receive, ec);
  if (ec) close("");
}

void Connection::close(std::string_view why) {
  if (closed_) return;
  closed_ = true;
  reading_ = false;
  if (why.empty()) {
    MIRRA_LOG_DEBUG("connection {} from {} closed", info_.id, info_.peer);
  } else {
    // One line per bad connection, but garbage arriving on many connections must not flood
    // the log (base/log_limit.h).
    static log::Limiter limiter("closing a connection");
    MIRRA_LOG_WARN_LIMITED(limiter, "closing connection {} from {}: {}", info_.id, info_.peer, why);
  }
  asio::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  reader_wake_.cancel();
  writer_wake_.cancel();
  idle_timer_.cancel();
  server_.on_closed(info_.id);
}

}  // namespace mirra::server
