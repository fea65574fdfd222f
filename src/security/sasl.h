// SASL mechanisms behind one small interface, for both ends: the broker authenticating a client
// (SaslServer) and a mirror authenticating to its source cluster (SaslClient). Mechanisms:
// PLAIN (RFC 4616) and SCRAM-SHA-256 / SCRAM-SHA-512 (scram.h). The framing (SaslHandshake v0
// raw tokens or SaslAuthenticate) is the connection's business, not this file's.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "security/scram.h"

namespace mirra::security {

// The mechanisms Mirra implements, as Kafka names them.
const std::vector<std::string>& supported_sasl_mechanisms();

// The users one listener knows.
struct SaslUsers {
  // PLAIN: name -> password, from the listener's JAAS config (`user_<name>="<password>"`).
  std::map<std::string, std::string> plain;
  // SCRAM: a user's credential for a mechanism, from the metadata log; nullopt: none.
  std::function<std::optional<ScramCredential>(const std::string& user, ScramMechanism m)> scram;
};

// The server side of one exchange of one mechanism.
class SaslServer {
 public:
  virtual ~SaslServer() = default;
  // The mechanism named as the client asked for it ("PLAIN"), or INVALID / UNSUPPORTED_SASL_
  // MECHANISM when Mirra does not implement it. `users` must outlive the exchange.
  static Result<std::unique_ptr<SaslServer>> make(std::string_view mechanism,
                                                  const SaslUsers& users);

  // The client's next token in, the server's next token out (possibly empty). A failure is
  // SASL_AUTHENTICATION_FAILED with a message that never tells whether the user exists.
  virtual Result<std::string> step(std::string_view token) = 0;
  virtual bool complete() const = 0;
  // The authenticated identity: the principal is "User:" + this (valid once complete()).
  virtual std::string authorization_id() const = 0;
};

// The client side of one exchange (mirror links, `mirra --command-config`).
class SaslClient {
 public:
  virtual ~SaslClient() = default;
  static Result<std::unique_ptr<SaslClient>> make(std::string_view mechanism, std::string user,
                                                  std::string password);
  // The first token to send.
  virtual std::string initial() = 0;
  // The server's token in; the next token to send out, or nullopt when the exchange is over
  // (the server's last token verified). Errors say why, never with the password.
  virtual Result<std::optional<std::string>> step(std::string_view server_token) = 0;
};

// Compares secrets in time that does not depend on where they differ.
bool secrets_equal(std::string_view a, std::string_view b);

}  // namespace mirra::security
