// Kafka's `sasl.jaas.config` value: one JAAS login-module entry, e.g.
//   org.apache.kafka.common.security.plain.PlainLoginModule required
//     username="admin" password="admin-secret" user_alice="alice-secret";
// Values may be quoted ("..." with \" and \\ escapes) or bare tokens; the entry ends with ';'.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "base/status.h"

namespace mirra::security {

struct JaasConfig {
  std::string login_module;  // "org.apache.kafka.common.security.plain.PlainLoginModule"
  std::string control_flag;  // required, requisite, sufficient or optional
  std::map<std::string, std::string> options;
};

// INVALID_CONFIG for anything else than exactly one well-formed entry. The message never
// repeats option values (they are passwords).
Result<JaasConfig> parse_jaas_config(std::string_view text);

// The PLAIN users of a broker's PlainLoginModule entry: every `user_<name>` option.
std::map<std::string, std::string> jaas_plain_users(const JaasConfig& config);

}  // namespace mirra::security
