// `mirra groups --describe`: per group, the partitions with committed offset, log end offset,
// lag and owning member (the default, as kafka-consumer-groups.sh), or the members (--members,
// with their assignments under --verbose), or the group's state (--state).
#include <fmt/format.h>

#include "cli/common.h"
#include "cli/groups_command.h"
#include "groups/consumer_protocol.h"

namespace mirra::cli::groups_cmd {
namespace {

using TopicPartition = client::TopicPartition;

// The members with their assignments decoded from the consumer embedded protocol.
Result<std::vector<MemberView>> member_views(const client::GroupDescription& d) {
  std::vector<MemberView> out;
  for (const client::GroupMember& m : d.members) {
    MemberView v{m.member_id, m.group_instance_id.value_or(""), m.client_host, m.client_id, {}};
    // Empty while the group rebalances: the member has no assignment yet.
    if (!m.assignment.empty()) {
      auto a = groups::decode_assignment(m.assignment);
      if (!a.ok()) {
        return Status(a.status().code(),
                      fmt::format("the assignment of member {} of group '{}' does not decode: {}",
                                  m.member_id, d.group_id, a.status().message()));
      }
      for (const groups::TopicPartitions& tp : a->partitions) {
        for (int32_t p : tp.partitions) v.assignment.push_back({tp.topic, p});
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

// Kafka's remarks on a group's state (stderr). False when the group does not exist.
bool announce_state(const client::GroupDescription& d) {
  if (d.status.code() == ErrorCode::GROUP_ID_NOT_FOUND || d.state == "Dead") {
    fail(kCommand, fmt::format("Consumer group '{}' does not exist.", d.group_id));
    return false;
  }
  if (d.state == "Empty") {
    fmt::print(stderr, "Consumer group '{}' has no active members.\n", d.group_id);
  } else if (d.state == "PreparingRebalance" || d.state == "CompletingRebalance" ||
             d.state == "Assigning" || d.state == "Reconciling") {
    fmt::print(stderr, "Warning: Consumer group '{}' is rebalancing.\n", d.group_id);
  }
  return true;
}

Result<std::string> offsets_view(client::SyncClient& c, const client::GroupDescription& d,
                                 const std::vector<MemberView>& members) {
  auto fetched = c.offset_fetch(d.group_id, std::nullopt);
  if (!fetched.ok()) return fetched.status();
  std::map<TopicPartition, int64_t> committed;
  for (const client::CommittedOffset& o : *fetched) {
    if (o.status.ok() && o.offset >= 0) committed[o.tp] = o.offset;
  }
  std::vector<TopicPartition> tps;
  for (const MemberView& m : members)
    tps.insert(tps.end(), m.assignment.begin(), m.assignment.end());
  for (const auto& entry : committed) tps.push_back(entry.first);
  auto log_end = log_end_offsets(c, tps);
  if (!log_end.ok()) return log_end.status();
  const std::vector<OffsetRow> rows = offset_rows(members, committed, log_end.value());
  if (rows.empty()) return std::string();
  Table table({"GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG",
               "CONSUMER-ID", "HOST", "CLIENT-ID"},
              {15, 15, 10, 15, 15, 15, 15, 15});
  for (const OffsetRow& r : rows) {
    table.add({d.group_id, r.tp.topic, std::to_string(r.tp.partition), or_dash(r.current),
               or_dash(r.log_end), or_dash(r.lag), r.consumer_id, r.host, r.client_id});
  }
  return table.render();
}

std::string state_view(const client::GroupDescription& d) {
  Table table({"GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS"},
              {15, 25, 20, 15});
  table.add({d.group_id, coordinator_cell(d.coordinator), d.protocol.empty() ? "-" : d.protocol,
             d.state, std::to_string(d.members.size())});
  return table.render();
}

Result<std::string> view_of(client::SyncClient& c, const client::GroupDescription& d,
                            const GroupsCommand& cmd) {
  if (!d.protocol_type.empty() && d.protocol_type != groups::kConsumerProtocolType) {
    return Status(ErrorCode::INVALID_REQUEST,
                  fmt::format("group '{}' is not a consumer group (its protocol type is '{}')",
                              d.group_id, d.protocol_type));
  }
  if (cmd.view == DescribeView::state) return state_view(d);
  auto members = member_views(d);
  if (!members.ok()) return members.status();
  if (cmd.view == DescribeView::members) {
    return members_table(d.group_id, members.value(), cmd.verbose);
  }
  return offsets_view(c, d, members.value());
}

}  // namespace

Result<std::map<TopicPartition, int64_t>> log_end_offsets(client::SyncClient& c,
                                                          const std::vector<TopicPartition>& tps) {
  std::map<TopicPartition, int64_t> out;
  if (tps.empty()) return out;
  std::vector<client::OffsetQuery> queries;
  for (const TopicPartition& tp : tps) queries.push_back({tp, client::kLatestTimestamp});
  auto offsets = c.list_offsets(std::move(queries));
  if (!offsets.ok()) return offsets.status();
  for (const client::PartitionOffset& o : *offsets) {
    if (o.status.ok()) out[o.tp] = o.offset;
  }
  return out;
}

int describe(client::SyncClient& c, const GroupsCommand& cmd) {
  auto groups = target_groups(c, cmd);
  if (!groups.ok()) return fail(kCommand, groups.status().message());
  auto described = c.describe_groups(groups.value());
  if (!described.ok()) return fail(kCommand, described.status().message());
  int exit_code = 0;
  bool printed = false;
  for (const client::GroupDescription& d : *described) {
    if (!d.status.ok() && d.status.code() != ErrorCode::GROUP_ID_NOT_FOUND) {
      exit_code = fail(kCommand, d.status.message());
      continue;
    }
    if (!announce_state(d)) {
      exit_code = 1;
      continue;
    }
    auto view = view_of(c, d, cmd);
    if (!view.ok()) {
      exit_code = fail(kCommand, view.status().message());
      continue;
    }
    if (view->empty()) continue;
    // A blank line between the groups' tables, as Kafka's tool separates them.
    fmt::print("{}{}", printed ? "\n" : "", view.value());
    printed = true;
  }
  return exit_code;
}

}  // namespace mirra::cli::groups_cmd
