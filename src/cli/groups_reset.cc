// `mirra groups --reset-offsets`: computes each partition's new committed offset (plan_offset in
// groups_logic.cc) from the group's committed offsets and the partitions' log start/end (and
// by-time) offsets, prints the plan, and with --execute commits it. As kafka-consumer-groups.sh
// it refuses a group that has members: their own commits would overwrite the reset.
#include <fmt/format.h>

#include "base/clock.h"
#include "cli/common.h"
#include "cli/groups_command.h"

namespace mirra::cli::groups_cmd {
namespace {

using TopicPartition = client::TopicPartition;

// Kafka resets only groups without members: Empty, or not there at all (Dead, unknown).
Status check_inactive(client::SyncClient& c, const std::string& group) {
  auto described = c.describe_groups(std::vector<std::string>{group});
  if (!described.ok()) return described.status();
  const client::GroupDescription& d = described->front();
  if (d.status.code() == ErrorCode::GROUP_ID_NOT_FOUND) return Status::OK();
  if (!d.status.ok()) return d.status;
  if (d.state == "Empty" || d.state == "Dead") return Status::OK();
  return Status(ErrorCode::NON_EMPTY_GROUP,
                fmt::format("Assignments can only be reset if the group '{}' is inactive, but "
                            "the current state is {}.",
                            group, d.state));
}

Result<std::map<TopicPartition, int64_t>> committed_offsets(client::SyncClient& c,
                                                            const std::string& group) {
  std::map<TopicPartition, int64_t> out;
  auto fetched = c.offset_fetch(group, std::nullopt);
  if (!fetched.ok()) {
    if (fetched.status().code() == ErrorCode::GROUP_ID_NOT_FOUND) return out;  // none yet
    return fetched.status();
  }
  for (const client::CommittedOffset& o : *fetched) {
    if (!o.status.ok()) return o.status;
    if (o.offset >= 0) out[o.tp] = o.offset;
  }
  return out;
}

Result<std::vector<client::OffsetToCommit>> plan(client::SyncClient& c, const std::string& group,
                                                 const GroupsCommand& cmd) {
  auto committed = committed_offsets(c, group);
  if (!committed.ok()) return committed.status();
  std::vector<TopicPartition> tps;
  if (cmd.all_topics) {
    for (const auto& entry : committed.value()) tps.push_back(entry.first);
  } else {
    auto resolved = resolve_topics(c, cmd.topics);
    if (!resolved.ok()) return resolved.status();
    tps = std::move(resolved.value());
  }
  auto facts = partition_facts(c, tps, committed.value(), reset_timestamp(cmd.reset));
  if (!facts.ok()) return facts.status();
  std::vector<client::OffsetToCommit> out;
  for (size_t i = 0; i < tps.size(); ++i) {
    auto offset = plan_offset(cmd.reset, tps[i], (*facts)[i]);
    if (!offset.ok()) return offset.status();
    out.push_back({tps[i], offset.value(), -1, std::nullopt});
  }
  return out;
}

Status commit(client::SyncClient& c, const std::string& group,
              const std::vector<client::OffsetToCommit>& offsets) {
  auto r = c.offset_commit(group, offsets);
  if (!r.ok()) return r.status();
  for (const client::PartitionStatus& p : *r) {
    if (!p.status.ok()) return p.status;
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<PartitionFacts>> partition_facts(
    client::SyncClient& c, const std::vector<TopicPartition>& tps,
    const std::map<TopicPartition, int64_t>& committed, std::optional<int64_t> timestamp) {
  std::vector<client::OffsetQuery> queries;
  for (const TopicPartition& tp : tps) {
    queries.push_back({tp, client::kEarliestTimestamp});
    queries.push_back({tp, client::kLatestTimestamp});
    if (timestamp) queries.push_back({tp, *timestamp});
  }
  auto offsets = c.list_offsets(std::move(queries));
  if (!offsets.ok()) return offsets.status();
  for (const client::PartitionOffset& o : *offsets) {
    if (!o.status.ok()) return o.status;
  }
  const size_t per = timestamp ? 3 : 2;
  std::vector<PartitionFacts> out;
  for (size_t i = 0; i < tps.size(); ++i) {
    PartitionFacts f;
    auto it = committed.find(tps[i]);
    if (it != committed.end()) f.committed = it->second;
    f.log_start = (*offsets)[i * per].offset;
    f.log_end = (*offsets)[i * per + 1].offset;
    // -1: no record at or after the time.
    if (timestamp && (*offsets)[i * per + 2].offset >= 0)
      f.at_time = (*offsets)[i * per + 2].offset;
    out.push_back(f);
  }
  return out;
}

std::optional<int64_t> reset_timestamp(const ResetSpec& spec) {
  if (spec.kind == ResetKind::datetime) return spec.value;
  if (spec.kind == ResetKind::duration) return now_ms() - spec.value;
  return std::nullopt;
}

int reset_offsets(client::SyncClient& c, const GroupsCommand& cmd) {
  auto groups = target_groups(c, cmd);
  if (!groups.ok()) return fail(kCommand, groups.status().message());
  Table table({"GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"}, {30, 30, 10});
  bool any = false;
  int exit_code = 0;
  for (const std::string& group : groups.value()) {
    Status s = check_inactive(c, group);
    auto planned = s.ok() ? plan(c, group, cmd) : Result<std::vector<client::OffsetToCommit>>(s);
    if (planned.ok() && cmd.execute && !planned->empty()) s = commit(c, group, planned.value());
    if (!planned.ok() || !s.ok()) {
      exit_code = fail(kCommand, planned.ok() ? s.message() : planned.status().message());
      continue;
    }
    for (const client::OffsetToCommit& o : planned.value()) {
      table.add({group, o.tp.topic, std::to_string(o.tp.partition), std::to_string(o.offset)});
      any = true;
    }
  }
  if (any) fmt::print("{}", table.render());
  return exit_code;
}

}  // namespace mirra::cli::groups_cmd
