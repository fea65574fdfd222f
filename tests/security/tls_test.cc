// TLS settings, contexts and streams: real handshakes between a server and a client stream on
// loopback, with certificates made by the openssl command line (test_certs.h).
#include "security/tls.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "test_certs.h"

namespace mirra::security {
namespace {

using testing::TestCerts;
using tcp = asio::ip::tcp;

template <typename T>
T must(Result<T> r) {
  if (!r.ok()) throw std::runtime_error(r.status().to_string());
  return std::move(r).value();
}

std::shared_ptr<TlsContext> server_context(const TlsSettings& s) {
  return must(TlsContext::server(s));
}
std::shared_ptr<TlsContext> client_context(const TlsSettings& s) {
  return must(TlsContext::client(s));
}

template <typename T>
asio::awaitable<void> store(asio::awaitable<T> op, std::shared_ptr<std::optional<T>> out) {
  out->emplace(co_await std::move(op));
}

uint8_t pattern_byte(size_t pos, uint8_t seed) {
  return static_cast<uint8_t>((pos ^ (pos >> 8) ^ (pos >> 16)) * 31 + seed);
}

asio::awaitable<Status> write_pattern(TlsStream& s, size_t total, uint8_t seed) {
  std::vector<uint8_t> chunk(200 * 1024);
  for (size_t pos = 0; pos < total;) {
    const size_t n = std::min(chunk.size(), total - pos);
    for (size_t i = 0; i < n; ++i) chunk[i] = pattern_byte(pos + i, seed);
    Status st = co_await s.write_all(std::span<const uint8_t>(chunk.data(), n));
    if (!st.ok()) co_return st;
    pos += n;
  }
  co_return Status::OK();
}

asio::awaitable<Status> read_pattern(TlsStream& s, size_t total, uint8_t seed) {
  std::vector<uint8_t> buf(70 * 1024);
  for (size_t pos = 0; pos < total;) {
    const size_t want = std::min(buf.size(), total - pos);
    Result<size_t> n = co_await s.read_some(std::span<uint8_t>(buf.data(), want));
    if (!n.ok()) co_return n.status();
    if (n.value() == 0) co_return Status(ErrorCode::NETWORK_EXCEPTION, "closed early");
    for (size_t i = 0; i < n.value(); ++i) {
      if (buf[i] != pattern_byte(pos + i, seed)) {
        co_return Status(ErrorCode::CORRUPT_MESSAGE, fmt::format("wrong byte at {}", pos + i));
      }
    }
    pos += n.value();
  }
  co_return Status::OK();
}

// Reads buf.size() bytes as the broker reads a request: every read after the first is
// mid-message. `received` says how far it got.
asio::awaitable<Status> read_message(TlsStream& s, std::span<uint8_t> buf, size_t& received) {
  while (received < buf.size()) {
    Result<size_t> n = co_await s.read_some(buf.subspan(received), received > 0);
    if (!n.ok()) co_return n.status();
    if (n.value() == 0) co_return Status(ErrorCode::NETWORK_EXCEPTION, "closed early");
    received += n.value();
  }
  co_return Status::OK();
}

// How many segments the kernel has sent on `fd` (TCP_INFO's tcpi_segs_out, Linux 4.2). glibc's
// struct tcp_info ends before it; the kernel's struct only grows, and after glibc's last field
// come four 64-bit counters, then this one.
uint32_t segments_sent(int fd) {
  static_assert(sizeof(tcp_info) == 104,
                "glibc's struct tcp_info changed: find tcpi_segs_out anew");
  struct Info {
    tcp_info glibc;
    uint64_t pacing_rate, max_pacing_rate, bytes_acked, bytes_received;
    uint32_t segs_out;
  } info{};
  socklen_t len = sizeof(info);
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0 ||
      len < offsetof(Info, segs_out) + sizeof(info.segs_out)) {
    throw std::runtime_error("TCP_INFO without tcpi_segs_out");
  }
  return info.segs_out;
}

// Two connected loopback sockets and the io_context that runs both ends' coroutines.
class TlsLoopback : public ::testing::Test {
 protected:
  void SetUp() override {
    ::signal(SIGPIPE, SIG_IGN);  // as the broker: OpenSSL's send(2) to a closed peer
    tcp::acceptor acceptor(io_, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    client_socket_.connect(acceptor.local_endpoint());
    acceptor.accept(server_socket_);
  }

  template <typename T>
  std::shared_ptr<std::optional<T>> spawn(asio::awaitable<T> op) {
    auto out = std::make_shared<std::optional<T>>();
    asio::co_spawn(io_, store(std::move(op), out), asio::detached);
    return out;
  }

  // Runs the io_context until `done` holds; false after 30 s.
  template <typename Pred>
  bool run_until(Pred done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      // Out of work stops the io_context; a later spawn needs it running again.
      if (io_.run_one_for(std::chrono::milliseconds(100)) == 0 && io_.stopped()) io_.restart();
    }
    return true;
  }

  template <typename T>
  T run(asio::awaitable<T> op) {
    auto out = spawn(std::move(op));
    if (!run_until([&] { return out->has_value(); })) throw std::runtime_error("timed out");
    return std::move(**out);
  }

  // Both handshakes at once; the streams stay for the test to use.
  std::pair<Status, Status> handshake(std::shared_ptr<TlsContext> server_ctx,
                                      std::shared_ptr<TlsContext> client_ctx,
                                      std::string host = "localhost") {
    server_ = std::make_unique<TlsStream>(std::move(server_ctx), server_socket_);
    client_ = std::make_unique<TlsStream>(std::move(client_ctx), client_socket_);
    auto accepted = spawn(server_->accept());
    auto connected = spawn(client_->connect(host));
    if (!run_until([&] { return accepted->has_value() && connected->has_value(); })) {
      throw std::runtime_error("handshake timed out");
    }
    return {**accepted, **connected};
  }

  void expect_handshake(std::shared_ptr<TlsContext> server_ctx,
                        std::shared_ptr<TlsContext> client_ctx, std::string host = "localhost") {
    auto [server, client] = handshake(std::move(server_ctx), std::move(client_ctx), host);
    ASSERT_TRUE(server.ok()) << server.to_string();
    ASSERT_TRUE(client.ok()) << client.to_string();
    expect_echo();
  }

  // A message each way, after the handshake (a TLS 1.3 client learns of a refused client
  // certificate only here).
  void expect_echo() {
    std::vector<uint8_t> hello{'h', 'e', 'l', 'l', 'o'};
    std::vector<uint8_t> got(hello.size());
    auto read = spawn(server_->read_exact(got));
    ASSERT_TRUE(run(client_->write_all(hello)).ok());
    ASSERT_TRUE(run_until([&] { return read->has_value(); }));
    ASSERT_TRUE((*read)->ok()) << (*read)->to_string();
    EXPECT_EQ(got, hello);
    std::vector<uint8_t> back(hello.size());
    auto reply = spawn(client_->read_exact(back));
    ASSERT_TRUE(run(server_->write_all(got)).ok());
    ASSERT_TRUE(run_until([&] { return reply->has_value(); }));
    ASSERT_TRUE((*reply)->ok()) << (*reply)->to_string();
    EXPECT_EQ(back, hello);
  }

  // The client's first read after a handshake the server refused late (TLS 1.3).
  Status client_read_status() {
    std::vector<uint8_t> buf(16);
    Result<size_t> n = run(client_->read_some(buf));
    if (!n.ok()) return n.status();
    return n.value() == 0 ? Status(ErrorCode::NETWORK_EXCEPTION, "closed") : Status::OK();
  }

  const TestCerts& certs_ = TestCerts::get();
  asio::io_context io_;
  tcp::socket server_socket_{io_};
  tcp::socket client_socket_{io_};
  std::unique_ptr<TlsStream> server_;
  std::unique_ptr<TlsStream> client_;
};

TEST_F(TlsLoopback, EchoRoundTrip) {
  expect_handshake(server_context(certs_.server_settings()),
                   client_context(certs_.client_settings()));
  EXPECT_EQ(server_->description().rfind("TLSv1.3 TLS_", 0), 0u) << server_->description();
  EXPECT_EQ(server_->peer_subject(), std::nullopt);
  EXPECT_EQ(client_->peer_subject(), "CN=localhost");
}

TEST_F(TlsLoopback, LargeTransfersBothWaysAtOnce) {
  expect_handshake(server_context(certs_.server_settings()),
                   client_context(certs_.client_settings()));
  // Far more than the sockets buffer: every writer waits for its peer's reader, which runs
  // beside the same stream's writer.
  constexpr size_t kSize = 8 * 1024 * 1024;
  auto server_write = spawn(write_pattern(*server_, kSize, 1));
  auto client_write = spawn(write_pattern(*client_, kSize, 2));
  auto server_read = spawn(read_pattern(*server_, kSize, 2));
  auto client_read = spawn(read_pattern(*client_, kSize, 1));
  ASSERT_TRUE(run_until([&] {
    return server_write->has_value() && client_write->has_value() && server_read->has_value() &&
           client_read->has_value();
  }));
  for (auto* st : {&**server_write, &**client_write, &**server_read, &**client_read}) {
    EXPECT_TRUE(st->ok()) << st->to_string();
  }
}

TEST_F(TlsLoopback, SendFile) {
  expect_handshake(server_context(certs_.server_settings()),
                   client_context(certs_.client_settings()));
  std::string path = certs_.path("send-file-XXXXXX");
  const int fd = ::mkstemp(path.data());
  ASSERT_GE(fd, 0);
  std::vector<uint8_t> contents(1'000'000 + 12'345);
  for (size_t i = 0; i < contents.size(); ++i) contents[i] = pattern_byte(i, 7);
  ASSERT_EQ(::write(fd, contents.data(), contents.size()), static_cast<ssize_t>(contents.size()));
  // Not page aligned, longer than one chunk, shorter than the file.
  constexpr off_t kOffset = 1'001;
  constexpr size_t kSize = 900'000;
  std::vector<uint8_t> got(kSize);
  auto read = spawn(client_->read_exact(got));
  Status sent = run(server_->send_file(fd, kOffset, kSize));
  ::close(fd);
  ::unlink(path.c_str());
  ASSERT_TRUE(sent.ok()) << sent.to_string();
  ASSERT_TRUE(run_until([&] { return read->has_value(); }));
  ASSERT_TRUE((*read)->ok()) << (*read)->to_string();
  EXPECT_TRUE(std::equal(got.begin(), got.end(), contents.begin() + kOffset));
  std::printf("kernel TLS send on this machine: %s\n", server_->kernel_tls_send() ? "yes" : "no");
}

// A client with Nagle on that writes a request as two TLS records sends the second, small one
// only once the first is acknowledged. A server in request/response rhythm delays that ACK
// (40 ms) for a response to carry it; mid-request there is none, so the reader must ACK before
// it waits. Timing-free: the ACK is sent by the read itself, the delayed one only by a timer.
TEST_F(TlsLoopback, MidMessageReadAcknowledgesBeforeWaiting) {
  expect_handshake(server_context(certs_.server_settings()),
                   client_context(certs_.client_settings()));
  const int server_fd = server_socket_.native_handle();
  // The kernel's request/response ("pingpong") mode, as on a broker's busy connection.
  const int off = 0;
  ASSERT_EQ(::setsockopt(server_fd, IPPROTO_TCP, TCP_QUICKACK, &off, sizeof(off)), 0);
  // A head well below a segment, so the kernel has no size reason to ACK it at once.
  const std::vector<uint8_t> head(100, 'h');
  const std::vector<uint8_t> tail(20, 't');
  std::vector<uint8_t> got(head.size() + tail.size());
  size_t received = 0;
  auto read = spawn(read_message(*server_, got, received));
  const uint32_t sent_before = segments_sent(server_fd);
  ASSERT_TRUE(run(client_->write_all(head)).ok());
  // The read that took the head has already tried for more and is waiting on the socket.
  ASSERT_TRUE(run_until([&] { return received >= head.size(); }));
  EXPECT_GT(segments_sent(server_fd), sent_before) << "the head was not acknowledged";
  ASSERT_TRUE(run(client_->write_all(tail)).ok());
  ASSERT_TRUE(run_until([&] { return read->has_value(); }));
  ASSERT_TRUE((*read)->ok()) << (*read)->to_string();
  std::vector<uint8_t> want = head;
  want.insert(want.end(), tail.begin(), tail.end());
  EXPECT_EQ(got, want);
}

TEST_F(TlsLoopback, ClientAuthRequiredWithoutCertificateFailsOnBothSides) {
  auto [server, client] = handshake(server_context(certs_.server_settings(ClientAuth::required)),
                                    client_context(certs_.client_settings()));
  EXPECT_EQ(server.to_string(),
            "NETWORK_EXCEPTION: TLS handshake failed: peer did not return a certificate");
  // TLS 1.3: the client's handshake ends before the server has seen its (missing) certificate.
  if (client.ok()) client = client_read_status();
  EXPECT_FALSE(client.ok());
  EXPECT_NE(client.message().find("certificate required"), std::string::npos) << client.message();
}

TEST_F(TlsLoopback, ClientAuthRequiredWithCertificateNamesThePeer) {
  expect_handshake(server_context(certs_.server_settings(ClientAuth::required)),
                   client_context(certs_.client_settings_with_cert()));
  EXPECT_EQ(server_->peer_subject(), std::string(testing::kClientDn));
}

TEST_F(TlsLoopback, ClientAuthRequestedWithoutCertificateSucceeds) {
  expect_handshake(server_context(certs_.server_settings(ClientAuth::requested)),
                   client_context(certs_.client_settings()));
  EXPECT_EQ(server_->peer_subject(), std::nullopt);
}

TEST_F(TlsLoopback, UntrustedClientCertificateIsRefused) {
  TlsSettings client = certs_.client_settings();
  client.keystore_location = certs_.path("rogue-keystore.pem");
  auto [server_st, client_st] = handshake(
      server_context(certs_.server_settings(ClientAuth::requested)), client_context(client));
  EXPECT_EQ(server_st.message(),
            "TLS handshake failed: certificate verify failed: unable to get local issuer "
            "certificate");
  if (client_st.ok()) client_st = client_read_status();
  EXPECT_FALSE(client_st.ok());
}

TEST_F(TlsLoopback, UntrustedServerCertificateFailsClearly) {
  TlsSettings server = certs_.server_settings();
  server.keystore_location = certs_.path("rogue-keystore.pem");
  auto [server_st, client_st] =
      handshake(server_context(server), client_context(certs_.client_settings()));
  EXPECT_EQ(client_st.to_string(),
            "NETWORK_EXCEPTION: TLS handshake failed: certificate verify failed: unable to get "
            "local issuer certificate");
  EXPECT_FALSE(server_st.ok());
}

TEST_F(TlsLoopback, HostNameMismatchFails) {
  auto [server_st, client_st] = handshake(server_context(certs_.server_settings()),
                                          client_context(certs_.client_settings()),
                                          "mirra.invalid");
  EXPECT_EQ(client_st.message(),
            "TLS handshake failed: certificate verify failed: hostname mismatch");
  EXPECT_FALSE(server_st.ok());
}

TEST_F(TlsLoopback, IpAddressMismatchFails) {
  auto [server_st, client_st] = handshake(server_context(certs_.server_settings()),
                                          client_context(certs_.client_settings()), "127.0.0.2");
  EXPECT_EQ(client_st.message(),
            "TLS handshake failed: certificate verify failed: IP address mismatch");
}

TEST_F(TlsLoopback, IpAddressInTheCertificateMatches) {
  expect_handshake(server_context(certs_.server_settings()),
                   client_context(certs_.client_settings()), "127.0.0.1");
}

TEST_F(TlsLoopback, HostNameNotCheckedWithoutEndpointIdentification) {
  TlsSettings client = certs_.client_settings();
  client.endpoint_identification_algorithm = "";
  expect_handshake(server_context(certs_.server_settings()), client_context(client),
                   "mirra.invalid");
}

TEST_F(TlsLoopback, Pkcs12KeystoreAndTruststore) {
  TlsSettings server = certs_.server_settings();
  server.keystore_location = certs_.path("server.p12");
  server.keystore_password = testing::kP12Password;
  TlsSettings client = certs_.client_settings();
  client.truststore_location = certs_.path("truststore.p12");
  client.truststore_type = "PKCS12";
  client.truststore_password = testing::kTrustPassword;
  expect_handshake(server_context(server), client_context(client));
}

TEST_F(TlsLoopback, InlinePem) {
  TlsSettings server;
  server.keystore_key = certs_.read("server.key");
  server.keystore_certificate_chain = certs_.read("server.crt");
  server.truststore_certificates = certs_.read("ca.crt");
  server.client_auth = ClientAuth::required;
  TlsSettings client;
  client.truststore_certificates = certs_.read("ca.crt");
  client.keystore_key = certs_.read("client.key");
  client.keystore_certificate_chain = certs_.read("client.crt");
  expect_handshake(server_context(server), client_context(client));
  EXPECT_EQ(server_->peer_subject(), std::string(testing::kClientDn));
}

TEST_F(TlsLoopback, EncryptedKey) {
  TlsSettings server = certs_.server_settings();
  server.keystore_location = certs_.path("server-encrypted-keystore.pem");
  server.key_password = testing::kKeyPassword;
  expect_handshake(server_context(server), client_context(certs_.client_settings()));
}

TEST_F(TlsLoopback, Tls12OnlyServerAndTls13OnlyClientFail) {
  TlsSettings server = certs_.server_settings();
  server.enabled_protocols = {"TLSv1.2"};
  TlsSettings client = certs_.client_settings();
  client.enabled_protocols = {"TLSv1.3"};
  auto [server_st, client_st] = handshake(server_context(server), client_context(client));
  EXPECT_FALSE(server_st.ok());
  EXPECT_NE(server_st.message().find("unsupported protocol"), std::string::npos)
      << server_st.message();
  EXPECT_NE(client_st.message().find("protocol version"), std::string::npos) << client_st.message();
}

TEST_F(TlsLoopback, CipherSuitesInIanaSpelling) {
  TlsSettings server = certs_.server_settings();
  server.cipher_suites = {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"};  // TLS 1.2 only then
  expect_handshake(server_context(server), client_context(certs_.client_settings()));
  EXPECT_EQ(client_->description(), "TLSv1.2 ECDHE-ECDSA-AES128-GCM-SHA256");
}

TEST_F(TlsLoopback, Tls13CipherSuite) {
  TlsSettings server = certs_.server_settings();
  server.cipher_suites = {"TLS_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384"};
  expect_handshake(server_context(server), client_context(certs_.client_settings()));
  EXPECT_EQ(client_->description(), "TLSv1.3 TLS_CHACHA20_POLY1305_SHA256");
}

// Context errors: INVALID_CONFIG naming the key and the file, never a password.

void expect_invalid(const Result<std::shared_ptr<TlsContext>>& r, std::string_view contains,
                    std::string_view secret = {}) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::INVALID_CONFIG);
  EXPECT_NE(r.status().message().find(contains), std::string::npos) << r.status().message();
  if (!secret.empty()) {
    EXPECT_EQ(r.status().message().find(secret), std::string::npos) << r.status().message();
  }
}

TEST(TlsContextErrors, Pkcs12WrongPassword) {
  const TestCerts& certs = TestCerts::get();
  TlsSettings s = certs.server_settings();
  s.keystore_location = certs.path("server.p12");
  s.keystore_password = "not-the-p12-password";
  expect_invalid(TlsContext::server(s),
                 fmt::format("ssl.keystore.location {}: cannot open the PKCS12 store (wrong "
                             "ssl.keystore.password?): mac verify failure",
                             s.keystore_location),
                 s.keystore_password);
}

TEST(TlsContextErrors, EncryptedKeyWithoutOrWithWrongPassword) {
  const TestCerts& certs = TestCerts::get();
  TlsSettings s = certs.server_settings();
  s.keystore_location = certs.path("server-encrypted-keystore.pem");
  expect_invalid(TlsContext::server(s), "the private key is encrypted: set ssl.key.password");
  s.key_password = "not-the-key-password";
  expect_invalid(TlsContext::server(s), "cannot decrypt the private key (wrong ssl.key.password?)",
                 s.key_password);
}

TEST(TlsContextErrors, MissingFiles) {
  const TestCerts& certs = TestCerts::get();
  TlsSettings s = certs.server_settings();
  s.keystore_location = certs.path("nothing.pem");
  expect_invalid(TlsContext::server(s), fmt::format("ssl.keystore.location {}: cannot read: No "
                                                    "such file or directory",
                                                    s.keystore_location));
  TlsSettings c = certs.client_settings();
  c.truststore_location = certs.path("nothing.crt");
  expect_invalid(TlsContext::client(c), "ssl.truststore.location " + c.truststore_location);
}

TEST(TlsContextErrors, JksContentsRefusedWithHowToConvert) {
  const TestCerts& certs = TestCerts::get();
  const std::string path = certs.path("store.jks");
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    const unsigned char jks[] = {0xFE, 0xED, 0xFE, 0xED, 0, 0, 0, 2, 0, 0, 0, 0};
    std::fwrite(jks, 1, sizeof(jks), f);
    std::fclose(f);
  }
  TlsSettings s = certs.client_settings();
  s.truststore_location = path;
  expect_invalid(TlsContext::client(s), "-deststoretype PKCS12");
}

TEST(TlsContextErrors, ServerNeedsKeystoreAndTruststoreForClientAuth) {
  const TestCerts& certs = TestCerts::get();
  expect_invalid(TlsContext::server(TlsSettings{}), "needs a keystore");
  TlsSettings s = certs.server_settings(ClientAuth::required);
  s.truststore_location.clear();
  expect_invalid(TlsContext::server(s), "needs a truststore");
}

TEST(TlsContextErrors, KeyNotMatchingCertificate) {
  const TestCerts& certs = TestCerts::get();
  TlsSettings s;
  s.keystore_key = certs.read("client.key");
  s.keystore_certificate_chain = certs.read("server.crt");
  expect_invalid(TlsContext::server(s),
                 "ssl.keystore.certificate.chain: the private key does not match");
}

TEST(TlsContextErrors, UnknownCipherSuite) {
  TlsSettings s = TestCerts::get().client_settings();
  s.cipher_suites = {"TLS_NO_SUCH_CIPHER"};
  expect_invalid(TlsContext::client(s),
                 "ssl.cipher.suites: unknown cipher suite TLS_NO_SUCH_CIPHER");
}

// read_tls_settings

Result<TlsSettings> read(std::map<std::string, std::string> values) {
  return read_tls_settings([values](std::string_view key) -> std::optional<std::string> {
    auto it = values.find(std::string(key));
    if (it == values.end()) return std::nullopt;
    return it->second;
  });
}

TEST(ReadTlsSettings, Defaults) {
  TlsSettings s = must(read({}));
  EXPECT_EQ(s.client_auth, ClientAuth::none);
  EXPECT_EQ(s.enabled_protocols, (std::vector<std::string>{"TLSv1.2", "TLSv1.3"}));
  EXPECT_EQ(s.endpoint_identification_algorithm, "https");
  EXPECT_FALSE(s.has_keystore());
}

TEST(ReadTlsSettings, KafkaKeys) {
  TlsSettings s =
      must(read({{"ssl.keystore.type", "pkcs12"},
                 {"ssl.keystore.location", "/k.p12"},
                 {"ssl.keystore.password", "pw"},
                 {"ssl.truststore.type", "PEM"},
                 {"ssl.truststore.location", "/ca.crt"},
                 {"ssl.client.auth", "required"},
                 {"ssl.enabled.protocols", " TLSv1.3 "},
                 {"ssl.cipher.suites", "TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384"},
                 {"ssl.endpoint.identification.algorithm", ""}}));
  EXPECT_EQ(s.keystore_type, "PKCS12");
  EXPECT_EQ(s.keystore_location, "/k.p12");
  EXPECT_EQ(s.keystore_password, "pw");
  EXPECT_EQ(s.truststore_type, "PEM");
  EXPECT_EQ(s.client_auth, ClientAuth::required);
  EXPECT_EQ(s.enabled_protocols, (std::vector<std::string>{"TLSv1.3"}));
  EXPECT_EQ(s.cipher_suites,
            (std::vector<std::string>{"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384"}));
  EXPECT_EQ(s.endpoint_identification_algorithm, "");
}

void expect_refused(std::map<std::string, std::string> values, std::string_view contains) {
  auto r = read(std::move(values));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::INVALID_CONFIG);
  EXPECT_NE(r.status().message().find(contains), std::string::npos) << r.status().message();
}

TEST(ReadTlsSettings, BadValues) {
  expect_refused({{"ssl.keystore.type", "JKS"}},
                 "ssl.keystore.type=JKS is not supported: convert the store to PKCS12 (keytool "
                 "-importkeystore");
  expect_refused({{"ssl.truststore.type", "BKS"}}, "ssl.truststore.type=BKS is not supported");
  expect_refused({{"ssl.client.auth", "always"}}, "ssl.client.auth=always is not valid");
  expect_refused({{"ssl.enabled.protocols", "TLSv1.2,TLSv1.1"}},
                 "ssl.enabled.protocols: TLSv1.1 is not supported");
  expect_refused({{"ssl.enabled.protocols", "TLSv1"}}, "TLSv1 is not supported");
  expect_refused({{"ssl.enabled.protocols", ","}}, "ssl.enabled.protocols is empty");
  expect_refused({{"ssl.endpoint.identification.algorithm", "ldap"}},
                 "ssl.endpoint.identification.algorithm=ldap is not valid");
  expect_refused({{"ssl.keystore.location", "/a.pem"},
                  {"ssl.keystore.key", "x"},
                  {"ssl.keystore.certificate.chain", "y"}},
                 "both set");
  expect_refused({{"ssl.keystore.key", "secret-key-text"}}, "go together");
}

TEST(ReadTlsSettings, SecretKeys) {
  for (std::string_view key : {"ssl.keystore.password", "ssl.key.password",
                               "ssl.truststore.password", "ssl.keystore.key"}) {
    EXPECT_TRUE(is_secret_tls_key(key)) << key;
  }
  EXPECT_FALSE(is_secret_tls_key("ssl.keystore.location"));
  EXPECT_FALSE(is_secret_tls_key("ssl.truststore.certificates"));
  for (std::string_view key : tls_setting_keys()) EXPECT_EQ(key.rfind("ssl.", 0), 0u) << key;
  EXPECT_EQ(tls_setting_keys().size(), 14u);
}

}  // namespace
}  // namespace mirra::security
