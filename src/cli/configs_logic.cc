#include "cli/configs_logic.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <openssl/evp.h>

#include "base/parse.h"
#include "base/text.h"

namespace mirra::cli {
namespace {

Status invalid(std::string message) {
  return Status(ErrorCode::INVALID_CONFIG, std::move(message));
}

// Splits at commas that are not inside [...], as kafka-configs.sh does; empty items are dropped.
Result<std::vector<std::string_view>> split_top_level(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  auto push = [&](std::string_view item) {
    if (!trim(item).empty()) out.push_back(trim(item));
  };
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') ++depth;
    if (text[i] == ']' && --depth < 0) return invalid("unbalanced ']' in --add-config");
    if (text[i] == ',' && depth == 0) {
      push(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) return invalid("unbalanced '[' in --add-config");
  push(text.substr(start));
  return out;
}

// The positions of the '=' outside [...] in `item`.
std::vector<size_t> top_level_equals(std::string_view item) {
  std::vector<size_t> out;
  int depth = 0;
  for (size_t i = 0; i < item.size(); ++i) {
    if (item[i] == '[') ++depth;
    if (item[i] == ']') --depth;
    if (item[i] == '=' && depth == 0) out.push_back(i);
  }
  return out;
}

std::optional<std::string_view> canonical_entity_type(std::string_view type) {
  for (std::string_view known : {kTopicsEntity, kBrokersEntity, kUsersEntity, kClientsEntity}) {
    if (type == known || type == known.substr(0, known.size() - 1)) return known;
  }
  return std::nullopt;
}

// Each --entity-name / --entity-default against the --entity-type it pairs with.
Status check_entity_names(const ConfigsArgs& a) {
  if (a.entity_names.size() > a.entity_types.size())
    return invalid(
        "--entity-name / --entity-default: at most one per --entity-type (they pair with the "
        "types in order; a type takes a name or the default, not both)");
  for (size_t i = 0; i < a.entity_names.size(); ++i) {
    const std::optional<std::string>& name = a.entity_names[i];
    const std::string& type = a.entity_types[i];
    if (name && name->empty()) return invalid("--entity-name must not be empty");
    if (!name && type == kTopicsEntity)
      return invalid(
          "--entity-default is not allowed for topics (the cluster-wide topic defaults are "
          "broker configs: --entity-type brokers --entity-default)");
    if (name && type == kBrokersEntity && !parse_decimal<int32_t>(*name))
      return invalid(fmt::format(
          "--entity-name of brokers must be a broker id (an integer), not '{}'", *name));
  }
  return Status::OK();
}

std::string known_mechanisms() { return "SCRAM-SHA-256 and SCRAM-SHA-512"; }

Result<security::ScramMechanism> mechanism_of(std::string_view name, std::string_view option) {
  auto m = security::scram_mechanism_from_name(name);
  if (!m)
    return invalid(fmt::format("{}: '{}' is not a config of users (known: {})", option, name,
                               known_mechanisms()));
  return *m;
}

// Standard base64 with padding, optionally in double quotes (kafka-storage.sh's form).
std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
    text = text.substr(1, text.size() - 2);
  if (text.empty() || text.size() % 4 != 0) return std::nullopt;
  std::string out(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  const size_t padding = text.ends_with("==") ? 2 : text.ends_with('=') ? 1 : 0;
  out.resize(static_cast<size_t>(n) - padding);
  return out;
}

// salt=B64 / saltedpassword=B64. The value is never shown: a salted password is a secret.
Status parse_base64_setting(std::string_view key, std::string_view value,
                            std::optional<std::string>& target) {
  auto bytes = base64_decode(value);
  if (!bytes || bytes->empty()) return invalid(fmt::format("--add-config: {} is not base64", key));
  target = std::move(*bytes);
  return Status::OK();
}

// The inside of `[...]`: iterations=N and password=P (the password may hold '='), or instead of
// the password saltedpassword=B64 with salt=B64 (salt alone keeps the password).
Status parse_mechanism_settings(std::string_view body, client::ScramUpsertion& u) {
  bool has_password = false;
  size_t start = 0;
  while (start <= body.size()) {
    size_t comma = body.find(',', start);
    if (comma == std::string_view::npos) comma = body.size();
    std::string_view item = trim(body.substr(start, comma - start));
    start = comma + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      return invalid(fmt::format("--add-config: '{}' of {} is not key=value", item.substr(0, 20),
                                 security::scram_mechanism_name(u.mechanism)));
    const std::string_view key = item.substr(0, eq);
    const std::string_view value = item.substr(eq + 1);
    if (key == "iterations") {
      auto n = parse_decimal<int32_t>(value);
      if (!n) return invalid(fmt::format("--add-config: iterations '{}' is not a number", value));
      u.iterations = *n;
    } else if (key == "password") {
      u.password = std::string(value);
      has_password = true;
    } else if (key == "salt") {
      if (Status s = parse_base64_setting(key, value, u.salt); !s.ok()) return s;
    } else if (key == "saltedpassword") {
      if (Status s = parse_base64_setting(key, value, u.salted_password); !s.ok()) return s;
    } else {
      return invalid(
          fmt::format("--add-config: unknown SCRAM setting '{}' (known: iterations, "
                      "password, salt, saltedpassword)",
                      key));
    }
  }
  const std::string_view name = security::scram_mechanism_name(u.mechanism);
  if (has_password == u.salted_password.has_value())
    return invalid(
        fmt::format("--add-config: {} needs either password=... or saltedpassword=...", name));
  if (u.salted_password && !u.salt)
    return invalid(fmt::format("--add-config: {}: saltedpassword needs salt", name));
  return Status::OK();
}

}  // namespace

Status check_configs_args(ConfigsArgs& a) {
  if (a.alter == a.describe) return invalid("exactly one of --alter and --describe is needed");
  if (a.entity_types.empty()) return invalid("--entity-type is required");
  for (std::string& type : a.entity_types) {
    auto known = canonical_entity_type(type);
    if (!known)
      return invalid(fmt::format(
          "--entity-type '{}' is not supported (supported: topics, brokers, users, clients)",
          type));
    type = std::string(*known);
  }
  if (a.entity_types.size() > 1) {
    const std::set<std::string> distinct(a.entity_types.begin(), a.entity_types.end());
    if (distinct.size() != a.entity_types.size())
      return invalid("--entity-type: an entity type is given twice");
    if (distinct != std::set<std::string>{std::string(kUsersEntity), std::string(kClientsEntity)})
      return invalid("--entity-type: only users and clients may be given together");
  }
  if (Status s = check_entity_names(a); !s.ok()) return s;
  const bool resource = entity_kind(a) == kTopicsEntity || entity_kind(a) == kBrokersEntity;
  if (a.all && !(a.describe && resource))
    return invalid("--all goes with --describe of topics or brokers");
  if (a.describe && (!a.add_config.empty() || !a.delete_config.empty()))
    return invalid("--add-config and --delete-config go with --alter, not --describe");
  if (a.alter) {
    if (a.entity_names.size() != a.entity_types.size())
      return invalid(
          entity_kind(a) == kTopicsEntity
              ? "--alter needs --entity-name"
              : "--alter needs --entity-name or --entity-default for each --entity-type");
    if (a.add_config.empty() && a.delete_config.empty())
      return invalid("--alter needs --add-config or --delete-config");
  }
  return Status::OK();
}

Result<std::vector<ConfigItem>> split_add_config(std::string_view text) {
  auto items = split_top_level(text);
  if (!items.ok()) return items.status();
  std::vector<ConfigItem> out;
  for (std::string_view item : *items) {
    // Only the key is ever shown: a value may be a password.
    const std::vector<size_t> eq = top_level_equals(item);
    if (eq.empty()) return invalid("--add-config: an item without '=' (items are key=value)");
    const std::string key(trim(item.substr(0, eq.front())));
    if (eq.size() > 1)
      return invalid(fmt::format(
          "--add-config: '{}' has more than one '=' outside [...] (items are key=value)", key));
    if (key.empty()) return invalid("--add-config: an item without a key");
    if (std::any_of(out.begin(), out.end(), [&](const ConfigItem& c) { return c.key == key; }))
      return invalid(fmt::format("--add-config: {} given twice", key));
    out.push_back({key, std::string(trim(item.substr(eq.front() + 1)))});
  }
  return out;
}

Result<std::vector<ConfigItem>> parse_add_config(std::string_view text) {
  auto items = split_add_config(text);
  if (!items.ok()) return items.status();
  for (ConfigItem& c : *items) {
    std::erase_if(c.value, [](char ch) { return ch == '[' || ch == ']'; });
    c.value = std::string(trim(c.value));
  }
  return items;
}

Result<std::vector<std::string>> parse_delete_config(std::string_view text) {
  std::vector<std::string> out;
  for (std::string& key : split_list(text)) {
    if (std::find(out.begin(), out.end(), key) != out.end())
      return invalid(fmt::format("--delete-config: {} given twice", key));
    out.push_back(std::move(key));
  }
  if (out.empty()) return invalid("--delete-config: no config named");
  return out;
}

Status check_deletable(const std::vector<std::string>& deletes, const std::set<std::string>& set) {
  std::vector<std::string> missing;
  for (const std::string& k : deletes) {
    if (set.count(k) == 0) missing.push_back(k);
  }
  if (missing.empty()) return Status::OK();
  return invalid(
      fmt::format("Invalid config(s): {} (not set on the entity)", fmt::join(missing, ",")));
}

bool is_scram_key(std::string_view key) {
  return security::scram_mechanism_from_name(key).has_value();
}

Result<std::vector<client::ScramUpsertion>> parse_scram_add_config(std::string_view text,
                                                                   const std::string& user) {
  auto items = split_add_config(text);
  if (!items.ok()) return items.status();
  std::vector<client::ScramUpsertion> out;
  for (const ConfigItem& item : *items) {
    auto m = mechanism_of(item.key, "--add-config");
    if (!m.ok()) return m.status();
    const std::string_view value = item.value;
    if (value.size() < 2 || value.front() != '[' || value.back() != ']')
      return invalid(fmt::format("--add-config: {} takes [iterations=N,password=P]", item.key));
    client::ScramUpsertion& u = out.emplace_back();
    u.user = user;
    u.mechanism = *m;
    if (Status s = parse_mechanism_settings(value.substr(1, value.size() - 2), u); !s.ok())
      return s;
  }
  return out;
}
Result<std::vector<client::ScramDeletion>> parse_scram_delete_config(std::string_view text,
                                                                     const std::string& user) {
  std::vector<client::ScramDeletion> out;
  for (const std::string& item : split_list(text)) {
    auto m = mechanism_of(item, "--delete-config");
    if (!m.ok()) return m.status();
    if (std::any_of(out.begin(), out.end(), [&](const auto& d) { return d.mechanism == *m; }))
      return invalid(fmt::format("--delete-config: {} given twice", item));
    out.push_back({user, *m});
  }
  return out;
}

std::string describe_line(const client::UserScramCredentials& user) {
  std::vector<std::string> items;
  for (const client::ScramCredentialInfo& c : user.credentials) {
    items.push_back(
        fmt::format("{}=iterations={}", security::scram_mechanism_name(c.mechanism), c.iterations));
  }
  return fmt::format("SCRAM credential configs for user-principal '{}' are {}", user.user,
                     fmt::join(items, ", "));
}

// ---- topics and brokers ----

client::ConfigResource config_resource(std::string_view entity_type, const std::string& name) {
  return {entity_type == kTopicsEntity ? client::ConfigResourceType::topic
                                       : client::ConfigResourceType::broker,
          name,
          {}};
}

client::ConfigSource dynamic_source(std::string_view entity_type, const std::string& name) {
  if (entity_type == kTopicsEntity) return client::ConfigSource::dynamic_topic;
  return name.empty() ? client::ConfigSource::dynamic_default_broker
                      : client::ConfigSource::dynamic_broker;
}

std::string_view config_source_name(client::ConfigSource source) {
  using S = client::ConfigSource;
  switch (source) {
    case S::dynamic_topic:
      return "DYNAMIC_TOPIC_CONFIG";
    case S::dynamic_broker:
      return "DYNAMIC_BROKER_CONFIG";
    case S::dynamic_default_broker:
      return "DYNAMIC_DEFAULT_BROKER_CONFIG";
    case S::static_broker:
      return "STATIC_BROKER_CONFIG";
    case S::default_config:
      return "DEFAULT_CONFIG";
    case S::dynamic_broker_logger:
      return "DYNAMIC_BROKER_LOGGER_CONFIG";
    case S::unknown:
      break;
  }
  return "UNKNOWN";
}

std::vector<client::ConfigEntry> shown_entries(const std::vector<client::ConfigEntry>& entries,
                                               std::string_view entity_type,
                                               const std::string& name, bool all) {
  const client::ConfigSource own = dynamic_source(entity_type, name);
  std::vector<client::ConfigEntry> out;
  for (const client::ConfigEntry& e : entries) {
    if (all || e.source == own) out.push_back(e);
  }
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.name < y.name; });
  return out;
}

std::string resource_header(std::string_view entity_type, const std::string& name, bool all) {
  if (entity_type == kBrokersEntity && name.empty())
    return "Default configs for brokers in the cluster are:";
  return fmt::format("{} configs for {} {} are:", all ? "All" : "Dynamic",
                     entity_type.substr(0, entity_type.size() - 1), name);
}

std::string config_entry_line(const client::ConfigEntry& e) {
  std::vector<std::string> synonyms;
  for (const client::ConfigSynonym& s : e.synonyms) {
    synonyms.push_back(
        fmt::format("{}:{}={}", config_source_name(s.source), s.name, s.value.value_or("null")));
  }
  return fmt::format("  {}={} sensitive={} synonyms={{{}}}", e.name, e.value.value_or("null"),
                     e.sensitive, fmt::join(synonyms, ", "));
}

Result<std::vector<client::ConfigAlteration>> config_alterations(std::string_view add_config,
                                                                 std::string_view delete_config) {
  std::vector<ConfigItem> adds;
  if (!add_config.empty()) {
    auto parsed = parse_add_config(add_config);
    if (!parsed.ok()) return parsed.status();
    adds = std::move(*parsed);
  }
  std::vector<std::string> deletes;
  if (!delete_config.empty()) {
    auto parsed = parse_delete_config(delete_config);
    if (!parsed.ok()) return parsed.status();
    deletes = std::move(*parsed);
  }
  std::vector<client::ConfigAlteration> out;
  for (ConfigItem& c : adds) {
    if (std::find(deletes.begin(), deletes.end(), c.key) != deletes.end())
      return invalid(fmt::format("{} is both added and deleted", c.key));
    out.push_back({std::move(c.key), client::AlterConfigOp::set, std::move(c.value)});
  }
  for (std::string& k : deletes) {
    out.push_back({std::move(k), client::AlterConfigOp::remove, std::nullopt});
  }
  return out;
}

std::string completed_line(std::string_view entity_type, const std::optional<std::string>& name) {
  if (!name)
    return fmt::format("Completed updating default config for {} in the cluster.", entity_type);
  return fmt::format("Completed updating config for {} {}.",
                     entity_type.substr(0, entity_type.size() - 1), *name);
}

}  // namespace mirra::cli
