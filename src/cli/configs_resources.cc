// `mirra configs` for topics and brokers, as kafka-configs.sh: --describe prints the configs set
// on the entity (its dynamic ones; every config with --all) with their synonyms, and --alter
// sends IncrementalAlterConfigs SET and DELETE operations. Without --entity-name, --describe
// covers every topic, or every broker and the cluster-wide broker default.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "cli/common.h"
#include "cli/configs_command.h"

namespace mirra::cli::configs_cmd {
namespace {

// The entities a --describe covers: the named one, else every one of the type (for brokers, the
// cluster-wide default "" after the brokers, as kafka-configs.sh lists them).
Result<std::vector<std::string>> described_names(client::SyncClient& c, const ConfigsArgs& a) {
  if (!a.entity_names.empty()) return std::vector<std::string>{a.entity_names.front().value_or("")};
  std::vector<std::string> out;
  if (entity_kind(a) == kTopicsEntity) {
    auto md = c.metadata(std::nullopt);
    if (!md.ok()) return md.status();
    for (const client::TopicInfo& t : md->topics) out.push_back(t.name);
    std::sort(out.begin(), out.end());
    return out;
  }
  auto cluster = c.describe_cluster();
  if (!cluster.ok()) return cluster.status();
  for (const auto& b : cluster->brokers) out.push_back(std::to_string(b.node_id));
  out.push_back("");
  return out;
}

// The keys set on the entity itself (kafka-configs.sh refuses to delete any other).
Result<std::set<std::string>> dynamic_keys(client::SyncClient& c, const std::string& type,
                                           const std::string& name) {
  auto r = c.describe_configs({config_resource(type, name)});
  if (!r.ok()) return r.status();
  std::set<std::string> out;
  for (const client::ConfigResourceResult& res : *r) {
    if (!res.status.ok()) return res.status;
    for (const client::ConfigEntry& e : shown_entries(res.entries, type, name, false)) {
      out.insert(e.name);
    }
  }
  return out;
}

}  // namespace

int describe_resources(client::SyncClient& c, const ConfigsArgs& a) {
  const std::string& type = entity_kind(a);
  auto names = described_names(c, a);
  if (!names.ok()) return fail(kCommand, names.status().message());
  std::vector<client::ConfigResource> resources;
  for (const std::string& name : *names) resources.push_back(config_resource(type, name));
  auto r = c.describe_configs(std::move(resources), /*include_synonyms=*/true);
  if (!r.ok()) return fail(kCommand, r.status().message());
  for (const client::ConfigResourceResult& res : *r) {
    if (!res.status.ok()) return fail(kCommand, res.status.message());
    fmt::print("{}\n", resource_header(type, res.resource.name, a.all));
    for (const client::ConfigEntry& e : shown_entries(res.entries, type, res.resource.name, a.all))
      fmt::print("{}\n", config_entry_line(e));
  }
  return 0;
}

int alter_resource(client::SyncClient& c, const ConfigsArgs& a) {
  const std::string& type = entity_kind(a);
  const std::string name = a.entity_names.front().value_or("");
  auto alterations = config_alterations(a.add_config, a.delete_config);
  if (!alterations.ok()) return fail(kCommand, alterations.status().message());
  std::vector<std::string> deletes;
  for (const client::ConfigAlteration& x : *alterations) {
    if (x.op == client::AlterConfigOp::remove) deletes.push_back(x.name);
  }
  if (!deletes.empty()) {
    auto keys = dynamic_keys(c, type, name);
    if (!keys.ok()) return fail(kCommand, keys.status().message());
    if (Status s = check_deletable(deletes, *keys); !s.ok()) return fail(kCommand, s.message());
  }
  auto r = c.incremental_alter_configs({{config_resource(type, name), std::move(*alterations)}});
  if (!r.ok()) return fail(kCommand, r.status().message());
  for (const client::ResourceResult& res : *r) {
    if (!res.status.ok()) return fail(kCommand, res.status.message());
  }
  fmt::print("{}\n", completed_line(type, a.entity_names.front()));
  return 0;
}

}  // namespace mirra::cli::configs_cmd
