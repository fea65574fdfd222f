// Which settings hold secrets. A secret's value is never logged, never returned by an API and
// never put into an error message (docs/security.md).
#pragma once

#include <string_view>

namespace mirra::security {

// Any key naming a password (ssl.keystore.password, sasl.password, ...), a JAAS config (which
// carries passwords: sasl.jaas.config, listener.name.x.plain.sasl.jaas.config), an inline
// private key (ssl.keystore.key) or a secret (password.encoder.secret), with or without a
// listener prefix.
bool is_secret_setting(std::string_view key);

// What logs show instead of a secret's value (Kafka prints the same).
inline constexpr std::string_view kHiddenValue = "[hidden]";

}  // namespace mirra::security
