#include "cluster/topic_config.h"

#include "base/log.h"
#include "base/parse.h"
#include "cluster/throttled_replicas.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>

namespace mirra::cluster {
namespace {

constexpr std::string_view kMirraLogComponent = "configs";

constexpr std::string_view kLongMax = "9223372036854775807";
using T = ConfigType;

// Keys the storage LogConfig acts on; the others are accepted and described only.
const std::set<std::string_view, std::less<>>& storage_keys() {
  static const std::set<std::string_view, std::less<>> keys = {
      "segment.bytes",        "segment.ms",
      "segment.index.bytes",  "index.interval.bytes",
      "retention.ms",         "retention.bytes",
      "file.delete.delay.ms", "max.message.bytes",
      "flush.messages",       "flush.ms",
      "delete.retention.ms",  "min.compaction.lag.ms",
      "cleanup.policy",       "message.timestamp.type"};
  return keys;
}

}  // namespace

const std::vector<TopicConfigDef>& topic_config_defs() {
  // Sorted by name, as DescribeConfigs lists them. Docs are Mirra's own words.
  // A table, one entry per config: laid out by hand (clang-format puts every field of an entry
  // with a nested list on its own line).
  // clang-format off
  static const std::vector<TopicConfigDef> defs = {
      {"cleanup.policy", T::kList, "delete", {{"log.cleanup.policy"}},
       "What happens to old segments: \"delete\" (retention), \"compact\" (keep the latest record per key) or both."},
      {"compression.gzip.level", T::kInt, "-1", {{"compression.gzip.level"}},
       "Accepted for compatibility; Mirra never recompresses, so the level is unused."},
      {"compression.lz4.level", T::kInt, "9", {{"compression.lz4.level"}},
       "Accepted for compatibility; Mirra never recompresses, so the level is unused."},
      {"compression.type", T::kString, "producer", {{"compression.type"}},
       "Accepted for compatibility; Mirra stores batches as the producer compressed them."},
      {"compression.zstd.level", T::kInt, "3", {{"compression.zstd.level"}},
       "Accepted for compatibility; Mirra never recompresses, so the level is unused."},
      {"delete.retention.ms", T::kLong, "86400000", {{"log.cleaner.delete.retention.ms"}},
       "How long tombstones stay readable after compaction."},
      {"file.delete.delay.ms", T::kLong, "60000", {{"log.segment.delete.delay.ms"}},
       "How long a deleted segment's files are kept before removal."},
      {"flush.messages", T::kLong, kLongMax, {{"log.flush.interval.messages"}},
       "fsync after this many messages; 1 = fsync every append."},
      {"flush.ms", T::kLong, kLongMax, {{"log.flush.interval.ms"}},
       "fsync when the oldest unflushed data is this old."},
      {"follower.replication.throttled.replicas", T::kList, "", {{"follower.replication.throttled.replicas"}},
       "Accepted for compatibility; a single node has no followers."},
      {"index.interval.bytes", T::kInt, "4096", {{"log.index.interval.bytes"}},
       "Bytes of log between two offset index entries."},
      {"leader.replication.throttled.replicas", T::kList, "", {{"leader.replication.throttled.replicas"}},
       "Accepted for compatibility; a single node has no followers."},
      {"local.retention.bytes", T::kLong, "-2", {{"log.local.retention.bytes"}},
       "Accepted for compatibility; Mirra has no tiered storage."},
      {"local.retention.ms", T::kLong, "-2", {{"log.local.retention.ms"}},
       "Accepted for compatibility; Mirra has no tiered storage."},
      {"max.compaction.lag.ms", T::kLong, kLongMax, {{"log.cleaner.max.compaction.lag.ms"}},
       "Longest time a record may stay uncompacted."},
      {"max.message.bytes", T::kInt, "1048588", {{"message.max.bytes"}},
       "Largest record batch the topic accepts."},
      {"message.downconversion.enable", T::kBoolean, "true", {{"log.message.downconversion.enable"}},
       "Deprecated in Kafka 3.x and ignored: Mirra never down-converts records.", true},
      {"message.format.version", T::kString, "3.0-IV1", {{"log.message.format.version"}},
       "Deprecated in Kafka 3.x and ignored: Mirra writes record batches v2 only.", true},
      {"message.timestamp.after.max.ms", T::kLong, kLongMax, {{"log.message.timestamp.after.max.ms"}},
       "How far in the future a CreateTime timestamp may be."},
      {"message.timestamp.before.max.ms", T::kLong, kLongMax, {{"log.message.timestamp.before.max.ms"}},
       "How far in the past a CreateTime timestamp may be."},
      {"message.timestamp.difference.max.ms", T::kLong, kLongMax, {{"log.message.timestamp.difference.max.ms"}},
       "Deprecated in Kafka 3.6 (for message.timestamp.before.max.ms and after.max.ms) and ignored.", true},
      {"message.timestamp.type", T::kString, "CreateTime", {{"log.message.timestamp.type"}},
       "CreateTime (the producer's timestamp) or LogAppendTime (the broker's clock)."},
      {"min.cleanable.dirty.ratio", T::kDouble, "0.5", {{"log.cleaner.min.cleanable.ratio"}},
       "Share of uncompacted log that triggers compaction."},
      {"mirror.name", T::kString, "", {},
       "The mirror this topic belongs to (docs/mirroring.md): set by AddTopicsToMirror, never by "
       "clients; while set the topic is read-only for them."},
      {"mirror.replication.throttled.replicas", T::kList, "", {},
       "Partitions (partition:broker, or *) whose mirror fetches count against "
       "mirror.replication.throttled.rate."},
      {"min.compaction.lag.ms", T::kLong, "0", {{"log.cleaner.min.compaction.lag.ms"}},
       "Shortest time a record stays uncompacted."},
      {"min.insync.replicas", T::kInt, "1", {{"min.insync.replicas"}},
       "Accepted for compatibility; a single node is its only in-sync replica."},
      {"preallocate", T::kBoolean, "false", {{"log.preallocate"}},
       "Accepted for compatibility; segments are not preallocated."},
      {"remote.log.copy.disable", T::kBoolean, "false", {},
       "Accepted for compatibility; Mirra has no tiered storage."},
      {"remote.log.delete.on.disable", T::kBoolean, "false", {},
       "Accepted for compatibility; Mirra has no tiered storage."},
      {"remote.storage.enable", T::kBoolean, "false", {},
       "Accepted for compatibility; Mirra has no tiered storage."},
      {"retention.bytes", T::kLong, "-1", {{"log.retention.bytes"}},
       "Delete old segments when the partition is larger than this; -1 = no limit."},
      {"retention.ms", T::kLong, "604800000",
       {{"log.retention.ms"}, {"log.retention.minutes", 60000}, {"log.retention.hours", 3600000}},
       "Delete segments older than this; -1 = keep forever."},
      {"segment.bytes", T::kInt, "1073741824", {{"log.segment.bytes"}},
       "Size at which a segment is rolled."},
      {"segment.index.bytes", T::kInt, "10485760", {{"log.index.size.max.bytes"}},
       "Largest size of a segment's offset and time index."},
      {"segment.jitter.ms", T::kLong, "0", {{"log.roll.jitter.ms"}, {"log.roll.jitter.hours", 3600000}},
       "Accepted for compatibility; rolls are not jittered."},
      {"segment.ms", T::kLong, "604800000", {{"log.roll.ms"}, {"log.roll.hours", 3600000}},
       "Age at which a segment is rolled."},
      {"unclean.leader.election.enable", T::kBoolean, "false", {{"unclean.leader.election.enable"}},
       "Accepted for compatibility; a single node has no elections."},
  };
  // clang-format on
  return defs;
}

const TopicConfigDef* find_topic_config(std::string_view name) {
  for (const TopicConfigDef& d : topic_config_defs()) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

std::optional<std::string> deprecated_config_warning(std::string_view key) {
  for (const TopicConfigDef& d : topic_config_defs()) {
    if (!d.deprecated) continue;
    const bool broker_key = !d.synonyms.empty() && d.synonyms.front().key == key;
    if (d.name == key || broker_key) {
      return fmt::format("{}: {}", key, d.doc);
    }
  }
  return std::nullopt;
}

void warn_if_deprecated(std::string_view resource, std::string_view key) {
  if (auto warning = deprecated_config_warning(key)) MIRRA_LOG_WARN("{}: {}", resource, *warning);
}

namespace {

Status invalid(const std::string& key, const std::string& value, std::string_view why) {
  return Status(ErrorCode::INVALID_CONFIG,
                fmt::format("invalid value \"{}\" for configuration {}: {}", value, key, why));
}

bool parse_integer(const std::string& s, int64_t& out) {
  auto v = parse_decimal<int64_t>(s);
  if (v) out = *v;
  return v.has_value();
}

Status check_type(const TopicConfigDef& def, const std::string& key, const std::string& value) {
  int64_t n = 0;
  switch (def.type) {
    case T::kInt:
      if (!parse_integer(value, n) || n < std::numeric_limits<int32_t>::min() ||
          n > std::numeric_limits<int32_t>::max()) {
        return invalid(key, value, "expected a 32-bit integer");
      }
      break;
    case T::kLong:
      if (!parse_integer(value, n)) return invalid(key, value, "expected an integer");
      break;
    case T::kDouble: {
      // strtod also reads "inf" and "nan", which no ratio can be.
      char* end = nullptr;
      const double d = std::strtod(value.c_str(), &end);
      if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(d)) {
        return invalid(key, value, "expected a number");
      }
      if (def.name == "min.cleanable.dirty.ratio" && (d < 0 || d > 1)) {
        return invalid(key, value, "expected a number from 0 to 1");  // Kafka's bounds
      }
      break;
    }
    case T::kBoolean:
      if (value != "true" && value != "false") return invalid(key, value, "expected true or false");
      break;
    default:
      break;
  }
  if (def.name == "compression.type" && value != "producer" && value != "uncompressed" &&
      value != "gzip" && value != "snappy" && value != "lz4" && value != "zstd") {
    return invalid(key, value, "expected producer, uncompressed, gzip, snappy, lz4 or zstd");
  }
  return Status::OK();
}

// The value a broker synonym gives, converted to the topic key's unit.
std::optional<std::string> synonym_value(const BrokerSynonym& syn, const std::string& raw) {
  if (syn.multiplier == 1) return raw;
  int64_t n = 0;
  if (!parse_integer(raw, n)) return std::nullopt;
  return std::to_string(n < 0 ? n : n * syn.multiplier);
}

void add_broker_synonyms(const TopicConfigDef& def, const BrokerConfigSources& broker,
                         std::vector<ConfigSynonymValue>& out) {
  struct Level {
    const std::map<std::string, std::string>* values;
    ConfigSource source;
  };
  const std::map<std::string, std::string>* node = nullptr;
  if (broker.per_node != nullptr) {
    if (auto it = broker.per_node->find(broker.node); it != broker.per_node->end()) {
      node = &it->second;
    }
  }
  for (Level level : {Level{node, ConfigSource::kDynamicBroker},
                      Level{broker.dynamic, ConfigSource::kDynamicDefaultBroker},
                      Level{broker.static_settings, ConfigSource::kStaticBroker}}) {
    if (level.values == nullptr) continue;
    for (const BrokerSynonym& syn : def.synonyms) {
      auto it = level.values->find(std::string(syn.key));
      if (it == level.values->end()) continue;
      if (auto v = synonym_value(syn, it->second)) {
        out.push_back({std::string(syn.key), *v, level.source});
      }
    }
  }
}

}  // namespace

std::vector<ResolvedConfig> resolve_topic_configs(
    const std::map<std::string, std::string>& overrides, const BrokerConfigSources& broker) {
  std::vector<ResolvedConfig> out;
  for (const TopicConfigDef& def : topic_config_defs()) {
    ResolvedConfig rc;
    rc.name = std::string(def.name);
    if (auto it = overrides.find(rc.name); it != overrides.end()) {
      rc.synonyms.push_back({rc.name, it->second, ConfigSource::kDynamicTopic});
    }
    add_broker_synonyms(def, broker, rc.synonyms);
    const std::string default_key = def.synonyms.empty() ? rc.name
                                                         : std::string(def.synonyms.front().key);
    rc.synonyms.push_back({default_key, std::string(def.default_value), ConfigSource::kDefault});
    rc.value = rc.synonyms.front().value;
    rc.source = rc.synonyms.front().source;
    out.push_back(std::move(rc));
  }
  return out;
}

BrokerConfigSources broker_config_sources(const metadata::MetadataImage& image,
                                          const std::map<std::string, std::string>* static_settings,
                                          int32_t node_id) {
  return {&image.broker_configs(), static_settings, &image.node_configs(), std::to_string(node_id)};
}

Status check_client_settable(std::string_view key) {
  if (key == kMirrorNameConfig) {
    return Status(ErrorCode::INVALID_CONFIG,
                  fmt::format("{} is set by AddTopicsToMirror only (mirra mirror --add)", key));
  }
  return Status::OK();
}

Status validate_topic_config(const std::string& key, const std::string& value) {
  if (Status s = check_client_settable(key); !s.ok()) return s;
  const TopicConfigDef* def = find_topic_config(key);
  if (def == nullptr) {
    return Status(ErrorCode::INVALID_CONFIG, fmt::format("unknown topic config {}", key));
  }
  if (Status s = check_type(*def, key, value); !s.ok()) return s;
  if (key.ends_with(".replication.throttled.replicas")) {
    if (auto r = parse_throttled_replicas(key, value, 0); !r.ok()) return r.status();
  }
  if (storage_keys().count(key) != 0) {
    auto lc = storage::LogConfig::parse({{key, value}});
    if (!lc.ok()) return lc.status();
  }
  return Status::OK();
}

Status validate_broker_topic_default(const std::string& broker_key, const std::string& value) {
  for (const TopicConfigDef& def : topic_config_defs()) {
    for (const BrokerSynonym& syn : def.synonyms) {
      if (syn.key != broker_key) continue;
      const std::optional<std::string> v = synonym_value(syn, value);
      if (!v) return invalid(broker_key, value, "expected an integer");
      return check_type(def, broker_key, *v);
    }
  }
  return Status::OK();
}

Result<storage::LogConfig> build_log_config(const std::map<std::string, std::string>& overrides,
                                            const BrokerConfigSources& broker) {
  std::map<std::string, std::string> props;
  for (const ResolvedConfig& rc : resolve_topic_configs(overrides, broker)) {
    if (storage_keys().count(rc.name) != 0) props[rc.name] = rc.value;
  }
  if (broker.static_settings != nullptr) {
    if (auto it = broker.static_settings->find("producer.id.expiration.ms");
        it != broker.static_settings->end()) {
      props["producer.id.expiration.ms"] = it->second;
    }
  }
  return storage::LogConfig::parse(props);
}

}  // namespace mirra::cluster
