#include "server/listeners.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <sstream>

#include "base/parse.h"
#include "base/text.h"

namespace mirra::server {
namespace {

Status invalid(const std::string& key, const std::string& value, std::string_view why) {
  return Status(ErrorCode::INVALID_CONFIG,
                fmt::format("invalid value '{}' for {}: {}", value, key, why));
}

// Kafka's listener names: letters, digits and underscores.
bool valid_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(),
                                      [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

std::optional<SecurityProtocol> protocol_from_name(std::string_view name) {
  for (SecurityProtocol p : {SecurityProtocol::plaintext, SecurityProtocol::ssl,
                             SecurityProtocol::sasl_plaintext, SecurityProtocol::sasl_ssl}) {
    if (protocol_name(p) == name) return p;
  }
  return std::nullopt;
}

}  // namespace

std::string_view protocol_name(SecurityProtocol p) {
  switch (p) {
    case SecurityProtocol::ssl:
      return "SSL";
    case SecurityProtocol::sasl_plaintext:
      return "SASL_PLAINTEXT";
    case SecurityProtocol::sasl_ssl:
      return "SASL_SSL";
    case SecurityProtocol::plaintext:
      break;
  }
  return "PLAINTEXT";
}

std::string Listener::to_string() const {
  const bool v6 = host.find(':') != std::string::npos;
  return fmt::format("{}://{}{}{}:{}", name, v6 ? "[" : "", host, v6 ? "]" : "", port);
}

Result<std::vector<Listener>> parse_listeners(const std::string& key, const std::string& value) {
  std::vector<Listener> out;
  for (const std::string& item : split_list(value)) {
    const size_t sep = item.find("://");
    if (sep == std::string::npos) return invalid(key, value, "expected NAME://host:port");
    Listener l;
    l.name = to_upper(item.substr(0, sep));
    if (!valid_name(l.name)) {
      return invalid(key, value, "a listener name has only letters, digits and underscores");
    }
    std::string hostport = item.substr(sep + 3);
    const size_t colon = hostport.rfind(':');
    if (colon == std::string::npos) return invalid(key, value, "missing :port");
    l.host = hostport.substr(0, colon);
    if (l.host.size() >= 2 && l.host.front() == '[' && l.host.back() == ']') {
      l.host = l.host.substr(1, l.host.size() - 2);
    }
    auto port = parse_decimal<int64_t>(trim(hostport.substr(colon + 1)));
    if (!port || *port < 0 || *port > 65535) {
      return invalid(key, value, "port must be a number from 0 to 65535");
    }
    l.port = static_cast<uint16_t>(*port);
    for (const Listener& o : out) {
      if (o.name == l.name) return invalid(key, value, "listener names must be unique");
    }
    out.push_back(std::move(l));
  }
  if (out.empty()) return invalid(key, value, "no listener");
  return out;
}

Result<std::map<std::string, SecurityProtocol>> parse_protocol_map(const std::string& value) {
  const std::string key = "listener.security.protocol.map";
  std::map<std::string, SecurityProtocol> map;
  if (trim(value).empty()) {
    for (SecurityProtocol p : {SecurityProtocol::plaintext, SecurityProtocol::ssl,
                               SecurityProtocol::sasl_plaintext, SecurityProtocol::sasl_ssl}) {
      map[std::string(protocol_name(p))] = p;
    }
    return map;
  }
  for (const std::string& item : split_list(value)) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos) return invalid(key, value, "expected NAME:PROTOCOL");
    const std::string name = to_upper(trim(item.substr(0, colon)));
    const auto protocol = protocol_from_name(to_upper(trim(item.substr(colon + 1))));
    if (!valid_name(name)) return invalid(key, value, "bad listener name");
    if (!protocol) {
      return invalid(key, value, "the protocol must be PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL");
    }
    if (!map.emplace(name, *protocol).second) {
      return invalid(key, value, fmt::format("listener {} is mapped twice", name));
    }
  }
  return map;
}

Status resolve_protocols(std::vector<Listener>& listeners,
                         const std::map<std::string, SecurityProtocol>& map) {
  for (Listener& l : listeners) {
    auto it = map.find(l.name);
    if (it == map.end()) {
      return Status(ErrorCode::INVALID_CONFIG,
                    fmt::format("listener {} has no security protocol: add {}:<PROTOCOL> to "
                                "listener.security.protocol.map",
                                l.name, l.name));
    }
    l.protocol = it->second;
  }
  return Status::OK();
}

}  // namespace mirra::server
