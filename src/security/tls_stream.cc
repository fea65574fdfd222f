// TlsStream: OpenSSL drives the socket's descriptor itself (a socket BIO, which kernel TLS can
// take over) and the coroutine parks on the socket when OpenSSL wants to read or write.
//
// Two coroutines of one thread may use a stream at once, one reading and one writing. Each
// OpenSSL call runs to completion between suspension points, so calls never overlap; what
// must hold is that neither waits for something only the other would cause:
// - a write never needs to read: renegotiation is off (tls.cc), and TLS 1.3's post-handshake
//   messages (session tickets, key updates) are read by SSL_read;
// - a read does not interfere with a half-written record: OpenSSL answers a peer's key update
//   from the next SSL_write once nothing is pending, not from SSL_read. Should SSL_read still
//   want to write (an alert), it waits for the socket like the writer: Asio completes every
//   waiter of a kind when the socket is ready.
// The process must ignore SIGPIPE (the broker does, server/run.cc): OpenSSL writes with send(2)
// without MSG_NOSIGNAL.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "base/assert.h"
#include "security/principal.h"
#include "security/tls.h"
#include "security/tls_openssl.h"

namespace mirra::security {
namespace {

using detail::take_openssl_errors;

// Chunks of a file sent through OpenSSL when the kernel does not do TLS for the session.
constexpr size_t kFileChunk = 64 * 1024;

Status network(std::string message) {
  return Status(ErrorCode::NETWORK_EXCEPTION, std::move(message));
}

// Why an OpenSSL call failed with SSL_ERROR_SSL: the queue's reasons, and for a certificate
// that did not verify, the verifier's reason ("unable to get local issuer certificate").
std::string ssl_failure(const SSL* ssl) {
  std::string reason = take_openssl_errors();
  const long verify = SSL_get_verify_result(ssl);
  if (verify != X509_V_OK && reason.find("certificate verify failed") != std::string::npos) {
    reason += fmt::format(": {}", X509_verify_cert_error_string(verify));
  }
  return reason.empty() ? std::string("unknown TLS error") : reason;
}

}  // namespace

TlsStream::TlsStream(std::shared_ptr<TlsContext> context, asio::ip::tcp::socket& socket)
    : context_(std::move(context)), socket_(socket) {
  ssl_ = SSL_new(context_->native());
  if (ssl_ == nullptr) throw std::runtime_error("SSL_new: " + take_openssl_errors());
  // OpenSSL reads and writes the descriptor directly, so the descriptor itself must not block
  // (Asio otherwise sets that only when its own first operation starts).
  asio::error_code ec;
  socket_.native_non_blocking(true, ec);
  MIRRA_ASSERT(!ec, "TlsStream over a socket that is not open: {}", ec.message());
  SSL_set_fd(ssl_, socket_.native_handle());
}

TlsStream::~TlsStream() { SSL_free(ssl_); }

asio::awaitable<Status> TlsStream::accept() {
  MIRRA_ASSERT(context_->is_server(), "accept() on a client context");
  SSL_set_accept_state(ssl_);
  co_return co_await handshake();
}

asio::awaitable<Status> TlsStream::connect(std::string host) {
  MIRRA_ASSERT(!context_->is_server(), "connect() on a server context");
  SSL_set_connect_state(ssl_);
  asio::error_code ec;
  asio::ip::make_address(host, ec);
  const bool is_ip = !ec;
  // SNI is for names only (RFC 6066); an address is checked against the IP SANs.
  if (!is_ip && !host.empty()) SSL_set_tlsext_host_name(ssl_, host.c_str());
  if (context_->check_host()) {
    if (host.empty()) co_return network("TLS handshake failed: no host name to check");
    const int ok = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str())
                         : SSL_set1_host(ssl_, host.c_str());
    if (ok != 1) {
      co_return network(fmt::format("TLS handshake failed: cannot check host name {}: {}", host,
                                    take_openssl_errors()));
    }
  }
  co_return co_await handshake();
}

asio::awaitable<Status> TlsStream::handshake() {
  for (;;) {
    ERR_clear_error();
    const int r = SSL_do_handshake(ssl_);
    if (r == 1) co_return Status::OK();
    Status st = co_await wait_for(r, "TLS handshake failed");
    if (!st.ok()) co_return st;
  }
}

asio::awaitable<Status> TlsStream::wait_for(int ssl_result, std::string_view what) {
  const int saved_errno = errno;
  const int error = SSL_get_error(ssl_, ssl_result);
  if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
    const auto kind = error == SSL_ERROR_WANT_READ ? asio::ip::tcp::socket::wait_read
                                                   : asio::ip::tcp::socket::wait_write;
    asio::error_code ec;
    co_await socket_.async_wait(kind, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return network(fmt::format("{}: {}", what, ec.message()));
    co_return Status::OK();
  }
  if (error == SSL_ERROR_ZERO_RETURN) {
    co_return network(fmt::format("{}: the peer closed the TLS session", what));
  }
  if (error == SSL_ERROR_SYSCALL) {
    std::string reason = take_openssl_errors();
    if (reason.empty()) {
      reason = saved_errno != 0 ? std::string(std::strerror(saved_errno))
                                : std::string("the connection closed");
    }
    co_return network(fmt::format("{}: {}", what, reason));
  }
  co_return network(fmt::format("{}: {}", what, ssl_failure(ssl_)));
}

// Linux leaves quick-ACK mode again by itself, so this is set before each wait it matters for;
// setting it sends an ACK that is pending. A connection in request/response rhythm is in the
// kernel's "pingpong" mode, where the ACK for a small segment waits for a response to ride on;
// mid-request there is no response yet.
void TlsStream::ack_now() {
  const int on = 1;
  ::setsockopt(socket_.native_handle(), IPPROTO_TCP, TCP_QUICKACK, &on, sizeof(on));
}

asio::awaitable<Result<size_t>> TlsStream::read_some(std::span<uint8_t> buf, bool mid_message) {
  MIRRA_ASSERT(!buf.empty(), "read_some into an empty buffer");
  for (;;) {
    ERR_clear_error();
    size_t n = 0;
    const int r = SSL_read_ex(ssl_, buf.data(), buf.size(), &n);
    if (r == 1) co_return n;
    const int error = SSL_get_error(ssl_, r);
    if (error == SSL_ERROR_ZERO_RETURN) co_return size_t{0};
    // Kafka clients close the TCP connection without a close_notify; the framing above knows
    // whether a message was cut short.
    if (error == SSL_ERROR_SSL &&
        ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
      ERR_clear_error();
      co_return size_t{0};
    }
    // OpenSSL read the socket dry (read_ahead), so the peer has nothing more in flight that
    // would make the kernel ACK soon by itself.
    if (mid_message && error == SSL_ERROR_WANT_READ) ack_now();
    Status st = co_await wait_for(r, "TLS read failed");
    if (!st.ok()) co_return st;
  }
}

asio::awaitable<Status> TlsStream::read_exact(std::span<uint8_t> buf) {
  size_t done = 0;
  while (done < buf.size()) {
    Result<size_t> n = co_await read_some(buf.subspan(done));
    if (!n.ok()) co_return n.status();
    if (n.value() == 0) co_return network("TLS read failed: the peer closed the connection");
    done += n.value();
  }
  co_return Status::OK();
}

asio::awaitable<Status> TlsStream::write_all(std::span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ERR_clear_error();
    size_t n = 0;
    // After WANT_WRITE OpenSSL expects the same bytes again: `done` has not moved.
    const int r = SSL_write_ex(ssl_, bytes.data() + done, bytes.size() - done, &n);
    if (r == 1) {
      done += n;
      continue;
    }
    Status st = co_await wait_for(r, "TLS write failed");
    if (!st.ok()) co_return st;
  }
  co_return Status::OK();
}

asio::awaitable<Status> TlsStream::send_file(int fd, off_t offset, size_t size) {
  if (kernel_tls_send()) {
    while (size > 0) {
      ERR_clear_error();
      const ossl_ssize_t n = SSL_sendfile(ssl_, fd, offset, size, 0);
      if (n > 0) {
        offset += static_cast<off_t>(n);
        size -= static_cast<size_t>(n);
        continue;
      }
      if (n == 0) co_return network("TLS sendfile: file shorter than the range");
      Status st = co_await wait_for(static_cast<int>(n), "TLS sendfile failed");
      if (!st.ok()) co_return st;
    }
    co_return Status::OK();
  }
  std::vector<uint8_t> chunk(std::min(size, kFileChunk));
  while (size > 0) {
    const ssize_t n = ::pread(fd, chunk.data(), std::min(size, chunk.size()), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) co_return network(fmt::format("TLS send_file: pread: {}", std::strerror(errno)));
    if (n == 0) co_return network("TLS send_file: file shorter than the range");
    Status st = co_await write_all(std::span<const uint8_t>(chunk.data(), static_cast<size_t>(n)));
    if (!st.ok()) co_return st;
    offset += static_cast<off_t>(n);
    size -= static_cast<size_t>(n);
  }
  co_return Status::OK();
}

std::optional<std::string> TlsStream::peer_subject() const {
  X509* cert = SSL_get0_peer_certificate(ssl_);
  // Only a certificate the handshake verified names a principal.
  if (cert == nullptr || SSL_get_verify_result(ssl_) != X509_V_OK) return std::nullopt;
  return rfc2253_name(X509_get_subject_name(cert));
}

std::string TlsStream::description() const {
  const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl_);
  return fmt::format("{} {}", SSL_get_version(ssl_),
                     cipher != nullptr ? SSL_CIPHER_get_name(cipher) : "(no cipher)");
}

bool TlsStream::kernel_tls_send() const { return BIO_get_ktls_send(SSL_get_wbio(ssl_)) != 0; }

}  // namespace mirra::security
