// The pure part of `mirra configs` (configs.cc, configs_resources.cc): kafka-configs.sh's option
// rules, the `--add-config` / `--delete-config` syntax, SCRAM credentials, and the describe lines
// of topics and brokers. Client quotas are configs_quota_logic.h.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "client/scram_users.h"
#include "client/types.h"

namespace mirra::cli {

// The options of one `mirra configs` run, as given.
struct ConfigsArgs {
  std::string bootstrap;
  std::string command_config;
  std::vector<std::string> command_properties;
  bool alter = false;
  bool describe = false;
  bool all = false;  // --describe --all: every config, not only the dynamic ones
  std::vector<std::string> entity_types;
  // --entity-name and --entity-default in command-line order (nullopt is --entity-default),
  // paired with --entity-type in order as kafka-configs.sh pairs them: `--entity-type users
  // --entity-name alice --entity-type clients --entity-default` is alice with the default client.
  std::vector<std::optional<std::string>> entity_names;
  std::string add_config;
  std::string delete_config;
};

// kafka-configs.sh's entity type names (plural; the singular forms are accepted too).
inline constexpr std::string_view kTopicsEntity = "topics";
inline constexpr std::string_view kBrokersEntity = "brokers";
inline constexpr std::string_view kUsersEntity = "users";
inline constexpr std::string_view kClientsEntity = "clients";

// Checks the option combination and normalises the entity types ("user" -> "users"). Errors are
// one line each, naming the option.
Status check_configs_args(ConfigsArgs& a);

// The first --entity-type: the command's kind (users and clients share the quota path).
inline const std::string& entity_kind(const ConfigsArgs& a) { return a.entity_types.front(); }
inline bool is_quota_kind(const ConfigsArgs& a) {
  return entity_kind(a) == kUsersEntity || entity_kind(a) == kClientsEntity;
}

// One item of --add-config: the key and its value as written (brackets kept).
struct ConfigItem {
  std::string key;
  std::string value;
};

// kafka-configs.sh's --add-config syntax: items split at commas outside [...], each `key=value`
// with exactly one '=' outside brackets; blanks around keys and values trimmed. INVALID_CONFIG
// for anything else or a key given twice.
Result<std::vector<ConfigItem>> split_add_config(std::string_view text);
// The same with the brackets taken out of the values (`k=[a,b]` sets k to "a,b"), as
// kafka-configs.sh does for topic and broker configs.
Result<std::vector<ConfigItem>> parse_add_config(std::string_view text);
// `k1,k2`: the keys, blanks trimmed; a key given twice is refused.
Result<std::vector<std::string>> parse_delete_config(std::string_view text);
// "Invalid config(s): k1,k2" (kafka-configs.sh's refusal) for the keys to delete that are not
// set on the entity; OK when all are.
Status check_deletable(const std::vector<std::string>& deletes, const std::set<std::string>& set);

// `SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=x]`: one
// upsertion per mechanism for `user` (iterations default to 4096). INVALID_CONFIG for anything
// else; messages never show a password.
Result<std::vector<client::ScramUpsertion>> parse_scram_add_config(std::string_view text,
                                                                   const std::string& user);
// `SCRAM-SHA-512` or `SCRAM-SHA-256,SCRAM-SHA-512`.
Result<std::vector<client::ScramDeletion>> parse_scram_delete_config(std::string_view text,
                                                                     const std::string& user);
bool is_scram_key(std::string_view key);

// "SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192,
// SCRAM-SHA-512=iterations=4096", as kafka-configs.sh prints it.
std::string describe_line(const client::UserScramCredentials& user);

// ---- topics and brokers ----

// The config resource of a topics or brokers entity ("" is the cluster-wide broker default).
client::ConfigResource config_resource(std::string_view entity_type, const std::string& name);
// The source of the configs set on the entity itself: DYNAMIC_TOPIC_CONFIG for a topic,
// DYNAMIC_BROKER_CONFIG for a broker, DYNAMIC_DEFAULT_BROKER_CONFIG for the broker default.
client::ConfigSource dynamic_source(std::string_view entity_type, const std::string& name);
// Kafka's names of the sources (ConfigEntry.ConfigSource): "DYNAMIC_TOPIC_CONFIG", ...
std::string_view config_source_name(client::ConfigSource source);
// The entries kafka-configs.sh shows: those set on the entity (all with `all`), sorted by name.
std::vector<client::ConfigEntry> shown_entries(const std::vector<client::ConfigEntry>& entries,
                                               std::string_view entity_type,
                                               const std::string& name, bool all);
// "Dynamic configs for topic t1 are:", "All configs for broker 1 are:", "Default configs for
// brokers in the cluster are:".
std::string resource_header(std::string_view entity_type, const std::string& name, bool all);
// "  retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000,
// DEFAULT_CONFIG:log.retention.ms=604800000}" (a null value prints as "null").
std::string config_entry_line(const client::ConfigEntry& e);
// The IncrementalAlterConfigs operations for --add-config (SET) and --delete-config (DELETE).
Result<std::vector<client::ConfigAlteration>> config_alterations(std::string_view add_config,
                                                                 std::string_view delete_config);

// "Completed updating config for topic t1." / "Completed updating default config for brokers in
// the cluster." (`name` nullopt: the default entity).
std::string completed_line(std::string_view entity_type, const std::optional<std::string>& name);

}  // namespace mirra::cli
