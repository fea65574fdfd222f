// The security half of a Connection (connection.h): the TLS handshake, the principal of a
// client certificate, and the frames of a SASL listener before authentication.
#include <fmt/format.h>

#include <algorithm>

#include "base/log.h"
#include "protocol/messages/all_messages.h"
#include "server/connection.h"
#include "server/dispatch.h"
#include "server/listener_security.h"
#include "server/sasl_session.h"

namespace mirra::server {
namespace {

constexpr std::string_view kMirraLogComponent = "server";

// How long a refused TLS handshake waits for the client to close before closing itself
// (close_after_alert()).
constexpr auto kAlertLinger = std::chrono::seconds(2);

bool handled_in_read_loop(const SaslSession& sasl, int16_t api_key) {
  return !sasl.authenticated() || api_key == protocol::SaslHandshakeRequest::kApiKey ||
         api_key == protocol::SaslAuthenticateRequest::kApiKey;
}

}  // namespace

int32_t Connection::frame_limit() const {
  if (sasl_ != nullptr) {
    if (auto limit = sasl_->frame_limit()) return std::min(*limit, limits_.max_request_bytes);
  }
  return limits_.max_request_bytes;
}

asio::awaitable<bool> Connection::accept_tls() {
  Status s = co_await tls_->accept();
  if (closed_) co_return false;
  if (!s.ok()) {
    co_await close_after_alert(s.message());
    co_return false;
  }
  if (security_->listener.protocol == SecurityProtocol::ssl) {
    // SSL: the certificate names the client; SASL_SSL: the SASL identity does.
    if (auto subject = tls_->peer_subject()) {
      auto mapped = security_->principal_rules->apply(*subject);
      if (!mapped.ok()) {
        close(fmt::format("client certificate '{}': {}", *subject, mapped.status().message()));
        co_return false;
      }
      info_.principal = "User:" + mapped.value();
    }
  }
  MIRRA_LOG_DEBUG("connection {} from {}: {} as {}", info_.id, info_.peer, tls_->description(),
                  info_.principal);
  co_return true;
}

// A refused handshake left OpenSSL's alert in the socket. Under TLS 1.3 the client has finished
// its side and may have sent its first request already; closing with that request unread makes
// the kernel reset the connection, and a reset can drop the alert before the client reads it
// (kafka-python then reports only an EOF). So the write side is shut first (the FIN follows the
// alert), and whatever the client still sends is read and dropped until it closes, for at most
// kAlertLinger; then the connection closes.
asio::awaitable<void> Connection::close_after_alert(std::string why) {
  asio::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ec);
  asio::steady_timer deadline(socket_.get_executor());
  deadline.expires_after(kAlertLinger);
  deadline.async_wait([self = shared_from_this()](asio::error_code e) {
    if (!e) {
      asio::error_code ignored;
      self->socket_.cancel(ignored);  // ends the read below
    }
  });
  uint8_t scratch[4096];
  while (!ec && !closed_) {
    co_await socket_.async_read_some(asio::buffer(scratch),
                                     asio::redirect_error(asio::use_awaitable, ec));
  }
  deadline.cancel();
  close(why);
}

asio::awaitable<bool> Connection::serve_sasl_frame(FrameBuffer& frame) {
  if (sasl_->phase() == SaslSession::Phase::raw_tokens) co_return co_await raw_sasl_token(frame);
  protocol::Reader peek(frame.span());
  const int16_t api_key = peek.read_int16();
  if (peek.failed()) {
    end_reading("a request frame too short for its header");
    co_return false;
  }
  if (Status s = sasl_->admit(api_key, SaslSession::Clock::now()); !s.ok()) {
    end_reading(s.message());
    co_return false;
  }
  if (!handled_in_read_loop(*sasl_, api_key)) co_return true;  // dispatched as usual
  co_return co_await dispatch_inline(frame);
}

asio::awaitable<bool> Connection::dispatch_inline(FrameBuffer& frame) {
  FrameBuffer request = std::move(frame);  // consumed here: the read loop sees no data
  const uint64_t seq = queue_.push();
  handler_security_.close_after_response = false;
  HandlerResult r = co_await dispatch_request(request.span(), info_, broker_, &handler_security_);
  if (!r.ok()) {
    reading_ = false;
    queue_.complete(seq, ResponseEntry{{}, true, r.status().message()});
    writer_wake_.cancel();
    co_return false;
  }
  if (sasl_->authenticated()) info_.principal = sasl_->principal();
  queue_.complete(seq, ResponseEntry{std::move(r.value()), false, {}});
  writer_wake_.cancel();
  if (handler_security_.close_after_response) {
    end_reading(sasl_->phase() == SaslSession::Phase::failed
                    ? "SASL authentication failed"
                    : "SASL handshake refused (mechanism not enabled on this listener)");
    co_return false;
  }
  co_return true;
}

// SaslHandshake v0 framing: the frame is the token itself, the answer a size-prefixed token.
// There is no error channel: a failure closes the connection (Kafka does the same).
asio::awaitable<bool> Connection::raw_sasl_token(FrameBuffer& frame) {
  FrameBuffer token_frame = std::move(frame);
  const std::string_view token(reinterpret_cast<const char*>(token_frame.data.get()),
                               token_frame.size);
  SaslSession::Step step = sasl_->authenticate(token, SaslSession::Clock::now());
  if (step.error != ErrorCode::NONE) {
    end_reading("SASL authentication failed: " + step.message);
    co_return false;
  }
  protocol::Bytes out(protocol::kFrameSizeBytes + step.token.size());
  const auto n = static_cast<uint32_t>(step.token.size());
  out[0] = static_cast<uint8_t>(n >> 24);
  out[1] = static_cast<uint8_t>(n >> 16);
  out[2] = static_cast<uint8_t>(n >> 8);
  out[3] = static_cast<uint8_t>(n);
  std::copy(step.token.begin(), step.token.end(), out.begin() + protocol::kFrameSizeBytes);
  const uint64_t seq = queue_.push();
  queue_.complete(seq, ResponseEntry{Response(std::move(out)), false, {}});
  writer_wake_.cancel();
  if (sasl_->authenticated()) info_.principal = sasl_->principal();
  co_return true;
}

}  // namespace mirra::server
