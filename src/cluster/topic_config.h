// The catalogue of topic-level configs: every key Kafka defines for a topic, its type, its
// default, and the broker settings that supply the default (Kafka calls them synonyms:
// retention.ms <- log.retention.ms, log.retention.minutes, log.retention.hours).
//
// Used by CreateTopics/AlterConfigs (validation), DescribeConfigs (values, sources, synonyms,
// documentation) and the partition manager (the storage LogConfig of a topic). Keys storage
// does not act on (min.insync.replicas on a single node, preallocate, ...) are still accepted,
// type-checked and described, so that tools written for Kafka keep working.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "metadata/image.h"
#include "storage/log_config.h"

namespace mirra::cluster {

// DescribeConfigs' ConfigSource values.
enum class ConfigSource : int8_t {
  kUnknown = 0,
  kDynamicTopic = 1,
  kDynamicBroker = 2,
  kDynamicDefaultBroker = 3,
  kStaticBroker = 4,
  kDefault = 5,
  kGroup = 8,  // GROUP_CONFIG: a group's own config (KIP-932)
};

// DescribeConfigs' ConfigType values (v3+).
enum class ConfigType : int8_t {
  kUnknown = 0,
  kBoolean = 1,
  kString = 2,
  kInt = 3,
  kShort = 4,
  kLong = 5,
  kDouble = 6,
  kList = 7,
  kClass = 8,
  kPassword = 9,
};

struct BrokerSynonym {
  std::string_view key;    // e.g. "log.retention.hours"
  int64_t multiplier = 1;  // to the topic key's unit (hours -> ms: 3600000)
};

struct TopicConfigDef {
  std::string_view name;
  ConfigType type;
  std::string_view default_value;       // Kafka's default, as text
  std::vector<BrokerSynonym> synonyms;  // most specific first
  std::string_view doc;
  // Deprecated in Kafka 3.x (gone in 4.0) and without effect in Mirra: accepted, stored and
  // described so that tools and topics made for Kafka 3 keep working, with a warning when set.
  bool deprecated = false;
};

const std::vector<TopicConfigDef>& topic_config_defs();
const TopicConfigDef* find_topic_config(std::string_view name);

// Where broker-level values come from, as in Kafka: this broker's dynamic configs (AlterConfigs
// on the broker resource "<node id>") win over the cluster-wide dynamic defaults (resource ""),
// which win over server.properties, which wins over Kafka's defaults. The maps live in the
// metadata image and the broker; they must outlive whoever holds the sources.
struct BrokerConfigSources {
  const std::map<std::string, std::string>* dynamic = nullptr;  // may be null
  const std::map<std::string, std::string>* static_settings =
      nullptr;                                                     // server.properties + overrides
  const metadata::MetadataImage::NodeConfigs* per_node = nullptr;  // may be null
  std::string node;  // this broker's node id: its key in per_node
};

// This broker's sources: `image`'s dynamic configs for `node_id` and the static settings.
BrokerConfigSources broker_config_sources(const metadata::MetadataImage& image,
                                          const std::map<std::string, std::string>* static_settings,
                                          int32_t node_id);

struct ConfigSynonymValue {
  std::string name;
  std::string value;
  ConfigSource source;
};

struct ResolvedConfig {
  std::string name;
  std::string value;
  ConfigSource source = ConfigSource::kDefault;
  std::vector<ConfigSynonymValue> synonyms;  // the winning one first, as Kafka lists them
};

// Every topic config with its effective value for a topic whose overrides are `overrides`.
std::vector<ResolvedConfig> resolve_topic_configs(
    const std::map<std::string, std::string>& overrides, const BrokerConfigSources& broker);

// Checks one override: known key, value of the right type (and, for keys storage uses, in
// range). INVALID_CONFIG naming the key otherwise.
Status validate_topic_config(const std::string& key, const std::string& value);
// Checks a broker-level topic default (server.properties' log.cleaner.min.cleanable.ratio, ...)
// as its topic key's value would be checked, so that a value no topic could take stops start-up
// instead of reaching every topic. INVALID_CONFIG naming the broker key; OK for keys that are
// no topic key's synonym.
Status validate_broker_topic_default(const std::string& broker_key, const std::string& value);

// For a deprecated config (topic key or its broker synonym: message.format.version,
// log.message.format.version, ...) the warning to log when it is set; nullopt for other keys.
std::optional<std::string> deprecated_config_warning(std::string_view key);
// Logs that warning (WARN, naming `resource`, e.g. "topic orders") when `key` is deprecated.
void warn_if_deprecated(std::string_view resource, std::string_view key);

// The topic config that makes a topic a mirror topic; only the mirror sets it.
inline constexpr std::string_view kMirrorNameConfig = "mirror.name";
// INVALID_CONFIG for keys clients may neither set nor remove (mirror.name).
Status check_client_settable(std::string_view key);

// The storage config of a topic: the effective values of the keys storage knows.
Result<storage::LogConfig> build_log_config(const std::map<std::string, std::string>& overrides,
                                            const BrokerConfigSources& broker);

}  // namespace mirra::cluster
