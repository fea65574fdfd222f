// The SASL state of one connection on a SASL listener: what Kafka's broker allows before, while
// and after a client authenticates (docs/security.md, "SASL"):
//
//   start        ApiVersions or SaslHandshake
//   versions     (after one ApiVersions) SaslHandshake only
//   raw_tokens   (after SaslHandshake v0) every frame is a bare SASL token, answered by a bare
//                size-prefixed token; a failure can only close the connection
//   authenticate (after SaslHandshake v1) SaslAuthenticate only; a failure is answered with
//                SASL_AUTHENTICATION_FAILED, then the connection closes
//   authenticated  every API. With connections.max.reauth.ms set, the session expires: a
//                SaslHandshake starts a re-authentication (KIP-368: same mechanism, same
//                principal), any other request after the expiry closes the connection.
//
// Pure state, no I/O: the connection feeds it frames' API keys and tokens. Threading: the
// connection's (core thread).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/error_codes.h"
#include "base/status.h"
#include "security/sasl.h"

namespace mirra::server {

struct ListenerSecurity;

class SaslSession {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Phase { start, versions, raw_tokens, authenticate, authenticated, failed };

  explicit SaslSession(const ListenerSecurity& security);

  Phase phase() const { return phase_; }
  // Authenticated at least once (a re-authentication in progress still counts).
  bool authenticated() const { return !principal_.empty(); }
  // "User:<name>" once authenticated.
  const std::string& principal() const { return principal_; }
  // The largest frame to accept now: sasl.server.max.receive.size until authenticated.
  std::optional<int32_t> frame_limit() const;

  // Whether a request with this API key may be served now (SaslHandshake and SaslAuthenticate
  // included: they then go to their handlers). Not OK: the connection closes, with that reason.
  Status admit(int16_t api_key, Clock::time_point now);

  struct Handshake {
    ErrorCode error = ErrorCode::NONE;
    bool close = false;  // after the answer
  };
  // SaslHandshake v`version` asking for `mechanism`.
  Handshake handshake(std::string_view mechanism, int16_t version, Clock::time_point now);

  struct Step {
    ErrorCode error = ErrorCode::NONE;
    std::string message;  // for the client; never says whether the user exists
    std::string token;    // the server's next token (empty is a valid token)
    bool close = false;   // after the answer (failures)
    int64_t session_lifetime_ms = 0;
  };
  // One client token: SaslAuthenticate's auth_bytes, or a raw token under v0 framing.
  Step authenticate(std::string_view token, Clock::time_point now);

 private:
  Step fail(std::string message);
  Step finish(Clock::time_point now);

  const ListenerSecurity& security_;
  Phase phase_ = Phase::start;
  std::unique_ptr<security::SaslServer> exchange_;
  std::string mechanism_;  // of the current or last exchange
  std::string principal_;
  std::optional<Clock::time_point> expiry_;
  Clock::time_point last_reauth_{};
};

}  // namespace mirra::server
