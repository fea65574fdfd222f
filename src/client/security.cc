#include "client/security.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/text.h"
#include "security/jaas.h"
#include "security/sasl.h"

namespace mirra::client {
namespace {

constexpr std::string_view kPlainModule = "org.apache.kafka.common.security.plain.PlainLoginModule";
constexpr std::string_view kScramModule = "org.apache.kafka.common.security.scram.ScramLoginModule";

// Kafka client ssl.* keys that only configure Java (key managers, random sources): accepted and
// without effect, as the broker accepts them (server/config.cc), so existing files keep working.
constexpr std::array<std::string_view, 5> kJavaOnlySslKeys = {
    "ssl.protocol", "ssl.keymanager.algorithm", "ssl.trustmanager.algorithm",
    "ssl.secure.random.implementation", "ssl.provider"};

Status invalid(std::string message) {
  return Status(ErrorCode::INVALID_CONFIG, std::move(message));
}

bool is_java_only(std::string_view key) {
  return std::find(kJavaOnlySslKeys.begin(), kJavaOnlySslKeys.end(), key) != kJavaOnlySslKeys.end();
}

bool is_tls_key(std::string_view key) {
  const auto& keys = security::tls_setting_keys();
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

bool is_sasl_key(std::string_view key) {
  return key == "sasl.mechanism" || key == "sasl.jaas.config" || key == "sasl.username" ||
         key == "sasl.password";
}

Result<SecurityProtocol> protocol_from(std::string_view what, std::string_view value) {
  const std::string p = to_upper(value);
  if (p == "PLAINTEXT") return SecurityProtocol::plaintext;
  if (p == "SSL") return SecurityProtocol::ssl;
  if (p == "SASL_PLAINTEXT") return SecurityProtocol::sasl_plaintext;
  if (p == "SASL_SSL") return SecurityProtocol::sasl_ssl;
  return invalid(
      fmt::format("{} security.protocol={} is not valid (PLAINTEXT, SSL, "
                  "SASL_PLAINTEXT or SASL_SSL)",
                  what, value));
}

// Every key is one Mirra knows, and fits the protocol: a TLS setting without TLS (or a SASL one
// without SASL) says the operator expects protection the connection would not have.
Status check_keys(const std::map<std::string, std::string>& settings, std::string_view what,
                  const ClientSecurity& s) {
  for (const auto& [key, value] : settings) {
    if (key.starts_with("ssl.")) {
      if (is_java_only(key)) continue;
      if (key == "ssl.client.auth") {
        return invalid(
            fmt::format("{} ssl.client.auth is a broker setting; a client sends its "
                        "certificate when ssl.keystore.* names one",
                        what));
      }
      if (!is_tls_key(key)) return invalid(fmt::format("unknown {} {}", what, key));
      if (!s.uses_tls()) {
        return invalid(fmt::format("{} {} needs security.protocol SSL or SASL_SSL (it is {})", what,
                                   key, security_protocol_name(s.protocol)));
      }
    } else if (key.starts_with("sasl.")) {
      if (!is_sasl_key(key)) {
        return invalid(fmt::format("{} {} is not supported (Mirra's SASL mechanisms are {})", what,
                                   key, fmt::join(security::supported_sasl_mechanisms(), ", ")));
      }
      if (!s.uses_sasl()) {
        return invalid(
            fmt::format("{} {} needs security.protocol SASL_PLAINTEXT or SASL_SSL (it is {})", what,
                        key, security_protocol_name(s.protocol)));
      }
    }
  }
  return Status::OK();
}

const std::string* find(const std::map<std::string, std::string>& settings, const char* key) {
  auto it = settings.find(key);
  return it == settings.end() ? nullptr : &it->second;
}

// The user and password from sasl.jaas.config, whose login module must fit the mechanism.
Status read_jaas(ClientSecurity& s, std::string_view what, const std::string& text,
                 bool mechanism_given) {
  auto jaas = security::parse_jaas_config(text);
  if (!jaas.ok()) {
    return invalid(fmt::format("{} sasl.jaas.config: {}", what, jaas.status().message()));
  }
  const bool scram = s.sasl_mechanism.starts_with("SCRAM-");
  if (jaas->login_module == kScramModule && !scram) {
    return invalid(
        fmt::format("{} sasl.jaas.config uses ScramLoginModule but sasl.mechanism is {}: set "
                    "sasl.mechanism=SCRAM-SHA-256 or SCRAM-SHA-512",
                    what, mechanism_given ? s.sasl_mechanism : std::string("not set (PLAIN)")));
  }
  if (jaas->login_module != (scram ? kScramModule : kPlainModule)) {
    return invalid(fmt::format("{} sasl.jaas.config: sasl.mechanism {} needs {}", what,
                               s.sasl_mechanism, scram ? kScramModule : kPlainModule));
  }
  auto user = jaas->options.find("username");
  auto password = jaas->options.find("password");
  if (user == jaas->options.end() || password == jaas->options.end()) {
    return invalid(fmt::format("{} sasl.jaas.config needs username= and password=", what));
  }
  s.sasl_username = user->second;
  s.sasl_password = password->second;
  return Status::OK();
}

Status read_sasl(ClientSecurity& s, const std::map<std::string, std::string>& settings,
                 std::string_view what) {
  const std::string* mechanism = find(settings, "sasl.mechanism");
  s.sasl_mechanism = mechanism ? *mechanism : "PLAIN";
  const auto& supported = security::supported_sasl_mechanisms();
  if (std::find(supported.begin(), supported.end(), s.sasl_mechanism) == supported.end()) {
    return invalid(fmt::format("{} sasl.mechanism={} is not supported ({})", what, s.sasl_mechanism,
                               fmt::join(supported, ", ")));
  }
  const std::string* jaas = find(settings, "sasl.jaas.config");
  const std::string* user = find(settings, "sasl.username");
  const std::string* password = find(settings, "sasl.password");
  if (jaas != nullptr && (user != nullptr || password != nullptr)) {
    return invalid(fmt::format(
        "{} sasl.jaas.config and sasl.username / sasl.password are both set: use one or the "
        "other",
        what));
  }
  if (jaas != nullptr) return read_jaas(s, what, *jaas, mechanism != nullptr);
  if (user == nullptr || password == nullptr) {
    return invalid(
        fmt::format("{} security.protocol={} needs credentials: sasl.jaas.config, or "
                    "sasl.username and sasl.password",
                    what, security_protocol_name(s.protocol)));
  }
  s.sasl_username = *user;
  s.sasl_password = *password;
  return Status::OK();
}

}  // namespace

std::string_view security_protocol_name(SecurityProtocol p) {
  switch (p) {
    case SecurityProtocol::plaintext:
      return "PLAINTEXT";
    case SecurityProtocol::ssl:
      return "SSL";
    case SecurityProtocol::sasl_plaintext:
      return "SASL_PLAINTEXT";
    case SecurityProtocol::sasl_ssl:
      return "SASL_SSL";
  }
  return "?";
}

bool is_client_security_key(std::string_view key) {
  return key == "security.protocol" || key.starts_with("ssl.") || key.starts_with("sasl.");
}

Result<ClientSecurity> read_client_security(const std::map<std::string, std::string>& settings,
                                            std::string_view what) {
  ClientSecurity s;
  if (const std::string* p = find(settings, "security.protocol")) {
    auto protocol = protocol_from(what, *p);
    if (!protocol.ok()) return protocol.status();
    s.protocol = protocol.value();
  }
  if (Status st = check_keys(settings, what, s); !st.ok()) return st;
  if (s.uses_tls()) {
    auto tls = security::read_tls_settings([&](std::string_view key) -> std::optional<std::string> {
      auto it = settings.find(std::string(key));
      if (it == settings.end()) return std::nullopt;
      return it->second;
    });
    if (!tls.ok()) return invalid(fmt::format("{}: {}", what, tls.status().message()));
    s.tls = std::move(tls.value());
  }
  if (s.uses_sasl()) {
    if (Status st = read_sasl(s, settings, what); !st.ok()) return st;
  }
  return s;
}

Status prepare_client_security(ClientSecurity& security) {
  if (!security.uses_tls() || security.tls_context != nullptr) return Status::OK();
  auto context = security::TlsContext::client(security.tls);
  if (!context.ok()) return context.status();
  security.tls_context = std::move(context.value());
  return Status::OK();
}

}  // namespace mirra::client
