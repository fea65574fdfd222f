// `mirra groups`: list, describe, reset offsets of, and delete consumer groups, like
// kafka-consumer-groups.sh, with its option names, its checks and its output columns. This file
// has the options, --list, --delete and --delete-offsets; groups_describe.cc and
// groups_reset.cc the rest; groups_logic.{h,cc} everything that needs no broker.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/groups_command.h"

namespace mirra::cli {
namespace groups_cmd {

Result<std::vector<std::string>> all_consumer_groups(client::SyncClient& c) {
  auto listed = c.list_groups();
  if (!listed.ok()) return listed.status();
  // A partial list would make --all-groups silently skip groups: fail instead, as Kafka does.
  if (!listed->errors.empty()) return listed->errors.front();
  std::vector<std::string> out;
  for (const client::GroupListing& g : listed->groups) {
    if (g.protocol_type == "consumer" || g.protocol_type.empty()) out.push_back(g.group_id);
  }
  return out;
}

Result<std::vector<std::string>> target_groups(client::SyncClient& c, const GroupsCommand& cmd) {
  if (cmd.all_groups) return all_consumer_groups(c);
  return cmd.groups;
}

int delete_groups(client::SyncClient& c, std::string_view command, std::string_view kind,
                  const std::vector<std::string>& groups) {
  auto r = c.delete_groups(groups);
  if (!r.ok()) return fail(command, r.status().message());
  std::vector<std::string> deleted, failures;
  for (const client::GroupResult& g : *r) {
    if (g.status.ok()) {
      deleted.push_back(fmt::format("'{}'", g.group_id));
    } else {
      failures.push_back(fmt::format("could not delete {}", g.status.message()));
    }
  }
  if (!deleted.empty()) {
    fmt::print("Deletion of requested {} groups ({}) was successful.\n", kind,
               fmt::join(deleted, ", "));
  }
  if (!failures.empty()) return fail(command, fmt::format("{}", fmt::join(failures, "; ")));
  return 0;
}

Result<std::vector<client::TopicPartition>> resolve_topics(client::SyncClient& c,
                                                           const std::vector<TopicSpec>& specs) {
  std::vector<client::TopicPartition> out;
  for (const TopicSpec& spec : specs) {
    if (!spec.partitions.empty()) {
      for (int32_t p : spec.partitions) out.push_back({spec.topic, p});
      continue;
    }
    auto t = c.topic(spec.topic);
    if (!t.ok()) return t.status();
    for (const client::PartitionInfo& p : t->partitions) out.push_back({spec.topic, p.partition});
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace groups_cmd

namespace {

using groups_cmd::kCommand;

int list(client::SyncClient& c, const GroupsCommand& cmd) {
  auto listed = c.list_groups(cmd.states);
  if (!listed.ok()) return fail(kCommand, listed.status().message());
  if (!listed->errors.empty()) {
    return fail(kCommand, fmt::format("cannot list the groups of every broker: {}",
                                      listed->errors.front().message()));
  }
  std::vector<client::GroupListing> consumer_groups;
  for (const client::GroupListing& g : listed->groups) {
    if (g.protocol_type == "consumer" || g.protocol_type.empty()) consumer_groups.push_back(g);
  }
  fmt::print("{}", group_listing(consumer_groups, cmd.with_state));
  return 0;
}

int remove(client::SyncClient& c, const GroupsCommand& cmd) {
  auto groups = groups_cmd::target_groups(c, cmd);
  if (!groups.ok()) return fail(kCommand, groups.status().message());
  if (groups->empty()) return fail(kCommand, "there are no consumer groups to delete");
  return groups_cmd::delete_groups(c, kCommand, "consumer", groups.value());
}

// Kafka's wording for the group-level answers of OffsetDelete.
std::string offset_delete_failure(const std::string& group, const Status& s) {
  switch (s.code()) {
    case ErrorCode::GROUP_ID_NOT_FOUND:
      return fmt::format("Consumer group '{}' does not exist.", group);
    case ErrorCode::NON_EMPTY_GROUP:
      return fmt::format(
          "Deleting offsets of a consumer group '{}' is forbidden if the group "
          "is not empty.",
          group);
    default:
      return s.message();
  }
}

int delete_offsets(client::SyncClient& c, const GroupsCommand& cmd) {
  const std::string& group = cmd.groups.front();
  auto partitions = groups_cmd::resolve_topics(c, cmd.topics);
  if (!partitions.ok()) return fail(kCommand, partitions.status().message());
  auto r = c.offset_delete(group, partitions.value());
  if (!r.ok()) return fail(kCommand, offset_delete_failure(group, r.status()));
  Table table({"TOPIC", "PARTITION", "STATUS"}, {30, 15});
  std::string first_error;
  for (const client::PartitionStatus& p : *r) {
    const std::string status = p.status.ok() ? "Successful" : "Error: " + p.status.message();
    table.add({p.tp.topic, std::to_string(p.tp.partition), status});
    if (!p.status.ok() && first_error.empty()) first_error = p.status.message();
  }
  fmt::print("{}", table.render());
  if (!first_error.empty()) {
    return fail(kCommand,
                fmt::format("some offsets of group '{}' were not deleted: {}", group, first_error));
  }
  return 0;
}

int run_groups(const GroupsArgs& a) {
  auto cmd = check_args(a);
  if (!cmd.ok()) return fail(kCommand, cmd.status().message());
  auto client = open_client(a.bootstrap, a.command_config, a.command_properties);
  if (!client.ok()) return fail(kCommand, client.status().message());
  client::SyncClient& c = *client.value();
  switch (cmd->action) {
    case GroupsAction::list:
      return list(c, cmd.value());
    case GroupsAction::describe:
      return groups_cmd::describe(c, cmd.value());
    case GroupsAction::remove:
      return remove(c, cmd.value());
    case GroupsAction::reset:
      return groups_cmd::reset_offsets(c, cmd.value());
    case GroupsAction::delete_offsets:
      return delete_offsets(c, cmd.value());
  }
  return 1;
}

void add_reset_options(CLI::App* sub, GroupsArgs& a) {
  sub->add_flag("--to-earliest", a.to_earliest, "Reset to the log start offsets");
  sub->add_flag("--to-latest", a.to_latest, "Reset to the log end offsets");
  sub->add_flag("--to-current", a.to_current, "Reset to the committed offsets");
  sub->add_option("--to-offset", a.to_offset, "Reset to this offset (clamped to the log)");
  sub->add_option("--shift-by", a.shift_by, "Move the committed offsets by N (may be negative)");
  sub->add_option("--to-datetime", a.to_datetime,
                  "Reset to the first record at/after YYYY-MM-DDTHH:mm:SS.sss (UTC unless a zone "
                  "follows)");
  sub->add_option("--by-duration", a.by_duration,
                  "Reset to the first record at/after now minus PnDTnHnMnS");
  sub->add_flag("--all-topics", a.all_topics, "Every topic the group has offsets for");
  sub->add_flag("--dry-run", a.dry_run, "Only show the new offsets (the default)");
  sub->add_flag("--execute", a.execute, "Commit the new offsets");
}

}  // namespace

void add_groups_command(CLI::App& app, CommandResult& result) {
  auto a = std::make_shared<GroupsArgs>();
  CLI::App* sub =
      app.add_subcommand("groups",
                         "List, describe, reset the offsets of and delete consumer groups (like "
                         "kafka-consumer-groups.sh)");
  add_bootstrap_option(sub, a->bootstrap);
  sub->add_flag("--list", a->list, "List the consumer groups");
  sub->add_flag("--describe", a->describe,
                "Describe groups: offsets and lag (default), "
                "--members or --state");
  sub->add_flag("--delete", a->remove, "Delete groups that have no members");
  sub->add_flag("--reset-offsets", a->reset, "Reset a group's committed offsets");
  sub->add_flag("--delete-offsets", a->delete_offsets, "Delete a group's offsets of topics");
  sub->add_option("--group", a->groups, "A group (repeatable)");
  sub->add_flag("--all-groups", a->all_groups, "Every consumer group");
  sub->add_option("--topic", a->topics, "A topic, or topic:partition,partition (repeatable)");
  sub->add_flag("--members", a->members, "With --describe: the members");
  sub->add_flag("--offsets", a->offsets, "With --describe: offsets and lag (the default)");
  sub->add_flag("--verbose", a->verbose, "With --describe --members: their assignments");
  sub->add_option("--state", a->state,
                  "With --describe: the group's state; with --list: a STATE column, and only "
                  "groups in these states (e.g. Stable,Empty)")
      ->expected(0, 1);
  add_reset_options(sub, *a);
  sub->add_option("--command-property", a->command_properties, "Client property key=value");
  sub->add_option("--command-config", a->command_config,
                  "Client properties file (security.protocol, sasl.*, ssl.*, ...)");
  sub->callback([a, sub, &result] {
    a->state_given = sub->count("--state") > 0;
    result.exit_code = run_groups(*a);
  });
}

}  // namespace mirra::cli
