#include "cli/share_groups_logic.h"

#include <fmt/format.h>

#include "cli/table.h"

namespace mirra::cli {
namespace {

Status invalid(std::string message) {
  return Status(ErrorCode::INVALID_CONFIG, std::move(message));
}

}  // namespace

Result<GroupsCommand> check_share_args(const GroupsArgs& a) {
  // Checked before the groups rules, whose messages list the scenarios and states of consumer
  // groups.
  const int scenarios = a.to_earliest + a.to_latest + a.to_offset.has_value() +
                        a.to_datetime.has_value();
  if (a.reset && scenarios != 1) {
    return invalid(
        "--reset-offsets takes exactly one of --to-earliest, --to-latest, --to-offset, "
        "--to-datetime");
  }
  if (a.list && !a.state.empty() && !a.state.front().empty()) {
    auto states = parse_states(a.state.front(), kShareGroupStates);
    if (!states.ok()) return states.status();
  }
  auto cmd = check_args(a);
  if (!cmd.ok()) return cmd.status();
  if (cmd->action == GroupsAction::delete_offsets) {
    for (const TopicSpec& t : cmd->topics) {
      if (!t.partitions.empty()) {
        return invalid(fmt::format(
            "--delete-offsets of a share group takes whole topics: --topic {} (no partitions)",
            t.topic));
      }
    }
  }
  return cmd;
}

std::vector<client::TopicPartition> lag_unknown(
    const std::vector<client::ShareGroupOffset>& offsets) {
  std::vector<client::TopicPartition> out;
  for (const client::ShareGroupOffset& o : offsets) {
    if (o.status.ok() && o.start_offset >= 0 && o.lag < 0) out.push_back(o.tp);
  }
  return out;
}

std::string share_offsets_table(const std::string& group,
                                const std::vector<client::ShareGroupOffset>& offsets,
                                const std::map<client::TopicPartition, int64_t>& log_end) {
  if (offsets.empty()) return "";
  Table table({"GROUP", "TOPIC", "PARTITION", "START-OFFSET", "LAG"}, {15, 15, 10, 15});
  for (const client::ShareGroupOffset& o : offsets) {
    std::optional<int64_t> start, lag;
    if (o.status.ok() && o.start_offset >= 0) start = o.start_offset;
    if (start && o.lag >= 0) {
      lag = o.lag;
    } else if (auto it = log_end.find(o.tp); it != log_end.end()) {
      lag = lag_of(start, it->second);
    }
    table.add({group, o.tp.topic, std::to_string(o.tp.partition), or_dash(start), or_dash(lag)});
  }
  return table.render();
}

std::vector<MemberView> share_member_views(const client::ShareGroupDescription& d) {
  std::vector<MemberView> out;
  for (const client::ShareGroupMember& m : d.members) {
    out.push_back({m.member_id, "", m.client_host, m.client_id, m.assignment});
  }
  return out;
}

std::string share_state_table(const client::ShareGroupDescription& d) {
  Table table({"GROUP", "COORDINATOR (ID)", "STATE", "GROUP-EPOCH", "ASSIGNMENT-EPOCH", "#MEMBERS"},
              {15, 25, 10, 12, 17});
  table.add({d.group_id, coordinator_cell(d.coordinator), d.state, std::to_string(d.group_epoch),
             std::to_string(d.assignment_epoch), std::to_string(d.members.size())});
  return table.render();
}

}  // namespace mirra::cli
