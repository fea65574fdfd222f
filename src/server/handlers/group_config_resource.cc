// The GROUP config resource (type 32): a share group's share.* configs (groups/
// share_group_configs.h) as DescribeConfigs and (Incremental)AlterConfigs see them. Overrides
// are ConfigRecords on resource type 32 in the metadata log; the rest is the broker's defaults.
#include <fmt/format.h>

#include "base/log.h"
#include "cluster/metadata_store.h"
#include "groups/share_group_configs.h"
#include "server/handlers/config_resources.h"

namespace mirra::server {
namespace {

constexpr std::string_view kMirraLogComponent = "configs";

using cluster::ConfigSource;
using cluster::ConfigType;

const std::map<std::string, std::string>* group_overrides(const RequestContext& ctx,
                                                          const std::string& group) {
  const auto& all = ctx.broker->metadata->image().group_configs();
  auto it = all.find(group);
  return it == all.end() ? nullptr : &it->second;
}

}  // namespace

std::vector<ConfigEntry> group_entries(const RequestContext& ctx, const std::string& group) {
  const groups::ShareGroupConfig& broker = ctx.broker->config->groups.share;
  const auto* overrides = group_overrides(ctx, group);
  std::vector<ConfigEntry> out;
  for (const groups::ShareGroupConfigKey& k : groups::share_group_config_keys()) {
    ConfigEntry e;
    e.name = std::string(k.name);
    const std::string fallback = groups::share_group_config_default(broker, k.name);
    const auto set = overrides ? overrides->find(e.name) : decltype(overrides->end()){};
    if (overrides != nullptr && set != overrides->end()) {
      e.value = set->second;
      e.source = ConfigSource::kGroup;
      e.synonyms.push_back({e.name, set->second, ConfigSource::kGroup});
    } else {
      e.value = fallback;
      e.source = ConfigSource::kDefault;
    }
    e.synonyms.push_back({e.name, fallback, ConfigSource::kDefault});
    e.type = k.is_int ? ConfigType::kInt : ConfigType::kString;
    e.doc = std::string(k.doc);
    e.read_only = false;
    out.push_back(std::move(e));
  }
  return out;
}

const std::map<std::string, std::string>& group_config_overrides(const RequestContext& ctx,
                                                                 const std::string& group) {
  static const std::map<std::string, std::string> none;
  const auto* overrides = group_overrides(ctx, group);
  return overrides ? *overrides : none;
}

ConfigType group_config_type(const std::string& key) {
  const groups::ShareGroupConfigKey* k = groups::find_share_group_config_key(key);
  if (k == nullptr) return ConfigType::kUnknown;
  return k->is_int ? ConfigType::kInt : ConfigType::kString;
}

asio::awaitable<Status> alter_group_configs(RequestContext& ctx, const std::string& group,
                                            const ConfigChanges& changes, bool validate_only) {
  const groups::ShareGroupConfig& broker = ctx.broker->config->groups.share;
  for (const auto& [key, value] : changes) {
    if (Status s = groups::validate_share_group_config(broker, key, value); !s.ok()) co_return s;
  }
  using Records = std::vector<metadata::MetadataRecord>;
  auto build = [&](const metadata::MetadataImage&) -> Result<Records> {
    Records out;
    if (validate_only) return out;
    for (const auto& [key, value] : changes) {
      out.push_back(metadata::ConfigRecord{metadata::kGroupResource, group, key, value});
    }
    return out;
  };
  auto after = [&](const metadata::MetadataImage&) -> asio::awaitable<void> {
    std::string list;
    for (const auto& [key, value] : changes) {
      list += fmt::format("{}{}={}", list.empty() ? "" : ", ", key, value.value_or("(default)"));
    }
    MIRRA_LOG_INFO("group {} config: {}", group, list);
    co_return;
  };
  cluster::AfterChange then;  // named, not a conditional temporary inside co_await (g++ 12)
  if (!validate_only) then = after;
  co_return co_await ctx.broker->metadata->change(build, then);
}

}  // namespace mirra::server
