#include "server/sasl_session.h"

#include <fmt/format.h>

#include "base/assert.h"
#include "protocol/api_table.h"
#include "protocol/messages/all_messages.h"
#include "server/listener_security.h"

namespace mirra::server {
namespace {

constexpr int16_t kSaslHandshake = protocol::SaslHandshakeRequest::kApiKey;
constexpr int16_t kSaslAuthenticate = protocol::SaslAuthenticateRequest::kApiKey;

}  // namespace

SaslSession::SaslSession(const ListenerSecurity& security) : security_(security) {}

std::optional<int32_t> SaslSession::frame_limit() const {
  if (phase_ == Phase::authenticated || authenticated()) return std::nullopt;
  return security_.max_receive_size;
}

Status SaslSession::admit(int16_t api_key, Clock::time_point now) {
  auto refuse = [&](std::string_view why) {
    phase_ = Phase::failed;
    return Status(ErrorCode::ILLEGAL_SASL_STATE, std::string(why));
  };
  switch (phase_) {
    case Phase::start:
      if (api_key == protocol::kApiVersionsKey) {
        phase_ = Phase::versions;
        return Status::OK();
      }
      if (api_key == kSaslHandshake) return Status::OK();
      return refuse(fmt::format("API key {} before SASL authentication", api_key));
    case Phase::versions:
      if (api_key == kSaslHandshake) return Status::OK();
      return refuse(
          fmt::format("API key {} before SASL authentication (only SaslHandshake "
                      "may follow ApiVersions)",
                      api_key));
    case Phase::authenticate:
      if (api_key == kSaslAuthenticate) return Status::OK();
      if (authenticated() && api_key != kSaslHandshake) break;  // re-authenticating: serve
      return refuse(fmt::format("API key {} while SASL authentication is in progress", api_key));
    case Phase::authenticated:
      break;
    case Phase::raw_tokens:
      return refuse("a Kafka request where a SASL token was expected");
    case Phase::failed:
      return refuse("SASL authentication failed");
  }
  // Authenticated: a handshake may start a re-authentication; anything else must be inside
  // the session's lifetime (KIP-368; Kafka closes expired connections the same way, also for
  // clients that cannot re-authenticate).
  if (api_key == kSaslHandshake || api_key == kSaslAuthenticate) return Status::OK();
  if (expiry_ && now > *expiry_) {
    phase_ = Phase::failed;
    return Status(ErrorCode::ILLEGAL_SASL_STATE,
                  fmt::format("SASL session of {} expired (connections.max.reauth.ms={})",
                              principal_, security_.reauth_ms_for(mechanism_)));
  }
  return Status::OK();
}

SaslSession::Handshake SaslSession::handshake(std::string_view mechanism, int16_t version,
                                              Clock::time_point now) {
  const bool reauth = phase_ == Phase::authenticated;
  if (reauth) {
    // Kafka answers a stray handshake with ILLEGAL_SASL_STATE and keeps the connection; one
    // re-authentication per second at most.
    if (!expiry_ || now - last_reauth_ < std::chrono::seconds(1)) {
      return {ErrorCode::ILLEGAL_SASL_STATE, false};
    }
    if (mechanism != mechanism_) return {ErrorCode::UNSUPPORTED_SASL_MECHANISM, true};
  } else if (phase_ != Phase::start && phase_ != Phase::versions) {
    return {ErrorCode::ILLEGAL_SASL_STATE, true};
  }
  if (!security_.mechanism_enabled(mechanism)) {
    phase_ = Phase::failed;
    return {ErrorCode::UNSUPPORTED_SASL_MECHANISM, true};
  }
  auto exchange = security::SaslServer::make(mechanism, security_.users);
  if (!exchange.ok()) {
    phase_ = Phase::failed;
    return {ErrorCode::UNSUPPORTED_SASL_MECHANISM, true};
  }
  exchange_ = std::move(exchange.value());
  mechanism_ = std::string(mechanism);
  if (reauth) last_reauth_ = now;
  phase_ = version == 0 ? Phase::raw_tokens : Phase::authenticate;
  return {};
}

SaslSession::Step SaslSession::fail(std::string message) {
  phase_ = Phase::failed;
  exchange_.reset();
  Step s;
  s.error = ErrorCode::SASL_AUTHENTICATION_FAILED;
  s.message = std::move(message);
  s.close = true;
  return s;
}

SaslSession::Step SaslSession::authenticate(std::string_view token, Clock::time_point now) {
  if ((phase_ != Phase::authenticate && phase_ != Phase::raw_tokens) || exchange_ == nullptr) {
    Step s;
    s.error = ErrorCode::ILLEGAL_SASL_STATE;
    s.message = "SaslAuthenticate outside a SASL exchange (send SaslHandshake first)";
    s.close = phase_ != Phase::authenticated;
    return s;
  }
  auto answer = exchange_->step(token);
  if (!answer.ok()) return fail(answer.status().message());
  Step s;
  s.token = std::move(answer.value());
  if (exchange_->complete()) {
    const std::string principal = "User:" + exchange_->authorization_id();
    if (authenticated() && principal != principal_) {
      return fail("Cannot change principals during re-authentication");
    }
    principal_ = principal;
    Step done = finish(now);
    done.token = std::move(s.token);
    return done;
  }
  return s;
}

SaslSession::Step SaslSession::finish(Clock::time_point now) {
  MIRRA_ASSERT(exchange_ != nullptr && exchange_->complete(), "finish() of an open exchange");
  exchange_.reset();
  phase_ = Phase::authenticated;
  Step s;
  const int64_t lifetime_ms = security_.reauth_ms_for(mechanism_);
  if (lifetime_ms > 0) {
    s.session_lifetime_ms = lifetime_ms;
    expiry_ = now + std::chrono::milliseconds(lifetime_ms);
  }
  return s;
}

}  // namespace mirra::server
