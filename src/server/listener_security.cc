#include "server/listener_security.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/parse.h"
#include "base/text.h"
#include "security/jaas.h"
#include "server/config.h"

namespace mirra::server {
namespace {

Status config_error(const Listener& l, std::string what) {
  return Status(ErrorCode::INVALID_CONFIG, fmt::format("listener {}: {}", l.name, what));
}

Status add_tls(ListenerSecurity& sec, const std::map<std::string, std::string>& settings) {
  const Listener& l = sec.listener;
  auto tls_settings = security::read_tls_settings(
      [&](std::string_view key) { return listener_setting(settings, l.name, key); });
  if (!tls_settings.ok()) return config_error(l, tls_settings.status().message());
  if (!tls_settings->has_keystore()) {
    return config_error(l, fmt::format("{} needs a certificate: set ssl.keystore.location (or "
                                       "ssl.keystore.key and ssl.keystore.certificate.chain)",
                                       protocol_name(l.protocol)));
  }
  auto context = security::TlsContext::server(tls_settings.value());
  if (!context.ok()) return config_error(l, context.status().message());
  sec.tls = std::move(context.value());
  if (l.protocol == SecurityProtocol::ssl) {
    const std::string rules =
        listener_setting(settings, l.name, "ssl.principal.mapping.rules").value_or("DEFAULT");
    auto parsed = security::PrincipalMappingRules::parse(rules);
    if (!parsed.ok()) return config_error(l, parsed.status().message());
    sec.principal_rules = std::move(parsed.value());
  }
  return Status::OK();
}

Status add_plain_users(ListenerSecurity& sec, const std::map<std::string, std::string>& settings) {
  const Listener& l = sec.listener;
  const std::string key = fmt::format("listener.name.{}.plain.sasl.jaas.config", to_lower(l.name));
  auto it = settings.find(key);
  if (it == settings.end()) {
    return config_error(l, fmt::format("PLAIN is enabled but {} is not set (PLAIN users are "
                                       "its user_<name>=\"<password>\" options)",
                                       key));
  }
  auto jaas = security::parse_jaas_config(it->second);
  if (!jaas.ok()) return config_error(l, fmt::format("{}: {}", key, jaas.status().message()));
  sec.users.plain = security::jaas_plain_users(jaas.value());
  if (sec.users.plain.empty()) {
    return config_error(l, fmt::format("{} names no user (user_<name>=\"<password>\")", key));
  }
  return Status::OK();
}

// connections.max.reauth.ms of the listener and of each of its mechanisms, where set
// (docs/security.md "SASL"): an integer >= 0, else INVALID_CONFIG naming the key.
Status add_reauth(ListenerSecurity& sec, const std::map<std::string, std::string>& settings) {
  const Listener& l = sec.listener;
  auto read = [&](const std::string& key, int64_t& out) -> Status {
    auto it = settings.find(key);
    if (it == settings.end()) return Status::OK();
    auto v = parse_decimal<int64_t>(trim(it->second));
    if (!v || *v < 0) {
      return config_error(l, fmt::format("{}: '{}' is not an integer >= 0", key, it->second));
    }
    out = *v;
    return Status::OK();
  };
  const std::string prefix = fmt::format("listener.name.{}.", to_lower(l.name));
  if (Status s = read(prefix + "connections.max.reauth.ms", sec.reauth_ms); !s.ok()) return s;
  for (const std::string& m : sec.sasl_mechanisms) {
    int64_t ms = sec.reauth_ms;
    const std::string key = prefix + to_lower(m) + ".connections.max.reauth.ms";
    if (Status s = read(key, ms); !s.ok()) return s;
    if (settings.contains(key)) sec.reauth_ms_by_mechanism.emplace(m, ms);
  }
  return Status::OK();
}

Status add_sasl(ListenerSecurity& sec, const std::map<std::string, std::string>& settings) {
  const Listener& l = sec.listener;
  auto enabled = listener_setting(settings, l.name, "sasl.enabled.mechanisms");
  if (!enabled || split_list(*enabled).empty()) {
    return config_error(
        l, fmt::format("{} needs sasl.enabled.mechanisms: Kafka's default, GSSAPI, is not "
                       "supported; Mirra has {}",
                       protocol_name(l.protocol),
                       fmt::join(security::supported_sasl_mechanisms(), ", ")));
  }
  const auto& supported = security::supported_sasl_mechanisms();
  for (const std::string& m : split_list(*enabled)) {
    if (std::find(supported.begin(), supported.end(), m) == supported.end()) {
      return config_error(l, fmt::format("sasl.enabled.mechanisms: {} is not supported (Mirra "
                                         "has {})",
                                         m, fmt::join(supported, ", ")));
    }
    sec.sasl_mechanisms.push_back(m);
  }
  if (sec.mechanism_enabled("PLAIN")) {
    if (Status s = add_plain_users(sec, settings); !s.ok()) return s;
  }
  return add_reauth(sec, settings);
}

}  // namespace

bool ListenerSecurity::mechanism_enabled(std::string_view m) const {
  return std::find(sasl_mechanisms.begin(), sasl_mechanisms.end(), m) != sasl_mechanisms.end();
}

int64_t ListenerSecurity::reauth_ms_for(std::string_view mechanism) const {
  auto it = reauth_ms_by_mechanism.find(mechanism);
  return it != reauth_ms_by_mechanism.end() ? it->second : reauth_ms;
}

std::string ListenerSecurity::mechanisms_text() const {
  return fmt::format("{}", fmt::join(sasl_mechanisms, ","));
}

std::optional<std::string> listener_setting(const std::map<std::string, std::string>& settings,
                                            std::string_view listener, std::string_view key) {
  auto it = settings.find(fmt::format("listener.name.{}.{}", to_lower(listener), key));
  if (it != settings.end()) return it->second;
  it = settings.find(std::string(key));
  if (it != settings.end()) return it->second;
  return std::nullopt;
}

Result<std::unique_ptr<ListenerSecurity>> make_listener_security(
    const Listener& listener, const ServerConfig& config,
    const std::map<std::string, std::string>& settings) {
  auto sec = std::make_unique<ListenerSecurity>();
  sec->listener = listener;
  sec->reauth_ms = config.connections_max_reauth_ms;
  sec->max_receive_size = config.sasl_server_max_receive_size;
  if (uses_tls(listener.protocol)) {
    if (Status s = add_tls(*sec, settings); !s.ok()) return s;
  }
  if (uses_sasl(listener.protocol)) {
    if (Status s = add_sasl(*sec, settings); !s.ok()) return s;
  }
  return sec;
}

}  // namespace mirra::server
