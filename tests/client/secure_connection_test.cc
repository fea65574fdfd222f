// BrokerConnection over TLS and SASL against an in-test broker made of the broker's own parts
// (security::TlsStream::accept, security::SaslServer with PLAIN users and SCRAM credentials):
// the handshakes in the order Kafka's clients use, and failures that say what failed without
// showing a secret.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "client/broker_connection.h"
#include "protocol/frame.h"
#include "protocol/messages/all_messages.h"
#include "protocol/records/byte_order.h"
#include "security/sasl.h"
#include "security/scram.h"
#include "security/tls.h"
#include "test_certs.h"

namespace mirra::client {
namespace {

using security::testing::TestCerts;
using tcp = asio::ip::tcp;

constexpr std::string_view kUser = "mirror";
constexpr std::string_view kPassword = "mirror-secret-pw";

template <typename T>
T run(asio::io_context& io, asio::awaitable<T> op) {
  std::optional<T> out;
  auto store = [&out](asio::awaitable<T> inner) -> asio::awaitable<void> {
    out.emplace(co_await std::move(inner));
  };
  asio::co_spawn(io, store(std::move(op)), asio::detached);
  while (!out) {
    if (io.run_one() == 0) io.restart();
  }
  return std::move(*out);
}

// Accepts connections on 127.0.0.1; each: the TLS handshake (with a context), then ApiVersions,
// SaslHandshake and SaslAuthenticate answered as a Kafka broker does.
class SecureFakeBroker {
 public:
  SecureFakeBroker(asio::io_context& io, std::shared_ptr<security::TlsContext> tls,
                   std::vector<std::string> mechanisms)
      : acceptor_(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)),
        tls_(std::move(tls)),
        mechanisms_(std::move(mechanisms)) {
    users_.plain = {{std::string(kUser), std::string(kPassword)}};
    users_.scram = [](const std::string& user, security::ScramMechanism m) {
      if (user != kUser) return std::optional<security::ScramCredential>();
      const std::string salt = "fixed-test-salt";
      const std::string salted = security::scram_salted_password(m, kPassword, salt, 4096);
      return std::optional<security::ScramCredential>(
          security::scram_credential(m, salted, salt, 4096));
    };
    asio::co_spawn(acceptor_.get_executor(), accept_loop(), asio::detached);
  }

  uint16_t port() const { return acceptor_.local_endpoint().port(); }
  std::vector<std::string> authenticated;  // authorization ids, in order
  std::vector<std::string> peer_subjects;  // verified client certificates
  std::vector<std::string> tls_failures;
  int requests_after_auth = 0;

 private:
  asio::awaitable<void> accept_loop() {
    for (;;) {
      asio::error_code ec;
      tcp::socket s =
          co_await acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return;
      auto owned = std::make_shared<tcp::socket>(std::move(s));
      asio::co_spawn(acceptor_.get_executor(), serve(owned), asio::detached);
    }
  }

  asio::awaitable<Status> read(security::TlsStream* tls, tcp::socket& s, std::span<uint8_t> b) {
    if (tls != nullptr) co_return co_await tls->read_exact(b);
    asio::error_code ec;
    co_await asio::async_read(s, asio::buffer(b.data(), b.size()),
                              asio::redirect_error(asio::use_awaitable, ec));
    co_return ec ? Status(ErrorCode::NETWORK_EXCEPTION, ec.message()) : Status::OK();
  }

  asio::awaitable<Status> write(security::TlsStream* tls, tcp::socket& s,
                                const protocol::Bytes& frame) {
    if (tls != nullptr) co_return co_await tls->write_all(frame);
    asio::error_code ec;
    co_await asio::async_write(s, asio::buffer(frame),
                               asio::redirect_error(asio::use_awaitable, ec));
    co_return ec ? Status(ErrorCode::NETWORK_EXCEPTION, ec.message()) : Status::OK();
  }

  asio::awaitable<void> serve(std::shared_ptr<tcp::socket> socket) {
    std::unique_ptr<security::TlsStream> tls;
    if (tls_ != nullptr) {
      tls = std::make_unique<security::TlsStream>(tls_, *socket);
      Status s = co_await tls->accept();
      if (!s.ok()) {
        tls_failures.push_back(s.message());
        co_return;
      }
      if (auto subject = tls->peer_subject()) peer_subjects.push_back(*subject);
    }
    std::unique_ptr<security::SaslServer> sasl;
    bool done = false;
    for (;;) {
      uint8_t prefix[4];
      if (!(co_await read(tls.get(), *socket, prefix)).ok()) co_return;
      protocol::Bytes frame(records::load_be32(prefix));
      if (!(co_await read(tls.get(), *socket, frame)).ok()) co_return;
      auto env = protocol::decode_request_envelope(frame);
      if (!env.ok()) co_return;
      const int16_t key = env->header.request_api_key;
      const int16_t version = env->header.request_api_version;
      const int32_t id = env->header.correlation_id;
      protocol::Reader r(env->body);
      protocol::Bytes out;
      bool close_after = false;
      if (key == protocol::kApiVersionsKey) {
        protocol::ApiVersionsResponse resp;
        for (auto [k, lo, hi] :
             {std::tuple<int16_t, int16_t, int16_t>{protocol::kApiVersionsKey, 0, 3},
              {protocol::SaslHandshakeRequest::kApiKey, 0, 1},
              {protocol::SaslAuthenticateRequest::kApiKey, 0, 2}}) {
          protocol::ApiVersionsResponse::ApiVersion v;
          v.api_key = k;
          v.min_version = lo;
          v.max_version = hi;
          resp.api_keys.push_back(v);
        }
        out = protocol::encode_response_frame(id, version, resp);
        if (done) ++requests_after_auth;
      } else if (key == protocol::SaslHandshakeRequest::kApiKey) {
        protocol::SaslHandshakeRequest req;
        if (!req.decode(r, version).ok()) co_return;
        protocol::SaslHandshakeResponse resp;
        resp.mechanisms = mechanisms_;
        const bool enabled = std::find(mechanisms_.begin(), mechanisms_.end(), req.mechanism) !=
                             mechanisms_.end();
        if (enabled) {
          sasl = std::move(security::SaslServer::make(req.mechanism, users_).value());
        } else {
          resp.error_code = error_number(ErrorCode::UNSUPPORTED_SASL_MECHANISM);
          close_after = true;
        }
        out = protocol::encode_response_frame(id, version, resp);
      } else if (key == protocol::SaslAuthenticateRequest::kApiKey && sasl != nullptr) {
        protocol::SaslAuthenticateRequest req;
        if (!req.decode(r, version).ok()) co_return;
        protocol::SaslAuthenticateResponse resp;
        auto token = sasl->step(std::string_view(
            reinterpret_cast<const char*>(req.auth_bytes.data()), req.auth_bytes.size()));
        if (!token.ok()) {
          resp.error_code = error_number(token.status().code());
          resp.error_message = token.status().message();
          close_after = true;
        } else {
          resp.auth_bytes.assign(token->begin(), token->end());
          if (sasl->complete()) {
            done = true;
            authenticated.push_back(sasl->authorization_id());
          }
        }
        out = protocol::encode_response_frame(id, version, resp);
      } else {
        co_return;  // anything else before authentication: Kafka closes the connection
      }
      if (!(co_await write(tls.get(), *socket, out)).ok() || close_after) co_return;
    }
  }

  tcp::acceptor acceptor_;
  std::shared_ptr<security::TlsContext> tls_;
  std::vector<std::string> mechanisms_;
  security::SaslUsers users_;
};

std::shared_ptr<security::TlsContext> server_tls(security::ClientAuth auth) {
  return security::TlsContext::server(TestCerts::get().server_settings(auth)).value();
}

ConnectionOptions options(SecurityProtocol protocol, security::TlsSettings tls,
                          std::string mechanism, std::string password) {
  ConnectionOptions o;
  o.connect_timeout = std::chrono::milliseconds(5000);
  o.request_timeout = std::chrono::milliseconds(5000);
  o.security.protocol = protocol;
  o.security.tls = std::move(tls);
  o.security.sasl_mechanism = std::move(mechanism);
  o.security.sasl_username = std::string(kUser);
  o.security.sasl_password = std::move(password);
  EXPECT_TRUE(prepare_client_security(o.security).ok());
  return o;
}

Result<std::shared_ptr<BrokerConnection>> connect(asio::io_context& io,
                                                  const SecureFakeBroker& broker,
                                                  ConnectionOptions o) {
  return run(io, BrokerConnection::connect(io.get_executor(), "127.0.0.1", broker.port(), o));
}

TEST(SecureConnection, SaslSslWithScramThenRequestsFlow) {
  asio::io_context io;
  SecureFakeBroker broker(io, server_tls(security::ClientAuth::none), {"PLAIN", "SCRAM-SHA-512"});
  auto conn = connect(io, broker,
                      options(SecurityProtocol::sasl_ssl, TestCerts::get().client_settings(),
                              "SCRAM-SHA-512", std::string(kPassword)));
  ASSERT_TRUE(conn.ok()) << conn.status().to_string();
  EXPECT_EQ(broker.authenticated, std::vector<std::string>{std::string(kUser)});
  // The session carries requests after authentication (through TLS both ways).
  auto again = run(io, conn.value()->send(protocol::ApiVersionsRequest{}));
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_EQ(broker.requests_after_auth, 1);
}

TEST(SecureConnection, SaslPlaintextWithPlain) {
  asio::io_context io;
  SecureFakeBroker broker(io, nullptr, {"PLAIN"});
  auto conn = connect(
      io, broker, options(SecurityProtocol::sasl_plaintext, {}, "PLAIN", std::string(kPassword)));
  ASSERT_TRUE(conn.ok()) << conn.status().to_string();
  EXPECT_EQ(broker.authenticated, std::vector<std::string>{std::string(kUser)});
}

TEST(SecureConnection, AWrongPasswordSaysSoWithoutThePassword) {
  asio::io_context io;
  SecureFakeBroker broker(io, server_tls(security::ClientAuth::none), {"PLAIN", "SCRAM-SHA-256"});
  for (const char* mechanism : {"PLAIN", "SCRAM-SHA-256"}) {
    const std::string wrong = "wrong-pw-never-shown";
    auto conn = connect(
        io, broker,
        options(SecurityProtocol::sasl_ssl, TestCerts::get().client_settings(), mechanism, wrong));
    ASSERT_FALSE(conn.ok()) << mechanism;
    EXPECT_EQ(conn.status().code(), ErrorCode::SASL_AUTHENTICATION_FAILED);
    EXPECT_NE(conn.status().message().find("SASL authentication failed: "), std::string::npos)
        << conn.status().message();
    EXPECT_EQ(conn.status().message().find(wrong), std::string::npos) << conn.status().message();
  }
  EXPECT_TRUE(broker.authenticated.empty());
}

TEST(SecureConnection, AMechanismTheBrokerLacksIsNamed) {
  asio::io_context io;
  SecureFakeBroker broker(io, nullptr, {"PLAIN"});
  auto conn = connect(
      io, broker,
      options(SecurityProtocol::sasl_plaintext, {}, "SCRAM-SHA-512", std::string(kPassword)));
  ASSERT_FALSE(conn.ok());
  EXPECT_EQ(conn.status().code(), ErrorCode::UNSUPPORTED_SASL_MECHANISM);
  EXPECT_NE(conn.status().message().find("does not enable SCRAM-SHA-512 (it enables PLAIN)"),
            std::string::npos)
      << conn.status().message();
}

TEST(SecureConnection, AnUntrustedBrokerFailsTheTlsHandshake) {
  asio::io_context io;
  SecureFakeBroker broker(io, server_tls(security::ClientAuth::none), {"PLAIN"});
  security::TlsSettings rogue_trust;
  rogue_trust.truststore_location = TestCerts::get().path("rogue-ca.crt");
  auto conn = connect(io, broker, options(SecurityProtocol::ssl, rogue_trust, "", ""));
  ASSERT_FALSE(conn.ok());
  EXPECT_NE(conn.status().message().find("TLS handshake failed"), std::string::npos)
      << conn.status().message();
  EXPECT_NE(conn.status().message().find("127.0.0.1:"), std::string::npos)
      << conn.status().message();
}

TEST(SecureConnection, MutualTlsSendsTheClientCertificate) {
  asio::io_context io;
  SecureFakeBroker broker(io, server_tls(security::ClientAuth::required), {});
  auto without = connect(
      io, broker, options(SecurityProtocol::ssl, TestCerts::get().client_settings(), "", ""));
  EXPECT_FALSE(without.ok());
  auto with =
      connect(io, broker,
              options(SecurityProtocol::ssl, TestCerts::get().client_settings_with_cert(), "", ""));
  ASSERT_TRUE(with.ok()) << with.status().to_string();
  EXPECT_EQ(broker.peer_subjects,
            std::vector<std::string>{std::string(security::testing::kClientDn)});
}

}  // namespace
}  // namespace mirra::client
