#include "mirror/mirror_config.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/text.h"
#include "client/security.h"
#include "client/types.h"
#include "security/secrets.h"
#include "security/tls.h"

namespace mirra::mirror {
namespace {

using Check = std::function<Status(const std::string& key, const std::string& value)>;

enum class Kind { kString, kInt, kList };

struct KeySpec {
  const char* name;
  const char* default_value;  // "" when there is none
  Check check;
  Kind kind = Kind::kString;
};

Status invalid(const std::string& key, const std::string& value, std::string_view why) {
  return Status(ErrorCode::INVALID_CONFIG,
                fmt::format("invalid value '{}' for mirror config {}: {}", value, key, why));
}

Status any_value(const std::string&, const std::string&) { return Status::OK(); }

Check one_of(std::vector<std::string> allowed) {
  return [allowed](const std::string& key, const std::string& value) {
    const std::string upper = to_upper(value);
    if (std::find(allowed.begin(), allowed.end(), upper) != allowed.end()) return Status::OK();
    return invalid(key, value, fmt::format("expected one of {}", fmt::join(allowed, ", ")));
  };
}

Check at_least(int64_t min) {
  return [min](const std::string& key, const std::string& value) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size() || value.empty()) {
      return invalid(key, value, "not an integer");
    }
    if (v < min) return invalid(key, value, fmt::format("must be at least {}", min));
    // Kafka's INT configs: a 32-bit value (the fetch fields that carry them are int32).
    if (v > std::numeric_limits<int32_t>::max()) {
      return invalid(key, value,
                     fmt::format("must be at most {}", std::numeric_limits<int32_t>::max()));
    }
    return Status::OK();
  };
}

// A comma-separated list of regular expressions (Java's syntax, of which std::regex's
// ECMAScript grammar accepts what these filters use).
Status regex_list(const std::string& key, const std::string& value) {
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    const std::string item = value.substr(start, comma - start);
    try {
      std::regex re(item);
    } catch (const std::regex_error& e) {
      return invalid(key, value,
                     fmt::format("'{}' is not a regular expression ({})", item, e.what()));
    }
    start = comma + 1;
  }
  return Status::OK();
}

Status bootstrap_list(const std::string& key, const std::string& value) {
  auto parsed = client::parse_bootstrap_servers(value);
  if (!parsed.ok()) return invalid(key, value, parsed.status().message());
  return Status::OK();
}

// Security keys are checked together by client::read_client_security() (check_security),
// since what one allows depends on the others.
const std::vector<KeySpec>& key_specs() {
  static const std::vector<KeySpec> specs = [] {
    std::vector<KeySpec> v = {
        {"bootstrap.servers", "", bootstrap_list, Kind::kList},
        {"security.protocol", "PLAINTEXT",
         one_of({"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"})},
        {"sasl.mechanism", "PLAIN", one_of({"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"})},
        {"sasl.jaas.config", "", any_value},
        {"sasl.username", "", any_value},
        {"sasl.password", "", any_value},
        {"mirror.fetch.max.wait.ms", "500", at_least(0), Kind::kInt},
        {"mirror.fetch.min.bytes", "1", at_least(0), Kind::kInt},
        {"mirror.fetch.max.bytes", "1048576", at_least(1), Kind::kInt},
        {"mirror.fetch.response.max.bytes", "10485760", at_least(1), Kind::kInt},
        {"mirror.topics.include", ".*", regex_list, Kind::kList},
        {"mirror.topics.exclude", "__.*", regex_list, Kind::kList},
        {"mirror.groups.include", ".*", regex_list, Kind::kList},
        {"mirror.groups.exclude", "", regex_list, Kind::kList},
        {"mirror.acl.include", "", regex_list, Kind::kList},
        {"mirror.topic.properties.exclude", "", regex_list, Kind::kList},
    };
    // The client side's ssl.* keys (ssl.client.auth is the broker's).
    for (std::string_view key : security::tls_setting_keys()) {
      if (key == "ssl.client.auth") continue;
      const char* def = key == "ssl.endpoint.identification.algorithm" ? "https"
                        : key == "ssl.enabled.protocols"               ? "TLSv1.2,TLSv1.3"
                                                                       : "";
      v.push_back({key.data(), def, any_value});
    }
    return v;
  }();
  return specs;
}

const KeySpec* spec_of(std::string_view key) {
  for (const KeySpec& s : key_specs()) {
    if (key == s.name) return &s;
  }
  return nullptr;
}

// docs/mirroring-design.md §9: the security settings as the source connection will read
// them, so that a mirror is refused at creation rather than failing later (files are read only
// when the runner starts).
Status check_security(const MirrorConfigs& configs) {
  auto security = client::read_client_security(configs, "mirror config");
  return security.status();
}

}  // namespace

Status validate_mirror_name(std::string_view name) {
  auto bad = [&](std::string_view why) {
    return Status(ErrorCode::INVALID_MIRROR_NAME,
                  fmt::format("mirror name '{}' is not valid: {}", name, why));
  };
  if (name.empty()) return bad("it is empty");
  if (name.size() > 249) return bad("it is longer than 249 characters");
  if (name == "." || name == "..") return bad("'.' and '..' are not allowed");
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return bad("only ASCII letters, digits, '.', '_' and '-' are allowed");
    }
  }
  return Status::OK();
}

bool is_secret(std::string_view key) { return security::is_secret_setting(key); }

Result<MirrorConfigs> validate_mirror_configs(
    const std::vector<std::pair<std::string, std::optional<std::string>>>& given) {
  MirrorConfigs out;
  for (const auto& [key, value] : given) {
    const KeySpec* spec = spec_of(key);
    if (spec == nullptr) {
      return Status(ErrorCode::INVALID_CONFIG, fmt::format("unknown mirror config '{}'", key));
    }
    if (!value) {
      return Status(ErrorCode::INVALID_CONFIG, fmt::format("mirror config {} has no value", key));
    }
    if (out.count(key)) {
      return Status(ErrorCode::INVALID_CONFIG, fmt::format("mirror config {} given twice", key));
    }
    // A secret's value never reaches a message, even an error's.
    Status s = spec->check(key, is_secret(key) ? std::string() : *value);
    if (!s.ok()) return s;
    out.emplace(key, *value);
  }
  if (!out.count("bootstrap.servers")) {
    return Status(ErrorCode::INVALID_CONFIG, "mirror config bootstrap.servers is required");
  }
  if (Status s = check_security(out); !s.ok()) return s;
  return out;
}

Result<MirrorConfigs> altered_mirror_configs(
    const MirrorConfigs& current,
    const std::map<std::string, std::optional<std::string>>& changes) {
  MirrorConfigs next = current;
  for (const auto& [key, value] : changes) {
    if (spec_of(key) == nullptr) {
      return Status(ErrorCode::INVALID_CONFIG, fmt::format("unknown mirror config '{}'", key));
    }
    if (value) {
      next[key] = *value;
    } else {
      next.erase(key);
    }
  }
  return validate_mirror_configs({next.begin(), next.end()});
}

MirrorConfigKind mirror_config_kind(std::string_view key) {
  const KeySpec* spec = spec_of(key);
  if (spec == nullptr) return MirrorConfigKind::kUnknown;
  switch (spec->kind) {
    case Kind::kInt:
      return MirrorConfigKind::kInt;
    case Kind::kList:
      return MirrorConfigKind::kList;
    case Kind::kString:
      break;
  }
  return is_secret(key) ? MirrorConfigKind::kPassword : MirrorConfigKind::kString;
}

const MirrorConfigs& mirror_config_defaults() {
  static const MirrorConfigs defaults = [] {
    MirrorConfigs d;
    for (const KeySpec& s : key_specs()) d.emplace(s.name, s.default_value);
    return d;
  }();
  return defaults;
}

std::string describe_for_log(const MirrorConfigs& configs) {
  std::vector<std::string> items;
  for (const auto& [key, value] : configs) {
    items.push_back(fmt::format("{}={}", key, is_secret(key) ? "(redacted)" : value));
  }
  return fmt::format("{}", fmt::join(items, ", "));
}

}  // namespace mirra::mirror
