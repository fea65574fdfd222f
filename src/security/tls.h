// TLS with OpenSSL for both ends: the broker's SSL / SASL_SSL listeners and a mirror's link to
// its source. Settings use Kafka's ssl.* keys and meanings (docs/security.md).
//
// Threading: a TlsContext is immutable once made and may be shared by any threads; a TlsStream
// belongs to the thread that runs its socket's executor (the broker's core thread).
#pragma once

#include <sys/types.h>
#include <openssl/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/asio.h"
#include "base/status.h"

namespace mirra::security {

enum class ClientAuth { none, requested, required };

// Kafka's ssl.* settings of one side. Store types are "PEM" or "PKCS12" ("JKS", Kafka's
// default, is refused with a message saying how to convert); empty: told from the file's
// contents (PEM text or PKCS12).
struct TlsSettings {
  std::string keystore_type;
  std::string keystore_location;  // PEM: the private key and the certificate chain in one file
  std::string keystore_password;  // PKCS12 only
  std::string key_password;       // an encrypted private key (PEM or PKCS12)
  std::string keystore_certificate_chain;  // inline PEM, instead of a location
  std::string keystore_key;                // inline PEM (PKCS#8), instead of a location
  std::string truststore_type;
  std::string truststore_location;
  std::string truststore_password;            // PKCS12 only
  std::string truststore_certificates;        // inline PEM, instead of a location
  ClientAuth client_auth = ClientAuth::none;  // server side
  std::vector<std::string> enabled_protocols{"TLSv1.2", "TLSv1.3"};
  std::vector<std::string> cipher_suites;  // empty: OpenSSL's defaults
  // Client side: "https" (Kafka's default) checks the server's name against its certificate;
  // empty turns the check off.
  std::string endpoint_identification_algorithm = "https";

  bool has_keystore() const { return !keystore_location.empty() || !keystore_key.empty(); }
};

// Looks up one key (already resolved for listener prefixes by the caller); nullopt: not set.
using SettingLookup = std::function<std::optional<std::string>(std::string_view key)>;

// Every ssl.* key read_tls_settings() knows.
const std::vector<std::string_view>& tls_setting_keys();
// The ssl.* keys that hold secrets (never logged, never returned).
bool is_secret_tls_key(std::string_view key);

// Reads the ssl.* keys. INVALID_CONFIG naming the key for a bad value (never showing a
// secret's value).
Result<TlsSettings> read_tls_settings(const SettingLookup& get);

class TlsContext {
 public:
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  // A server context needs a keystore; a truststore is needed for client_auth other than none.
  // Files are read now: errors name the file and what is wrong with it.
  static Result<std::shared_ptr<TlsContext>> server(const TlsSettings& settings);
  // A client context: the truststore verifies the server (none: the system's default CAs);
  // a keystore, when set, is the client certificate for mutual TLS.
  static Result<std::shared_ptr<TlsContext>> client(const TlsSettings& settings);

  SSL_CTX* native() const { return ctx_; }
  bool is_server() const { return server_; }
  bool check_host() const { return check_host_; }
  ClientAuth client_auth() const { return client_auth_; }

 private:
  TlsContext(SSL_CTX* ctx, bool server) : ctx_(ctx), server_(server) {}
  SSL_CTX* ctx_;
  bool server_;
  bool check_host_ = false;
  ClientAuth client_auth_ = ClientAuth::none;
};

// One TLS session over a connected, non-blocking asio TCP socket: OpenSSL reads and writes the
// descriptor itself (a socket BIO, so kernel TLS can take over where the kernel has it) and the
// coroutine waits on the socket whenever OpenSSL wants to read or write. A read and a write may
// be in progress at once (the connection's two loops), never two of one kind.
class TlsStream {
 public:
  TlsStream(std::shared_ptr<TlsContext> context, asio::ip::tcp::socket& socket);
  ~TlsStream();
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  // The handshake, as the server or as a client of `host` (SNI, and the name checked against
  // the certificate when the context checks host names). Errors say why (untrusted
  // certificate, no client certificate, protocol mismatch).
  asio::awaitable<Status> accept();
  asio::awaitable<Status> connect(std::string host);

  // Up to buf.size() bytes; 0 means the peer closed the session. `mid_message`: the caller
  // has part of a message and waits for the rest. Before waiting, the bytes that arrived are
  // then acknowledged at once (TCP_QUICKACK) rather than after the kernel's delayed-ACK timer
  // (40 ms): a peer with Nagle on that wrote its message as several TLS records (librdkafka
  // does, and its socket.nagle.disable was false by default) holds the last small record
  // until that ACK comes.
  asio::awaitable<Result<size_t>> read_some(std::span<uint8_t> buf, bool mid_message = false);
  asio::awaitable<Status> read_exact(std::span<uint8_t> buf);
  asio::awaitable<Status> write_all(std::span<const uint8_t> bytes);
  // `size` bytes of file `fd` from `offset`: SSL_sendfile when the kernel does TLS for this
  // session (zero copy), else read in chunks and written through OpenSSL.
  asio::awaitable<Status> send_file(int fd, off_t offset, size_t size);

  // The verified peer certificate's subject (rfc2253_name), nullopt without one.
  std::optional<std::string> peer_subject() const;
  // "TLSv1.3 TLS_AES_256_GCM_SHA384", for logs.
  std::string description() const;
  bool kernel_tls_send() const;

 private:
  asio::awaitable<Status> handshake();
  // Waits until OpenSSL's last call can make progress (SSL_ERROR_WANT_READ/WRITE), or returns
  // the error it reported.
  asio::awaitable<Status> wait_for(int ssl_result, std::string_view what);
  // Sends the ACK the kernel is delaying, if any (best effort: a failure only costs latency).
  void ack_now();

  std::shared_ptr<TlsContext> context_;
  asio::ip::tcp::socket& socket_;
  SSL* ssl_ = nullptr;
};

}  // namespace mirra::security
