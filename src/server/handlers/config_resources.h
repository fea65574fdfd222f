// Config resources as DescribeConfigs, AlterConfigs and IncrementalAlterConfigs see them: which
// resource a request names, every config entry of a topic or of the broker with its value,
// source and synonyms, and the changes themselves.
//
// Topic configs are the catalogue of cluster/topic_config.h. Broker configs are the broker's
// settings (ServerConfig's keys, everything in server.properties and --override) plus the
// dynamic ones kept in the metadata image: cluster-wide (ConfigRecord on the broker resource "")
// and this node's own (resource "<node id>", source DYNAMIC_BROKER_CONFIG, winning over the
// cluster-wide ones as in Kafka). Only the keys Mirra applies at run time are dynamic: each
// topic config's primary broker synonym (log.retention.ms, log.segment.bytes,
// message.max.bytes, ...). Changing one reconfigures every partition so that topics without an
// override follow it at once. Any other broker key is refused per key with Kafka's
// INVALID_REQUEST "Cannot update these configs dynamically: <key>".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "cluster/topic_config.h"
#include "server/request_context.h"

namespace mirra::server {

// docs/mirroring-design.md §7: a mirror's configs are a config resource of their own. Kafka has no
// number for it; Mirra takes the next free one after Kafka's GROUP (32).
inline constexpr int8_t kMirrorConfigResource = 64;

// What a config resource of a request designates.
enum class ConfigTarget {
  kTopic,          // resource type 2, an existing topic
  kBrokerDefault,  // resource type 4, name "": the cluster-wide dynamic defaults
  kThisBroker,     // resource type 4, name = this node's id
  kMirror,         // resource type 64, an existing mirror (secrets read back as null)
  kGroup,          // resource type 32, a group id (it need not exist yet, as in Kafka)
};

// Checks (type, name) with Kafka's errors: an invalid topic name is INVALID_TOPIC_EXCEPTION,
// an unknown topic UNKNOWN_TOPIC_OR_PARTITION, an unknown mirror UNKNOWN_MIRROR, a broker name
// other than "" or this node's id and any other resource type INVALID_REQUEST.
Result<ConfigTarget> resolve_config_resource(const RequestContext& ctx, int8_t type,
                                             const std::string& name);

// May the caller describe (`alter` false) or change the configs of (type, name)? Checked before
// the resource is looked up. Topics: DESCRIBE_CONFIGS / ALTER_CONFIGS on the topic
// (TOPIC_AUTHORIZATION_FAILED); brokers: the same on the cluster (CLUSTER_AUTHORIZATION_FAILED);
// mirrors: DESCRIBE / CLUSTER_ACTION on the cluster (docs/mirroring-design.md §9).
Status check_config_access(RequestContext& ctx, int8_t type, const std::string& name, bool alter);

// The same resource named twice in one request: Kafka answers INVALID_REQUEST for it.
std::vector<bool> duplicated_resources(
    const std::vector<std::pair<int8_t, std::string>>& resources);

// AlterConfigs and IncrementalAlterConfigs: one answer per resource of the request, in order.
// Each resource is resolved, its changes computed by changes_of(ctx, target, resource) ->
// Result<ConfigChanges>, then applied with alter_config_resource() (declared below).
template <typename Resp, typename Req, typename ChangesOf>
asio::awaitable<Resp> alter_each_resource(RequestContext& ctx, const Req& req,
                                          ChangesOf changes_of);

struct ConfigEntry {
  std::string name;
  std::optional<std::string> value;  // null for sensitive values and unset keys
  cluster::ConfigSource source = cluster::ConfigSource::kDefault;
  std::vector<cluster::ConfigSynonymValue> synonyms;  // the winning one first
  cluster::ConfigType type = cluster::ConfigType::kUnknown;
  std::string_view doc;
  bool read_only = false;
  bool sensitive = false;
};

// Every config of the resource, sorted by name.
std::vector<ConfigEntry> describe_config_entries(const RequestContext& ctx, ConfigTarget target,
                                                 const std::string& name);

// key -> new value, or nullopt to remove the key (back to the default).
using ConfigChanges = std::map<std::string, std::optional<std::string>>;

// The keys set on the resource now: a topic's overrides, the dynamic broker defaults, or a
// mirror's configs.
std::map<std::string, std::string> current_overrides(const RequestContext& ctx, ConfigTarget target,
                                                     const std::string& name);
// The type of `key` on the resource (kUnknown for an unknown key).
cluster::ConfigType config_type(ConfigTarget target, const std::string& key);
// The value `key` has on the resource now (override, broker default or Kafka default).
std::optional<std::string> effective_value(const RequestContext& ctx, ConfigTarget target,
                                           const std::string& name, const std::string& key);

// Validates and (unless validate_only) records the changes, then applies them to the logs;
// logs one line per change.
asio::awaitable<Status> alter_config_resource(RequestContext& ctx, ConfigTarget target,
                                              const std::string& name, ConfigChanges changes,
                                              bool validate_only);

template <typename Resource, typename ChangesOf>
asio::awaitable<Status> alter_one_resource(RequestContext& ctx, const Resource& r,
                                           ChangesOf changes_of, bool validate_only) {
  if (Status s = check_config_access(ctx, r.resource_type, r.resource_name, true); !s.ok()) {
    co_return s;
  }
  auto target = resolve_config_resource(ctx, r.resource_type, r.resource_name);
  if (!target.ok()) co_return target.status();
  auto changes = changes_of(ctx, target.value(), r);
  if (!changes.ok()) co_return changes.status();
  co_return co_await alter_config_resource(ctx, target.value(), r.resource_name,
                                           std::move(changes.value()), validate_only);
}

template <typename Resp, typename Req, typename ChangesOf>
asio::awaitable<Resp> alter_each_resource(RequestContext& ctx, const Req& req,
                                          ChangesOf changes_of) {
  std::vector<std::pair<int8_t, std::string>> names;
  for (const auto& r : req.resources) names.emplace_back(r.resource_type, r.resource_name);
  const std::vector<bool> duplicated = duplicated_resources(names);
  Resp resp;
  for (size_t i = 0; i < req.resources.size(); ++i) {
    const auto& r = req.resources[i];
    Status s(ErrorCode::INVALID_REQUEST, "duplicate resource in the request");
    if (!duplicated[i]) s = co_await alter_one_resource(ctx, r, changes_of, req.validate_only);
    auto& out = resp.responses.emplace_back();
    out.error_code = error_number(s.code());
    out.error_message = std::nullopt;
    if (!s.ok()) out.error_message = s.message();
    out.resource_type = r.resource_type;
    out.resource_name = r.resource_name;
  }
  co_return resp;
}

// group_config_resource.cc: the GROUP resource (share groups' share.* configs).
std::vector<ConfigEntry> group_entries(const RequestContext& ctx, const std::string& group);
const std::map<std::string, std::string>& group_config_overrides(const RequestContext& ctx,
                                                                 const std::string& group);
cluster::ConfigType group_config_type(const std::string& key);
asio::awaitable<Status> alter_group_configs(RequestContext& ctx, const std::string& group,
                                            const ConfigChanges& changes, bool validate_only);

}  // namespace mirra::server
