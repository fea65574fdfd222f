// `mirra share-groups --reset-offsets`: each partition's new start offset, computed as
// `mirra groups` computes a new committed offset (plan_offset of groups_logic.h over one
// ListOffsets round, groups_command.h's partition_facts), printed, and with --execute set with
// AlterShareGroupOffsets. Refused while the group has members, as kafka-share-groups.sh does
// (the broker refuses it too: their in-flight records would be lost under them); a group that
// does not exist yet is created by the broker with these start offsets.
#include <fmt/format.h>

#include "cli/common.h"
#include "cli/share_groups_command.h"

namespace mirra::cli::share_groups_cmd {
namespace {

using TopicPartition = client::TopicPartition;

// Nothing, or why the group's offsets cannot be reset now.
Status check_resettable(client::SyncClient& c, const std::string& group) {
  auto described = c.describe_share_groups(std::vector<std::string>{group});
  if (!described.ok()) return described.status();
  const client::ShareGroupDescription& d = described->front();
  if (d.status.code() == ErrorCode::GROUP_ID_NOT_FOUND) {
    // A new share group is fine; a group of another type is not.
    if (!other_type_group(c, group)) return Status::OK();
    return Status(ErrorCode::GROUP_ID_NOT_FOUND, missing_group(c, group));
  }
  if (!d.status.ok()) return d.status;
  if (d.state == "Empty" || d.state == "Dead") return Status::OK();
  return Status(ErrorCode::NON_EMPTY_GROUP,
                fmt::format("Share group '{}' is not empty: its offsets can only be reset while "
                            "it has no members (state {}, {} member(s)).",
                            group, d.state, d.members.size()));
}

// The group's start offsets (none for a group that does not exist yet).
Result<std::map<TopicPartition, int64_t>> start_offsets(client::SyncClient& c,
                                                        const std::string& group) {
  std::map<TopicPartition, int64_t> out;
  auto described = c.share_group_offsets(std::vector<std::string>{group}, std::nullopt);
  if (!described.ok()) return described.status();
  const client::ShareGroupOffsets& g = described->front();
  if (g.status.code() == ErrorCode::GROUP_ID_NOT_FOUND) return out;
  if (!g.status.ok()) return g.status;
  for (const client::ShareGroupOffset& o : g.offsets) {
    if (!o.status.ok()) return o.status;
    if (o.start_offset >= 0) out[o.tp] = o.start_offset;
  }
  return out;
}

Result<std::vector<client::ShareGroupOffset>> plan(client::SyncClient& c, const std::string& group,
                                                   const GroupsCommand& cmd) {
  auto starts = start_offsets(c, group);
  if (!starts.ok()) return starts.status();
  std::vector<TopicPartition> tps;
  if (cmd.all_topics) {
    for (const auto& entry : starts.value()) tps.push_back(entry.first);
  } else {
    auto resolved = groups_cmd::resolve_topics(c, cmd.topics);
    if (!resolved.ok()) return resolved.status();
    tps = std::move(resolved.value());
  }
  auto facts =
      groups_cmd::partition_facts(c, tps, starts.value(), groups_cmd::reset_timestamp(cmd.reset));
  if (!facts.ok()) return facts.status();
  std::vector<client::ShareGroupOffset> out;
  for (size_t i = 0; i < tps.size(); ++i) {
    auto offset = plan_offset(cmd.reset, tps[i], (*facts)[i]);
    if (!offset.ok()) return offset.status();
    client::ShareGroupOffset& o = out.emplace_back();
    o.tp = tps[i];
    o.start_offset = offset.value();
  }
  return out;
}

Status alter(client::SyncClient& c, const std::string& group,
             const std::vector<client::ShareGroupOffset>& offsets) {
  auto r = c.alter_share_group_offsets(group, offsets);
  if (!r.ok()) {
    if (r.status().code() == ErrorCode::GROUP_ID_NOT_FOUND) {
      return Status(r.status().code(), missing_group(c, group));
    }
    return r.status();
  }
  for (const client::PartitionStatus& p : *r) {
    if (!p.status.ok()) return p.status;
  }
  return Status::OK();
}

}  // namespace

int reset_offsets(client::SyncClient& c, const GroupsCommand& cmd) {
  auto groups = target_groups(c, cmd);
  if (!groups.ok()) return fail(kCommand, groups.status().message());
  Table table({"GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"}, {30, 30, 10});
  bool any = false;
  int exit_code = 0;
  for (const std::string& group : groups.value()) {
    Status s = check_resettable(c, group);
    auto planned = s.ok() ? plan(c, group, cmd) : Result<std::vector<client::ShareGroupOffset>>(s);
    if (planned.ok() && cmd.execute && !planned->empty()) s = alter(c, group, planned.value());
    if (!planned.ok() || !s.ok()) {
      exit_code = fail(kCommand, planned.ok() ? s.message() : planned.status().message());
      continue;
    }
    for (const client::ShareGroupOffset& o : planned.value()) {
      table.add(
          {group, o.tp.topic, std::to_string(o.tp.partition), std::to_string(o.start_offset)});
      any = true;
    }
  }
  if (any) fmt::print("{}", table.render());
  return exit_code;
}

}  // namespace mirra::cli::share_groups_cmd
