// `mirra acls`: add, remove and list ACLs like kafka-acls.sh, with its options and its output
// ("Current ACLs for resource `ResourcePattern(...)`:" and one entry per line). The command
// line is checked by acls_logic.cc before anything is sent; Mirra never prompts, so --force is
// accepted and changes nothing.
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "cli/acls_logic.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace mirra::cli {
namespace {

constexpr std::string_view kCommand = "acls";

// The ACLs now on the resources of `acls`, printed as kafka-acls.sh does after a change.
int print_current(client::SyncClient& c, const std::vector<security::AclBinding>& acls) {
  std::set<std::tuple<security::ResourceType, std::string, security::PatternType>> seen;
  std::vector<security::AclBinding> current;
  for (const security::AclBinding& b : acls) {
    if (!seen.insert({b.resource_type, b.resource_name, b.pattern_type}).second) continue;
    security::AclBindingFilter f;
    f.resource_type = b.resource_type;
    f.resource_name = b.resource_name;
    f.pattern_type = b.pattern_type;
    auto found = c.describe_acls(f);
    if (!found.ok()) return fail(kCommand, found.status().message());
    current.insert(current.end(), found->begin(), found->end());
  }
  fmt::print("{}", format_acls("Current ACLs for resource", current));
  return 0;
}

int add(client::SyncClient& c, const AclsPlan& plan) {
  fmt::print("{}", format_acls("Adding ACLs for resource", plan.add));
  auto results = c.create_acls(plan.add);
  if (!results.ok()) return fail(kCommand, results.status().message());
  for (const Status& s : results.value()) {
    if (!s.ok()) return fail(kCommand, s.message());
  }
  return print_current(c, plan.add);
}

int remove(client::SyncClient& c, const AclsPlan& plan) {
  auto results = c.delete_acls(plan.filters);
  if (!results.ok()) return fail(kCommand, results.status().message());
  std::vector<security::AclBinding> removed;
  for (const client::AclDeletion& d : results.value()) {
    if (!d.status.ok()) return fail(kCommand, d.status.message());
    removed.insert(removed.end(), d.deleted.begin(), d.deleted.end());
  }
  fmt::print("{}", format_acls("Removed ACLs for resource", removed));
  return print_current(c, removed);
}

int list(client::SyncClient& c, const AclsPlan& plan) {
  std::vector<security::AclBinding> found;
  for (const security::AclBindingFilter& f : plan.filters) {
    auto acls = c.describe_acls(f);
    if (!acls.ok()) return fail(kCommand, acls.status().message());
    found.insert(found.end(), acls->begin(), acls->end());
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  fmt::print("{}", format_acls("Current ACLs for resource", found));
  return 0;
}

int run(const AclsArgs& a) {
  auto plan = plan_acls(a);
  if (!plan.ok()) return fail(kCommand, plan.status().message());
  auto client = open_client(a.bootstrap, a.command_properties);
  if (!client.ok()) return fail(kCommand, client.status().message());
  switch (plan->action) {
    case AclsAction::add:
      return add(*client.value(), plan.value());
    case AclsAction::remove:
      return remove(*client.value(), plan.value());
    case AclsAction::list:
      break;
  }
  return list(*client.value(), plan.value());
}

}  // namespace

void add_acls_command(CLI::App& app, CommandResult& result) {
  auto a = std::make_shared<AclsArgs>();
  CLI::App* sub = app.add_subcommand("acls", "Add, remove and list ACLs (like kafka-acls.sh)");
  add_bootstrap_option(sub, a->bootstrap);
  sub->add_option("--command-property", a->command_properties, "Client property key=value");
  sub->add_flag("--add", a->add, "Add the ACLs");
  sub->add_flag("--remove", a->remove, "Remove ACLs");
  sub->add_flag("--list", a->list, "List ACLs (all, or those of the resources named)");
  sub->add_flag("--force", a->force, "Accepted for kafka-acls.sh's sake: Mirra never prompts");
  sub->add_option("--allow-principal", a->allow_principals, "Principal (User:alice) to allow");
  sub->add_option("--deny-principal", a->deny_principals, "Principal (User:alice) to deny");
  sub->add_option("--allow-host", a->allow_hosts, "Host (IP) the allowed principals come from");
  sub->add_option("--deny-host", a->deny_hosts, "Host (IP) the denied principals come from");
  sub->add_option("--operation", a->operations,
                  "Read, Write, Create, Delete, Alter, Describe, ClusterAction, DescribeConfigs, "
                  "AlterConfigs, IdempotentWrite, All (default All)");
  sub->add_option("--topic", a->topics, "Topic (\"*\": every topic)");
  sub->add_option("--group", a->groups, "Consumer group (\"*\": every group)");
  sub->add_option("--transactional-id", a->transactional_ids, "Transactional id");
  sub->add_flag("--cluster", a->cluster, "The cluster resource");
  sub->add_option("--resource-pattern-type", a->pattern_type,
                  "literal (default), prefixed; any or match with --list and --remove");
  sub->add_option("--principal", a->principals, "With --list: only this principal's ACLs");
  sub->add_flag("--producer", a->producer,
                "ACLs of a producer: WRITE, DESCRIBE, CREATE on the topics (WRITE, DESCRIBE on "
                "the transactional ids)");
  sub->add_flag("--consumer", a->consumer,
                "ACLs of a consumer: READ, DESCRIBE on the topics, READ on the group");
  sub->add_flag("--idempotent", a->idempotent, "With --producer: IDEMPOTENT_WRITE on the cluster");
  sub->callback([&result, a] { result.exit_code = run(*a); });
}

}  // namespace mirra::cli
