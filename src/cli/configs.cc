// `mirra configs`: like kafka-configs.sh, for topics and brokers (configs_resources.cc) and for
// users and clients: client quotas and users' SCRAM credentials (configs_quotas.cc). This file
// has the options and the dispatch.
//
// kafka-configs.sh pairs the repeated --entity-type options with the --entity-name and
// --entity-default options in command-line order (`--entity-type users --entity-name alice
// --entity-type clients --entity-default`); CLI11 keeps each option's values apart, so the
// order of names and defaults is read back from the parse order.
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/configs_command.h"

namespace mirra::cli {
namespace {

using configs_cmd::kCommand;

int run_configs(ConfigsArgs& a) {
  if (Status s = check_configs_args(a); !s.ok()) return fail(kCommand, s.message());
  auto client = open_client(a.bootstrap, a.command_config, a.command_properties);
  if (!client.ok()) return fail(kCommand, client.status().message());
  client::SyncClient& c = *client.value();
  if (is_quota_kind(a))
    return a.alter ? configs_cmd::alter_quotas(c, a) : configs_cmd::describe_quotas(c, a);
  return a.alter ? configs_cmd::alter_resource(c, a) : configs_cmd::describe_resources(c, a);
}

// The --entity-name values and --entity-default flags in the order given.
void collect_entity_names(const CLI::App& sub, const CLI::Option* name_opt,
                          const CLI::Option* default_opt, const std::vector<std::string>& names,
                          ConfigsArgs& a) {
  a.entity_names.clear();
  size_t next_name = 0;
  for (const CLI::Option* opt : sub.parse_order()) {
    if (opt == name_opt && next_name < names.size()) {
      a.entity_names.emplace_back(names[next_name++]);
    } else if (opt == default_opt) {
      a.entity_names.emplace_back(std::nullopt);
    }
  }
}

}  // namespace

void add_configs_command(CLI::App& app, CommandResult& result) {
  auto a = std::make_shared<ConfigsArgs>();
  auto names = std::make_shared<std::vector<std::string>>();
  auto defaults = std::make_shared<int>(0);  // counted; the order comes from the parse order
  CLI::App* sub = app.add_subcommand(
      "configs",
      "Describe and alter configs of topics, brokers, users and clients (like kafka-configs.sh)");
  add_bootstrap_option(sub, a->bootstrap);
  sub->add_option("--command-config", a->command_config, "Client properties file");
  sub->add_option("--command-property", a->command_properties, "Client property key=value");
  sub->add_flag("--alter", a->alter, "Alter the entity's configs");
  sub->add_flag("--describe", a->describe,
                "Describe the entity's configs (every entity of the type without a name)");
  sub->add_flag("--all", a->all,
                "With --describe of topics or brokers: every config, not only the dynamic ones");
  sub->add_option("--entity-type", a->entity_types,
                  "Type of entity: topics, brokers, users, clients (users and clients may be "
                  "given together)");
  CLI::Option* name_opt = sub->add_option(
      "--entity-name", *names,
      "Name of the entity (topic, broker id, user, client id); pairs with --entity-type in order");
  CLI::Option* default_opt =
      sub->add_flag("--entity-default", *defaults,
                    "The default entity (brokers: the cluster-wide default; users, clients); "
                    "pairs with --entity-type in order");
  sub->add_option("--add-config", a->add_config,
                  "Configs to set: 'k1=v1,k2=[v2,v3]'; quotas 'producer_byte_rate=1048576'; "
                  "SCRAM 'SCRAM-SHA-256=[iterations=8192,password=secret]'");
  sub->add_option("--delete-config", a->delete_config, "Configs to remove: 'k1,k2'");
  sub->callback([a, names, defaults, sub, name_opt, default_opt, &result] {
    collect_entity_names(*sub, name_opt, default_opt, *names, *a);
    result.exit_code = run_configs(*a);
  });
}

}  // namespace mirra::cli
