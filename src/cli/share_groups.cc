// `mirra share-groups`: list, describe, reset the start offsets of, and delete share groups
// (KIP-932), like kafka-share-groups.sh, with its option names. It shares the option struct,
// option rules, value formats, reset plan and tables of `mirra groups` (groups_logic.h,
// groups_command.h). This file has the options, --list, --delete and --delete-offsets;
// share_groups_describe.cc and share_groups_reset.cc the rest.
#include <algorithm>

#include <fmt/format.h>

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
  return groups_cmd::run_action(
      kCommand, a, check_share_args(a),
      {list, share_groups_cmd::describe, remove, share_groups_cmd::reset_offsets, delete_offsets});
}

}  // namespace

void add_share_groups_command(CLI::App& app, CommandResult& result) {
  auto a = std::make_shared<GroupsArgs>();
  CLI::App* sub =
      app.add_subcommand("share-groups",
                         "List, describe, reset the start offsets of and delete share groups (like "
                         "kafka-share-groups.sh)");
  groups_cmd::add_common_options(sub, a, "share", "start", result, run_share_groups);
}

}  // namespace mirra::cli
