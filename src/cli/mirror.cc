// `mirra mirror`: manage the mirrors of a Mirra cluster, with the option names of KIP-1279's
// kafka-mirror.sh (MIRRORING.md §7). Built so far: --create, --delete, --list.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "base/properties.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/table.h"

namespace mirra::cli {
namespace {

constexpr std::string_view kCommand = "mirror";

struct MirrorArgs {
  std::string bootstrap;
  std::string command_config;
  std::vector<std::string> command_properties;
  bool create = false, remove = false, list = false;
  std::string mirror;
  std::string mirror_config;
};

Result<std::string> read_file(const std::string& path, std::string_view option) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status(ErrorCode::INVALID_CONFIG,
                  fmt::format("cannot read {} {}: {}", option, path, std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A properties file as (key, value) pairs, a later key overriding an earlier one.
Result<std::map<std::string, std::string>> read_properties_file(const std::string& path,
                                                                std::string_view option) {
  auto text = read_file(path, option);
  if (!text.ok()) return text.status();
  auto props = mirra::parse_properties(text.value());
  if (!props.ok()) {
    return Status(ErrorCode::INVALID_CONFIG,
                  fmt::format("{} {}: {}", option, path, props.status().message()));
  }
  std::map<std::string, std::string> out;
  for (const Property& p : props.value()) out[p.key] = p.value;
  return out;
}

// --command-config FILE and --command-property k=v (the latter wins), as client properties.
Result<std::vector<std::string>> client_properties(const MirrorArgs& a) {
  std::vector<std::string> items;
  if (!a.command_config.empty()) {
    auto file = read_properties_file(a.command_config, "--command-config");
    if (!file.ok()) return file.status();
    for (const auto& [key, value] : file.value()) items.push_back(key + "=" + value);
  }
  items.insert(items.end(), a.command_properties.begin(), a.command_properties.end());
  return items;
}

Status check_args(const MirrorArgs& a) {
  const int actions = int(a.create) + int(a.remove) + int(a.list);
  if (actions != 1) {
    return Status(ErrorCode::INVALID_REQUEST,
                  "exactly one of --create, --delete and --list is needed");
  }
  if ((a.create || a.remove) && a.mirror.empty()) {
    return Status(ErrorCode::INVALID_REQUEST, "--mirror is required with --create and --delete");
  }
  if (a.create && a.mirror_config.empty()) {
    return Status(ErrorCode::INVALID_REQUEST,
                  "--create needs --mirror-config FILE (with at least bootstrap.servers)");
  }
  if (!a.create && !a.mirror_config.empty()) {
    return Status(ErrorCode::INVALID_REQUEST, "--mirror-config goes with --create only");
  }
  return Status::OK();
}

int create(client::SyncClient& c, const MirrorArgs& a) {
  auto configs = read_properties_file(a.mirror_config, "--mirror-config");
  if (!configs.ok()) return fail(kCommand, configs.status().message());
  Status s = c.create_mirror(a.mirror, {configs->begin(), configs->end()});
  if (!s.ok()) return fail(kCommand, s.message());
  fmt::print("Created mirror \"{}\".\n", a.mirror);
  return 0;
}

int remove(client::SyncClient& c, const MirrorArgs& a) {
  Status s = c.delete_mirror(a.mirror);
  if (!s.ok()) return fail(kCommand, s.message());
  fmt::print("Deleted mirror \"{}\".\n", a.mirror);
  return 0;
}

int list(client::SyncClient& c) {
  auto mirrors = c.list_mirrors(false);
  if (!mirrors.ok()) return fail(kCommand, mirrors.status().message());
  Table table({"MIRROR", "SOURCE-BOOTSTRAP-SERVERS", "SOURCE-CLUSTER-ID", "TOPICS"});
  for (const client::MirrorListing& m : mirrors.value()) {
    table.add({m.name, m.source_bootstrap_servers, m.source_cluster_id.value_or("-"),
               std::to_string(m.topic_count)});
  }
  fmt::print("{}", table.render());
  return 0;
}

int run_mirror(const MirrorArgs& a) {
  if (Status s = check_args(a); !s.ok()) return fail(kCommand, s.message());
  auto props = client_properties(a);
  if (!props.ok()) return fail(kCommand, props.status().message());
  auto client = open_client(a.bootstrap, props.value());
  if (!client.ok()) return fail(kCommand, client.status().message());
  client::SyncClient& c = *client.value();
  if (a.create) return create(c, a);
  if (a.remove) return remove(c, a);
  return list(c);
}

}  // namespace

void add_mirror_command(CLI::App& app, CommandResult& result) {
  auto a = std::make_shared<MirrorArgs>();
  CLI::App* sub = app.add_subcommand(
      "mirror", "Create, list and delete mirrors of source clusters (like kafka-mirror.sh)");
  add_bootstrap_option(sub, a->bootstrap);
  sub->add_option("--command-config", a->command_config, "Client properties file");
  sub->add_option("--command-property", a->command_properties, "Client property key=value");
  sub->add_flag("--create", a->create, "Create a mirror (--mirror, --mirror-config)");
  sub->add_flag("--delete", a->remove, "Delete a mirror that has no topics");
  sub->add_flag("--list", a->list, "List the mirrors");
  sub->add_option("--mirror", a->mirror, "The mirror's name");
  sub->add_option("--mirror-config", a->mirror_config,
                  "Properties file of the mirror's configs (bootstrap.servers, security, "
                  "mirror.*)");
  sub->callback([a, &result] { result.exit_code = run_mirror(*a); });
}

}  // namespace mirra::cli
