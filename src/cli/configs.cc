// `mirra configs`: like kafka-configs.sh. Entity type `users` for now: SCRAM credentials with
// `--alter --add-config 'SCRAM-SHA-256=[iterations=8192,password=...]'`, `--alter
// --delete-config SCRAM-SHA-512` and `--describe [--entity-name U]`. Topics, brokers and
// clients join later (issue 18) through the same options.
//
// Kafka's KRaft controller refuses a request that names a user twice (DUPLICATE_RESOURCE), so
// kafka-configs.sh fails when given both mechanisms at once; this command sends one request per
// mechanism instead, so that the documented two-mechanism form works. Each request is atomic;
// the command stops at the first refusal, leaving the earlier ones done.
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/configs_logic.h"

namespace mirra::cli {
namespace {

constexpr std::string_view kCommand = "configs";

int alter_users(client::SyncClient& c, const ConfigsArgs& a) {
  const std::string& user = *a.entity_name;
  auto upserts = a.add_config.empty() ? Result<std::vector<client::ScramUpsertion>>(
                                            std::vector<client::ScramUpsertion>{})
                                      : parse_scram_add_config(a.add_config, user);
  if (!upserts.ok()) return fail(kCommand, upserts.status().message());
  auto deletes = a.delete_config.empty() ? Result<std::vector<client::ScramDeletion>>(
                                               std::vector<client::ScramDeletion>{})
                                         : parse_scram_delete_config(a.delete_config, user);
  if (!deletes.ok()) return fail(kCommand, deletes.status().message());
  for (const auto& d : *deletes) {
    for (const auto& u : *upserts) {
      if (u.mechanism == d.mechanism)
        return fail(kCommand, fmt::format("{} is both added and deleted",
                                          security::scram_mechanism_name(d.mechanism)));
    }
  }
  auto check = [&](Result<std::vector<client::ScramUserResult>> r) -> Status {
    if (!r.ok()) return r.status();
    for (const auto& x : *r) {
      if (!x.status.ok()) return x.status;
    }
    return Status::OK();
  };
  for (const auto& d : *deletes) {
    if (Status s = check(c.alter_user_scram_credentials({d}, {})); !s.ok())
      return fail(kCommand, s.message());
  }
  for (const auto& u : *upserts) {
    if (Status s = check(c.alter_user_scram_credentials({}, {u})); !s.ok())
      return fail(kCommand, s.message());
  }
  fmt::print("Completed updating config for user {}.\n", user);
  return 0;
}

// Named: that user's line (nothing when it has no credential, as kafka-configs.sh); else every
// user with a credential.
int describe_users(client::SyncClient& c, const ConfigsArgs& a) {
  std::optional<std::vector<std::string>> names;
  if (a.entity_name) names = std::vector<std::string>{*a.entity_name};
  auto r = c.describe_user_scram_credentials(names);
  if (!r.ok()) return fail(kCommand, r.status().message());
  for (const client::UserScramCredentials& u : *r) {
    if (u.status.code() == ErrorCode::RESOURCE_NOT_FOUND) continue;
    if (!u.status.ok()) return fail(kCommand, u.status.message());
    fmt::print("{}\n", describe_line(u));
  }
  return 0;
}

int run_configs(ConfigsArgs& a) {
  if (Status s = check_configs_args(a); !s.ok()) return fail(kCommand, s.message());
  auto client = open_client(a.bootstrap, a.command_properties);
  if (!client.ok()) return fail(kCommand, client.status().message());
  return a.alter ? alter_users(*client.value(), a) : describe_users(*client.value(), a);
}

}  // namespace

void add_configs_command(CLI::App& app, CommandResult& result) {
  auto a = std::make_shared<ConfigsArgs>();
  CLI::App* sub = app.add_subcommand(
      "configs", "Describe and alter configs of entities (like kafka-configs.sh; users for now)");
  add_bootstrap_option(sub, a->bootstrap);
  sub->add_option("--command-property", a->command_properties, "Client property key=value");
  sub->add_flag("--alter", a->alter, "Alter the entity's configs");
  sub->add_flag("--describe", a->describe, "Describe the entity's configs (all without a name)");
  sub->add_option("--entity-type", a->entity_type, "Type of entity: users");
  sub->add_option("--entity-name", a->entity_name, "Name of the entity (a user name)");
  sub->add_flag("--entity-default", a->entity_default, "The default entity (not for users)");
  sub->add_option("--add-config", a->add_config,
                  "Configs to set, e.g. 'SCRAM-SHA-256=[iterations=8192,password=secret],"
                  "SCRAM-SHA-512=[password=secret]' (iterations default to 4096)");
  sub->add_option("--delete-config", a->delete_config, "Configs to remove, e.g. 'SCRAM-SHA-512'");
  sub->callback([a, &result] { result.exit_code = run_configs(*a); });
}

}  // namespace mirra::cli
