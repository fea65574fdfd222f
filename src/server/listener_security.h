// What one listener needs to secure its connections, built once when the listener starts from
// the static settings (docs/security.md): the TLS context (SSL, SASL_SSL), how certificate names
// become principals (SSL), the SASL mechanisms and users (SASL_PLAINTEXT, SASL_SSL).
//
// Each key is looked up first as `listener.name.<listener, lower case>.<key>`, then as `<key>`,
// as Kafka does; PLAIN users come only from the listener's
// `listener.name.<listener>.plain.sasl.jaas.config` (Kafka's rule for brokers).
//
// Threading: built before the first connection, read-only afterwards; the SCRAM lookup it holds
// runs on the core thread (it reads the metadata image).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "security/principal.h"
#include "security/sasl.h"
#include "security/tls.h"
#include "server/listeners.h"

namespace mirra::server {

struct ServerConfig;

struct ListenerSecurity {
  Listener listener;
  std::shared_ptr<security::TlsContext> tls;                       // SSL, SASL_SSL
  std::optional<security::PrincipalMappingRules> principal_rules;  // SSL
  std::vector<std::string> sasl_mechanisms;                        // SASL_*, as configured
  security::SaslUsers users;                                       // SASL_*
  // connections.max.reauth.ms (0: no expiry), as Kafka reads it: per listener and mechanism
  // (listener.name.<l>.<mechanism>.connections.max.reauth.ms), per listener, then the broker's.
  int64_t reauth_ms = 0;
  std::map<std::string, int64_t, std::less<>> reauth_ms_by_mechanism;  // upper-case mechanism
  int32_t max_receive_size = 524288;  // sasl.server.max.receive.size

  bool mechanism_enabled(std::string_view m) const;
  int64_t reauth_ms_for(std::string_view mechanism) const;
  // "PLAIN,SCRAM-SHA-512", for messages and logs.
  std::string mechanisms_text() const;
};

// The value of `key` for `listener`: the listener-prefixed setting, else the plain one.
std::optional<std::string> listener_setting(const std::map<std::string, std::string>& settings,
                                            std::string_view listener, std::string_view key);

// INVALID_CONFIG naming the key (never a secret's value) when a setting is missing or wrong:
// a SASL listener without sasl.enabled.mechanisms (Kafka's default, GSSAPI, is not
// implemented), a mechanism Mirra does not implement, PLAIN without users, a TLS listener
// without a keystore or with a file that does not load.
Result<std::unique_ptr<ListenerSecurity>> make_listener_security(
    const Listener& listener, const ServerConfig& config,
    const std::map<std::string, std::string>& settings);

}  // namespace mirra::server
