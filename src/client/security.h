// Security settings of a connection to a Kafka cluster (docs/mirroring-design.md §9): Kafka's
// client keys security.protocol, sasl.mechanism, sasl.jaas.config (or Mirra's shorthand
// sasl.username / sasl.password) and the ssl.* keys of security::read_tls_settings. Read once
// per ClientOptions; the TLS context made from them is shared by every connection of a client.
//
// Settings that cannot be honoured are refused, naming the key, rather than ignored: ignoring
// one could send data in the clear, or unauthenticated, while the operator believes otherwise.
// Messages never show a secret's value (security::is_secret_setting).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "security/tls.h"

namespace mirra::client {

enum class SecurityProtocol { plaintext, ssl, sasl_plaintext, sasl_ssl };

// "PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL".
std::string_view security_protocol_name(SecurityProtocol p);

struct ClientSecurity {
  SecurityProtocol protocol = SecurityProtocol::plaintext;
  std::string sasl_mechanism;  // PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (with SASL)
  std::string sasl_username;
  std::string sasl_password;  // a secret
  security::TlsSettings tls;
  // Made by prepare_client_security() (Client::create does it when missing), then shared by
  // every connection: files are read once, and a TlsContext is immutable.
  std::shared_ptr<security::TlsContext> tls_context;

  bool uses_tls() const {
    return protocol == SecurityProtocol::ssl || protocol == SecurityProtocol::sasl_ssl;
  }
  bool uses_sasl() const {
    return protocol == SecurityProtocol::sasl_plaintext || protocol == SecurityProtocol::sasl_ssl;
  }
};

// Whether `key` is one this module reads or refuses: security.protocol, sasl.*, ssl.*.
bool is_client_security_key(std::string_view key);

// The security settings among `settings` (other keys are ignored). INVALID_CONFIG naming the
// key for: an unknown security.protocol or sasl.mechanism; an ssl.* or sasl.* key Mirra does
// not know (or one of a broker: ssl.client.auth); ssl.* keys without TLS, sasl.* keys without
// SASL; SASL without credentials, or with both sasl.jaas.config and sasl.username; a JAAS
// config whose login module does not fit the mechanism. `what` names the settings in messages
// ("mirror config", "client property"). No file is read: see prepare_client_security().
Result<ClientSecurity> read_client_security(const std::map<std::string, std::string>& settings,
                                            std::string_view what);

// Makes security.tls_context when TLS is on and it has none (reads the key and trust stores):
// INVALID_CONFIG naming the file and what is wrong with it.
Status prepare_client_security(ClientSecurity& security);

}  // namespace mirra::client
