#include "server/handlers/config_resources.h"

#include <fmt/format.h>

#include <charconv>
#include <functional>
#include <set>

#include "base/assert.h"
#include "base/log.h"
#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "cluster/topic_admin.h"
#include "metadata/records.h"
#include "mirror/mirror_admin.h"
#include "mirror/mirror_config.h"
#include "mirror/mirror_throttle.h"
#include "security/secrets.h"
#include "server/handlers/authorize.h"

namespace mirra::server {
namespace {

constexpr std::string_view kMirraLogComponent = "configs";

using cluster::ConfigSource;
using cluster::ConfigType;
using cluster::TopicConfigDef;

cluster::BrokerConfigSources broker_sources(const RequestContext& ctx) {
  return cluster::broker_config_sources(ctx.broker->metadata->image(), ctx.broker->static_settings,
                                        ctx.broker->config->node_id);
}

std::string join_listeners(const std::vector<Listener>& listeners) {
  std::string out;
  for (const Listener& l : listeners) out += (out.empty() ? "" : ",") + l.to_string();
  return out;
}

// The broker settings ServerConfig models that are not topic defaults (those come from the
// topic config catalogue). Read-only: they take effect at start-up only.
struct ServerKey {
  std::string_view name;
  ConfigType type;
  std::string_view doc;
  std::function<std::optional<std::string>(const ServerConfig&)> render;
};

const std::vector<ServerKey>& server_keys() {
  using C = ServerConfig;
  auto num = [](auto field) {
    return [field](const C& c) -> std::optional<std::string> { return std::to_string(c.*field); };
  };
  static const std::vector<ServerKey> keys = {
      {"advertised.listeners", ConfigType::kString, "Listeners given to clients; empty: listeners.",
       [](const C& c) -> std::optional<std::string> {
         if (c.advertised_listeners.empty()) return std::nullopt;
         return join_listeners(c.advertised_listeners);
       }},
      {"auto.create.topics.enable", ConfigType::kBoolean,
       "Create unknown topics on Metadata requests.",
       [](const C& c) -> std::optional<std::string> {
         return c.auto_create_topics_enable ? "true" : "false";
       }},
      {"connections.max.idle.ms", ConfigType::kLong, "Close connections idle this long.",
       num(&C::connections_max_idle_ms)},
      {"default.replication.factor", ConfigType::kInt, "Replication factor of new topics.",
       num(&C::default_replication_factor)},
      {"listeners", ConfigType::kString, "Addresses the broker listens on.",
       [](const C& c) -> std::optional<std::string> { return join_listeners(c.listeners); }},
      {"log.dirs", ConfigType::kString, "The directory of the partition logs and metadata.",
       [](const C& c) -> std::optional<std::string> { return c.log_dir; }},
      {"max.connections", ConfigType::kInt, "Most client connections at once.",
       num(&C::max_connections)},
      {"node.id", ConfigType::kInt, "This broker's id.", num(&C::node_id)},
      {"num.io.threads", ConfigType::kInt, "Shard threads that own the partition logs.",
       num(&C::num_io_threads)},
      {"num.network.threads", ConfigType::kInt,
       "Accepted for compatibility; one core thread serves the network.",
       num(&C::num_network_threads)},
      {"num.partitions", ConfigType::kInt, "Partition count of new topics.",
       num(&C::num_partitions)},
      {"socket.request.max.bytes", ConfigType::kInt, "Largest request frame.",
       num(&C::socket_request_max_bytes)},
  };
  return keys;
}

// The topic config whose primary broker synonym is `key`: the dynamic broker keys.
const TopicConfigDef* dynamic_def(std::string_view key) {
  for (const TopicConfigDef& d : cluster::topic_config_defs()) {
    if (!d.synonyms.empty() && d.synonyms.front().key == key) return &d;
  }
  return nullptr;
}

bool is_known_broker_key(const RequestContext& ctx, const std::string& key) {
  for (const ServerKey& k : server_keys()) {
    if (k.name == key) return true;
  }
  for (const TopicConfigDef& d : cluster::topic_config_defs()) {
    for (const cluster::BrokerSynonym& s : d.synonyms) {
      if (s.key == key) return true;
    }
  }
  return ctx.broker->static_settings != nullptr && ctx.broker->static_settings->count(key) != 0;
}

ConfigEntry single_source_entry(const std::string& name, std::optional<std::string> value,
                                ConfigSource source) {
  ConfigEntry e;
  e.name = name;
  e.value = value;
  e.source = source;
  if (value) e.synonyms.push_back({name, *value, source});
  e.type = ConfigType::kString;
  e.read_only = true;
  return e;
}

ConfigType mirror_config_type(const std::string& key) {
  switch (mirror::mirror_config_kind(key)) {
    case mirror::MirrorConfigKind::kInt:
      return ConfigType::kInt;
    case mirror::MirrorConfigKind::kList:
      return ConfigType::kList;
    case mirror::MirrorConfigKind::kPassword:
      return ConfigType::kPassword;
    case mirror::MirrorConfigKind::kString:
      return ConfigType::kString;
    case mirror::MirrorConfigKind::kUnknown:
      break;
  }
  return ConfigType::kUnknown;
}

// Every mirror config: the value the mirror was given (source DYNAMIC_TOPIC_CONFIG, Kafka's
// "set on this resource") or its default. Secrets are marked sensitive: their values are
// dropped below.
std::vector<ConfigEntry> mirror_entries(const RequestContext& ctx, const std::string& name) {
  std::vector<ConfigEntry> out;
  const metadata::MirrorInfo* m = ctx.broker->metadata->image().mirror(name);
  if (m == nullptr) return out;
  for (const auto& [key, default_value] : mirror::mirror_config_defaults()) {
    ConfigEntry e;
    e.name = key;
    auto set = m->configs.find(key);
    if (set != m->configs.end()) {
      e.value = set->second;
      e.source = ConfigSource::kDynamicTopic;
    } else if (!default_value.empty()) {
      e.value = default_value;
    }
    if (e.value) e.synonyms.push_back({key, *e.value, e.source});
    e.type = mirror_config_type(key);
    e.sensitive = mirror::is_secret(key);
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<ConfigEntry> topic_entries(const RequestContext& ctx, const std::string& topic) {
  std::vector<ConfigEntry> out;
  const metadata::TopicInfo* info = ctx.broker->metadata->image().topic(topic);
  if (info == nullptr) return out;
  for (auto& rc : cluster::resolve_topic_configs(info->configs, broker_sources(ctx))) {
    const TopicConfigDef* def = cluster::find_topic_config(rc.name);
    out.push_back({rc.name, rc.value, rc.source, std::move(rc.synonyms), def->type, def->doc});
  }
  return out;
}

std::vector<ConfigEntry> broker_default_entries(const RequestContext& ctx) {
  std::vector<ConfigEntry> out;
  for (const auto& [key, value] : ctx.broker->metadata->image().broker_configs()) {
    ConfigEntry e = single_source_entry(key, value, ConfigSource::kDynamicDefaultBroker);
    if (const TopicConfigDef* def = dynamic_def(key)) {
      e.type = def->type;
      e.doc = def->doc;
    }
    e.read_only = false;
    out.push_back(std::move(e));
  }
  return out;
}

// The dynamic broker keys that are not topic defaults (mirror.replication.throttled.rate) as
// this node runs with them: its own dynamic value, the cluster-wide one, server.properties',
// Kafka's default, the winner first among the synonyms.
std::vector<ConfigEntry> mirror_broker_entries(const RequestContext& ctx) {
  const std::string key(mirror::kMirrorThrottledRateKey);
  const metadata::MetadataImage& image = ctx.broker->metadata->image();
  ConfigEntry e;
  e.name = key;
  e.type = ConfigType::kLong;
  e.doc =
      "Bytes per second all mirror fetches of this broker may take for the partitions "
      "listed in mirror.replication.throttled.replicas.";
  auto add = [&](const std::string* value, ConfigSource source) {
    if (value != nullptr) e.synonyms.push_back({key, *value, source});
  };
  auto find = [&](const std::map<std::string, std::string>& m) -> const std::string* {
    auto it = m.find(key);
    return it == m.end() ? nullptr : &it->second;
  };
  if (auto n = image.node_configs().find(std::to_string(ctx.broker->config->node_id));
      n != image.node_configs().end()) {
    add(find(n->second), ConfigSource::kDynamicBroker);
  }
  add(find(image.broker_configs()), ConfigSource::kDynamicDefaultBroker);
  if (ctx.broker->static_settings != nullptr) {
    add(find(*ctx.broker->static_settings), ConfigSource::kStaticBroker);
  }
  const std::string kafka_default = std::to_string(mirror::kUnthrottledRate);
  add(&kafka_default, ConfigSource::kDefault);
  e.value = e.synonyms.front().value;
  e.source = e.synonyms.front().source;
  return {std::move(e)};
}

// Everything this broker runs with: dynamic topic defaults first (their value resolves through
// the dynamic default, the static setting and Kafka's default), then the start-up settings.
std::vector<ConfigEntry> this_broker_entries(const RequestContext& ctx) {
  std::map<std::string, ConfigEntry> entries;
  for (auto& rc : cluster::resolve_topic_configs({}, broker_sources(ctx))) {
    const TopicConfigDef* def = cluster::find_topic_config(rc.name);
    if (def->synonyms.empty()) continue;
    const std::string key(def->synonyms.front().key);
    entries[key] = {key, rc.value, rc.source, std::move(rc.synonyms), def->type, def->doc};
  }
  const std::map<std::string, std::string> none;
  const auto& statics = ctx.broker->static_settings ? *ctx.broker->static_settings : none;
  for (const ServerKey& k : server_keys()) {
    const std::string key(k.name);
    auto it = statics.find(key);
    ConfigEntry e =
        it != statics.end()
            ? single_source_entry(key, it->second, ConfigSource::kStaticBroker)
            : single_source_entry(key, k.render(*ctx.broker->config), ConfigSource::kDefault);
    e.type = k.type;
    e.doc = k.doc;
    entries.try_emplace(key, std::move(e));
  }
  for (const auto& [key, value] : statics) {
    entries.try_emplace(key, single_source_entry(key, value, ConfigSource::kStaticBroker));
  }
  for (ConfigEntry& e : mirror_broker_entries(ctx)) entries.insert_or_assign(e.name, std::move(e));
  for (ConfigEntry& e : broker_default_entries(ctx)) entries.try_emplace(e.name, std::move(e));
  std::vector<ConfigEntry> out;
  for (auto& [key, e] : entries) out.push_back(std::move(e));
  return out;
}

// A dynamic broker default: a known dynamic key whose value is valid for the topic config it
// is the default of.
Status validate_broker_change(const RequestContext& ctx, const std::string& key,
                              const std::optional<std::string>& value) {
  if (key == mirror::kMirrorThrottledRateKey) {
    return value ? mirror::parse_throttled_rate(*value).status() : Status::OK();
  }
  const TopicConfigDef* def = dynamic_def(key);
  if (def == nullptr) {
    if (is_known_broker_key(ctx, key)) {
      return Status(ErrorCode::INVALID_REQUEST,
                    fmt::format("Cannot update these configs dynamically: {} (only topic defaults "
                                "such as log.retention.ms are dynamic)",
                                key));
    }
    return Status(ErrorCode::INVALID_CONFIG, fmt::format("unknown broker config {}", key));
  }
  if (!value) return Status::OK();
  Status s = cluster::validate_topic_config(std::string(def->name), *value);
  if (!s.ok()) {
    return Status(s.code(), fmt::format("broker config {} (the default of {}): {}", key, def->name,
                                        s.message()));
  }
  return Status::OK();
}

std::string describe_changes(const ConfigChanges& changes) {
  std::string list;
  for (const auto& [key, value] : changes) {
    list += fmt::format("{}{}={}", list.empty() ? "" : ", ", key, value.value_or("(default)"));
  }
  return list;
}

// The broker resource `name` ("" for the cluster-wide defaults, else this node's id) and the
// log line that says what changed there.
std::string broker_resource_label(const std::string& name) {
  return name.empty() ? "cluster-wide broker config" : fmt::format("broker {} config", name);
}

// Dynamic broker configs, cluster-wide or this node's: validated, recorded in the metadata log
// (ConfigRecord on the broker resource `name`), then every partition reconfigured, since the
// keys are topic defaults and the logs resolve them through the image.
asio::awaitable<Status> alter_broker_configs(RequestContext& ctx, const std::string& name,
                                             const ConfigChanges& changes, bool validate_only) {
  for (const auto& [key, value] : changes) {
    if (Status s = validate_broker_change(ctx, key, value); !s.ok()) co_return s;
  }
  using Records = std::vector<metadata::MetadataRecord>;
  auto build = [&](const metadata::MetadataImage&) -> Result<Records> {
    Records out;
    if (validate_only) return out;
    for (const auto& [key, value] : changes) {
      out.push_back(metadata::ConfigRecord{metadata::kBrokerResource, name, key, value});
    }
    return out;
  };
  cluster::PartitionManager* partitions = ctx.broker->partitions;
  auto after = [&changes, &name,
                partitions](const metadata::MetadataImage& image) -> asio::awaitable<void> {
    MIRRA_LOG_INFO("{}: {}", broker_resource_label(name), describe_changes(changes));
    for (const auto& [key, value] : changes) {
      if (value) cluster::warn_if_deprecated(broker_resource_label(name), key);
    }
    // The manager resolves defaults through the image it was given: every topic's logs get
    // their new effective config, overrides still winning.
    for (const auto& [topic_name, topic] : image.topics()) co_await partitions->reconfigure(topic);
  };
  cluster::AfterChange then;  // named, not a conditional temporary inside co_await (g++ 12)
  if (!validate_only) then = after;
  co_return co_await ctx.broker->metadata->change(build, then);
}

}  // namespace

Status check_config_access(RequestContext& ctx, int8_t type, const std::string& name, bool alter) {
  if (type == metadata::kTopicResource) {
    const AclOperation op = alter ? AclOperation::alter_configs : AclOperation::describe_configs;
    if (!authorized(ctx, op, ResourceType::topic, name)) return topic_authorization_failed(name);
  } else if (type == metadata::kBrokerResource) {
    const AclOperation op = alter ? AclOperation::alter_configs : AclOperation::describe_configs;
    if (!authorized_on_cluster(ctx, op)) return cluster_authorization_failed(op);
  } else if (type == metadata::kGroupResource) {
    const AclOperation op = alter ? AclOperation::alter_configs : AclOperation::describe_configs;
    if (!authorized(ctx, op, ResourceType::group, name)) return group_authorization_failed(name);
  } else if (type == kMirrorConfigResource) {
    const AclOperation op = alter ? AclOperation::cluster_action : AclOperation::describe;
    if (!authorized_on_cluster(ctx, op)) return cluster_authorization_failed(op);
  }
  return Status::OK();
}

Result<ConfigTarget> resolve_config_resource(const RequestContext& ctx, int8_t type,
                                             const std::string& name) {
  if (type == metadata::kTopicResource) {
    if (Status s = cluster::validate_topic_name(name); !s.ok()) return s;
    if (ctx.broker->metadata->image().topic(name) == nullptr) {
      return Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                    fmt::format("topic \"{}\" does not exist", name));
    }
    return ConfigTarget::kTopic;
  }
  if (type == metadata::kBrokerResource) {
    if (name.empty()) return ConfigTarget::kBrokerDefault;
    int32_t id = -1;
    auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), id);
    if (ec != std::errc() || end != name.data() + name.size()) {
      return Status(ErrorCode::INVALID_REQUEST,
                    fmt::format("broker id must be an integer, but it is: {}", name));
    }
    const int32_t node_id = ctx.broker->config->node_id;
    if (id != node_id) {
      return Status(
          ErrorCode::INVALID_REQUEST,
          fmt::format("unexpected broker id, expected {} or empty string, but received {}", node_id,
                      name));
    }
    return ConfigTarget::kThisBroker;
  }
  if (type == metadata::kGroupResource) {
    if (name.empty()) return Status(ErrorCode::INVALID_REQUEST, "a group config needs a group id");
    return ConfigTarget::kGroup;
  }
  if (type == kMirrorConfigResource) {
    if (Status s = mirror::validate_mirror_name(name); !s.ok()) return s;
    if (ctx.broker->metadata->image().mirror(name) == nullptr) {
      return Status(ErrorCode::UNKNOWN_MIRROR, fmt::format("mirror '{}' does not exist", name));
    }
    return ConfigTarget::kMirror;
  }
  return Status(ErrorCode::INVALID_REQUEST,
                fmt::format("unsupported resource type {} (Mirra has configs for topics (2), "
                            "brokers (4), groups (32) and mirrors ({}))",
                            type, kMirrorConfigResource));
}

std::vector<bool> duplicated_resources(
    const std::vector<std::pair<int8_t, std::string>>& resources) {
  std::map<std::pair<int8_t, std::string>, int> count;
  for (const auto& r : resources) ++count[r];
  std::vector<bool> out;
  for (const auto& r : resources) out.push_back(count[r] > 1);
  return out;
}

std::vector<ConfigEntry> describe_config_entries(const RequestContext& ctx, ConfigTarget target,
                                                 const std::string& name) {
  std::vector<ConfigEntry> out;
  switch (target) {
    case ConfigTarget::kTopic:
      out = topic_entries(ctx, name);
      break;
    case ConfigTarget::kBrokerDefault:
      out = broker_default_entries(ctx);
      break;
    case ConfigTarget::kThisBroker:
      out = this_broker_entries(ctx);
      break;
    case ConfigTarget::kMirror:
      out = mirror_entries(ctx, name);
      break;
    case ConfigTarget::kGroup:
      out = group_entries(ctx, name);
      break;
  }
  for (ConfigEntry& e : out) {
    if (!e.sensitive && !security::is_secret_setting(e.name)) continue;
    e.sensitive = true;
    e.value.reset();
    for (auto& s : e.synonyms) s.value.clear();
  }
  return out;
}

std::map<std::string, std::string> current_overrides(const RequestContext& ctx, ConfigTarget target,
                                                     const std::string& name) {
  const metadata::MetadataImage& image = ctx.broker->metadata->image();
  if (target == ConfigTarget::kBrokerDefault) return image.broker_configs();
  if (target == ConfigTarget::kThisBroker) {
    auto it = image.node_configs().find(std::to_string(ctx.broker->config->node_id));
    if (it != image.node_configs().end()) return it->second;
  }
  if (target == ConfigTarget::kTopic) {
    if (const metadata::TopicInfo* info = image.topic(name)) return info->configs;
  }
  if (target == ConfigTarget::kMirror) {
    if (const metadata::MirrorInfo* m = image.mirror(name)) return m->configs;
  }
  if (target == ConfigTarget::kGroup) return group_config_overrides(ctx, name);
  return {};
}

cluster::ConfigType config_type(ConfigTarget target, const std::string& key) {
  if (target == ConfigTarget::kMirror) return mirror_config_type(key);
  if (target == ConfigTarget::kGroup) return group_config_type(key);
  const TopicConfigDef* def = target == ConfigTarget::kTopic ? cluster::find_topic_config(key)
                                                             : dynamic_def(key);
  return def == nullptr ? ConfigType::kUnknown : def->type;
}

std::optional<std::string> effective_value(const RequestContext& ctx, ConfigTarget target,
                                           const std::string& name, const std::string& key) {
  // A cluster-wide default not set dynamically is whatever the broker runs with.
  if (target == ConfigTarget::kBrokerDefault) target = ConfigTarget::kThisBroker;
  for (const ConfigEntry& e : describe_config_entries(ctx, target, name)) {
    if (e.name == key) return e.value;
  }
  return std::nullopt;
}

asio::awaitable<Status> alter_config_resource(RequestContext& ctx, ConfigTarget target,
                                              const std::string& name, ConfigChanges changes,
                                              bool validate_only) {
  switch (target) {
    case ConfigTarget::kTopic:
      co_return co_await ctx.broker->topic_admin->alter_topic_configs(name, changes, validate_only);
    case ConfigTarget::kBrokerDefault:
      co_return co_await alter_broker_configs(ctx, name, changes, validate_only);
    case ConfigTarget::kThisBroker: {
      // Recorded under the node id as the image looks it up ("01" names node 1 too).
      const std::string node = std::to_string(ctx.broker->config->node_id);
      co_return co_await alter_broker_configs(ctx, node, changes, validate_only);
    }
    case ConfigTarget::kMirror:  // the mirror's runner reconnects by itself (mirror_admin.h)
      co_return co_await ctx.broker->mirrors->alter_configs(name, changes, validate_only);
    case ConfigTarget::kGroup:
      co_return co_await alter_group_configs(ctx, name, changes, validate_only);
  }
  MIRRA_ASSERT(false, "every config target is handled above");
  co_return Status::OK();
}

}  // namespace mirra::server
