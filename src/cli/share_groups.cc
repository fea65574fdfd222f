// `mirra share-groups`: list, describe, reset the start offsets of, and delete share groups
// (KIP-932), like kafka-share-groups.sh, with its option names. It shares the option struct,
// option rules, value formats, reset plan and tables of `mirra groups` (groups_logic.h,
// groups_command.h). This file has the options, --list, --delete and --delete-offsets;
// share_groups_describe.cc and share_groups_reset.cc the rest.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/share_groups_command.h"

namespace mirra::cli {
namespace share_groups_cmd {

Result<std::vector<std::string>> all_share_groups(client::SyncClient& c) {
  auto listed = c.list_groups({}, {"share"});
  if (!listed.ok()) return listed.status();
  // A partial list would make --all-groups silently skip groups: fail instead, as Kafka does.
  if (!listed->errors.empty()) return listed->errors.front();
  std::vector<std::string> out;
  for (const client::GroupListing& g : listed->groups) out.push_back(g.group_id);
  return out;
}

Result<std::vector<std::string>> target_groups(client::SyncClient& c, const GroupsCommand& cmd) {
  if (cmd.all_groups) return all_share_groups(c);
  return cmd.groups;
}

bool other_type_group(client::SyncClient& c, const std::string& group) {
  // DescribeGroups answers an unknown group as Dead (Kafka) or GROUP_ID_NOT_FOUND.
  auto d = c.describe_groups(std::vector<std::string>{group});
  return d.ok() && d->front().status.ok() && d->front().state != "Dead" &&
         d->front().protocol_type != "share";
}

std::string missing_group(client::SyncClient& c, const std::string& group) {
  if (other_type_group(c, group)) return fmt::format("Group '{}' is not a share group.", group);
  return fmt::format("Share group '{}' does not exist.", group);
}

}  // namespace share_groups_cmd

namespace {

using share_groups_cmd::kCommand;

int list(client::SyncClient& c, const GroupsCommand& cmd) {
  auto listed = c.list_groups(cmd.states, {"share"});
  if (!listed.ok()) return fail(kCommand, listed.status().message());
  if (!listed->errors.empty()) {
    return fail(kCommand, fmt::format("cannot list the groups of every broker: {}",
                                      listed->errors.front().message()));
  }
  fmt::print("{}", group_listing(listed->groups, cmd.with_state));
  return 0;
}

// DeleteGroups deletes a group of any type: only the ids ShareGroupDescribe knows as share
// groups are sent, as kafka-share-groups.sh does.
int remove(client::SyncClient& c, const GroupsCommand& cmd) {
  auto groups = share_groups_cmd::target_groups(c, cmd);
  if (!groups.ok()) return fail(kCommand, groups.status().message());
  if (groups->empty()) return fail(kCommand, "there are no share groups to delete");
  auto described = c.describe_share_groups(groups.value());
  if (!described.ok()) return fail(kCommand, described.status().message());
  std::vector<std::string> share_groups;
  int exit_code = 0;
  for (const client::ShareGroupDescription& d : *described) {
    if (d.status.code() == ErrorCode::GROUP_ID_NOT_FOUND) {
      exit_code = fail(kCommand, share_groups_cmd::missing_group(c, d.group_id));
    } else if (!d.status.ok()) {
      exit_code = fail(kCommand, d.status.message());
    } else {
      share_groups.push_back(d.group_id);
    }
  }
  if (share_groups.empty()) return exit_code;
  return std::max(exit_code, groups_cmd::delete_groups(c, kCommand, "share", share_groups));
}

// What to say when the whole request was refused.
std::string group_failure(client::SyncClient& c, const std::string& group, const Status& s) {
  switch (s.code()) {
    case ErrorCode::GROUP_ID_NOT_FOUND:
      return share_groups_cmd::missing_group(c, group);
    case ErrorCode::NON_EMPTY_GROUP:
      return fmt::format(
          "Deleting offsets of share group '{}' is forbidden while the group has members.", group);
    default:
      return s.message();
  }
}

int delete_offsets(client::SyncClient& c, const GroupsCommand& cmd) {
  const std::string& group = cmd.groups.front();
  std::vector<std::string> topics;
  for (const TopicSpec& t : cmd.topics) topics.push_back(t.topic);
  auto r = c.delete_share_group_offsets(group, topics);
  if (!r.ok()) return fail(kCommand, group_failure(c, group, r.status()));
  Table table({"TOPIC", "STATUS"}, {30});
  std::string first_error;
  for (const client::TopicResult& t : *r) {
    table.add({t.name, t.status.ok() ? "Successful" : "Error: " + t.status.message()});
    if (!t.status.ok() && first_error.empty()) first_error = t.status.message();
  }
  fmt::print("{}", table.render());
  if (!first_error.empty()) {
    return fail(kCommand, fmt::format("some offsets of share group '{}' were not deleted: {}",
                                      group, first_error));
  }
  return 0;
}

int run_share_groups(const GroupsArgs& a) {
  auto cmd = check_share_args(a);
  if (!cmd.ok()) return fail(kCommand, cmd.status().message());
  auto client = open_client(a.bootstrap, a.command_config, a.command_properties);
  if (!client.ok()) return fail(kCommand, client.status().message());
  client::SyncClient& c = *client.value();
  switch (cmd->action) {
    case GroupsAction::list:
      return list(c, cmd.value());
    case GroupsAction::describe:
      return share_groups_cmd::describe(c, cmd.value());
    case GroupsAction::remove:
      return remove(c, cmd.value());
    case GroupsAction::reset:
      return share_groups_cmd::reset_offsets(c, cmd.value());
    case GroupsAction::delete_offsets:
      return delete_offsets(c, cmd.value());
  }
  return 1;
}

}  // namespace

void add_share_groups_command(CLI::App& app, CommandResult& result) {
  auto a = std::make_shared<GroupsArgs>();
  CLI::App* sub =
      app.add_subcommand("share-groups",
                         "List, describe, reset the start offsets of and delete share groups (like "
                         "kafka-share-groups.sh)");
  add_bootstrap_option(sub, a->bootstrap);
  sub->add_flag("--list", a->list, "List the share groups");
  sub->add_flag("--describe", a->describe,
                "Describe share groups: start offsets and lag (default), --members or --state");
  sub->add_flag("--delete", a->remove, "Delete share groups that have no members");
  sub->add_flag("--reset-offsets", a->reset, "Reset a share group's start offsets");
  sub->add_flag("--delete-offsets", a->delete_offsets,
                "Forget a share group's state for whole topics");
  sub->add_option("--group", a->groups, "A share group (repeatable)");
  sub->add_flag("--all-groups", a->all_groups, "Every share group");
  sub->add_option("--topic", a->topics,
                  "A topic, or topic:partition,partition for --reset-offsets (repeatable)");
  sub->add_flag("--members", a->members, "With --describe: the members and their assignments");
  sub->add_flag("--offsets", a->offsets, "With --describe: start offsets and lag (the default)");
  sub->add_option("--state", a->state,
                  "With --describe: the group's state; with --list: a STATE column, and only "
                  "groups in these states (Stable, Empty)")
      ->expected(0, 1);
  sub->add_flag("--to-earliest", a->to_earliest, "Reset to the log start offsets");
  sub->add_flag("--to-latest", a->to_latest, "Reset to the log end offsets");
  sub->add_option("--to-offset", a->to_offset, "Reset to this offset (clamped to the log)");
  sub->add_option("--to-datetime", a->to_datetime,
                  "Reset to the first record at/after YYYY-MM-DDTHH:mm:SS.sss (UTC unless a zone "
                  "follows)");
  sub->add_flag("--all-topics", a->all_topics, "Every topic the group has start offsets for");
  sub->add_flag("--dry-run", a->dry_run, "Only show the new start offsets (the default)");
  sub->add_flag("--execute", a->execute, "Set the new start offsets");
  sub->add_option("--command-property", a->command_properties, "Client property key=value");
  sub->add_option("--command-config", a->command_config,
                  "Client properties file (security.protocol, sasl.*, ssl.*, ...)");
  sub->callback([a, sub, &result] {
    a->state_given = sub->count("--state") > 0;
    result.exit_code = run_share_groups(*a);
  });
}

}  // namespace mirra::cli
