// BrokerConnection::authenticate(): SASL with Kafka's framing since 1.0 (KIP-152):
// SaslHandshake v1 names the mechanism, then each token goes in a SaslAuthenticate request and
// the broker's answer carries its token or its error. Messages never contain the password;
// the broker's own error message is passed on (Kafka's says no more than "Invalid username or
// password").
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "client/broker_connection.h"
#include "security/sasl.h"

namespace mirra::client {
namespace {

// A SCRAM exchange is two rounds, PLAIN one: more means a confused or hostile broker.
constexpr int kMaxRounds = 4;

}  // namespace

asio::awaitable<Status> BrokerConnection::authenticate() {
  const ClientSecurity& security = options_.security;
  auto failed = [this](ErrorCode code, std::string_view why) {
    return Status(code, fmt::format("SASL authentication failed: {} (broker {})", why, address_));
  };
  protocol::SaslHandshakeRequest handshake;
  handshake.mechanism = security.sasl_mechanism;
  SendOptions v1;
  v1.max_version = 1;
  auto answer = co_await send(handshake, v1);
  if (!answer.ok()) {
    co_return failed(answer.status().code(),
                     fmt::format("SaslHandshake: {}", answer.status().message()));
  }
  if (answer->version < 1) {
    co_return failed(ErrorCode::UNSUPPORTED_VERSION,
                     "the broker has no SaslHandshake v1 (SaslAuthenticate framing, Kafka 1.0+)");
  }
  if (const ErrorCode code = error_from_number(answer->body.error_code); code != ErrorCode::NONE) {
    if (code == ErrorCode::UNSUPPORTED_SASL_MECHANISM) {
      co_return failed(code, fmt::format("the broker does not enable {} (it enables {})",
                                         security.sasl_mechanism,
                                         fmt::join(answer->body.mechanisms, ", ")));
    }
    co_return failed(code, fmt::format("SaslHandshake: {}", error_message(code)));
  }
  auto client = security::SaslClient::make(security.sasl_mechanism, security.sasl_username,
                                           security.sasl_password);
  if (!client.ok()) co_return failed(client.status().code(), client.status().message());
  std::string token = client.value()->initial();
  for (int round = 0; round < kMaxRounds; ++round) {
    protocol::SaslAuthenticateRequest req;
    req.auth_bytes.assign(token.begin(), token.end());
    auto reply = co_await send(req);
    if (!reply.ok()) {
      co_return failed(reply.status().code(),
                       fmt::format("SaslAuthenticate: {}", reply.status().message()));
    }
    const auto& body = reply->body;
    if (const ErrorCode code = error_from_number(body.error_code); code != ErrorCode::NONE) {
      const bool has_message = body.error_message && !body.error_message->empty();
      co_return failed(code, has_message ? *body.error_message : error_message(code));
    }
    const std::string_view server_token(reinterpret_cast<const char*>(body.auth_bytes.data()),
                                        body.auth_bytes.size());
    auto next = client.value()->step(server_token);
    if (!next.ok()) co_return failed(next.status().code(), next.status().message());
    if (!next.value()) co_return Status::OK();
    token = std::move(*next.value());
  }
  co_return failed(ErrorCode::ILLEGAL_SASL_STATE,
                   fmt::format("the exchange did not end after {} rounds", kMaxRounds));
}

}  // namespace mirra::client
