// Listeners as Kafka configures them: `listeners` and `advertised.listeners` name each endpoint
// (NAME://host:port), and `listener.security.protocol.map` says which security protocol each
// name speaks (by default the four protocol names map to themselves).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mirra::server {

enum class SecurityProtocol { plaintext, ssl, sasl_plaintext, sasl_ssl };

std::string_view protocol_name(SecurityProtocol p);
inline bool uses_tls(SecurityProtocol p) {
  return p == SecurityProtocol::ssl || p == SecurityProtocol::sasl_ssl;
}
inline bool uses_sasl(SecurityProtocol p) {
  return p == SecurityProtocol::sasl_plaintext || p == SecurityProtocol::sasl_ssl;
}

struct Listener {
  std::string name;   // upper case, as Kafka normalises listener names
  std::string host;   // empty: all interfaces
  uint16_t port = 0;  // 0: an ephemeral port chosen at bind
  SecurityProtocol protocol = SecurityProtocol::plaintext;
  std::string to_string() const;  // "NAME://host:port"
};

// "NAME://host:port[,...]"; names are unique. `key` names the setting in error messages.
// The protocol is left at plaintext: resolve_protocols() sets it.
Result<std::vector<Listener>> parse_listeners(const std::string& key, const std::string& value);

// listener.security.protocol.map ("NAME:PROTOCOL,..."), or the default (each protocol's own
// name) when `value` is empty.
Result<std::map<std::string, SecurityProtocol>> parse_protocol_map(const std::string& value);

// Sets each listener's protocol from the map: INVALID_CONFIG when a name has no protocol.
Status resolve_protocols(std::vector<Listener>& listeners,
                         const std::map<std::string, SecurityProtocol>& map);

}  // namespace mirra::server
