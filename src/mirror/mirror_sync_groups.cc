// MirrorSync's groups sync (docs/mirroring-design.md §8): the committed offsets of the source's
// consumer groups copied to the destination, so that after a failover a consumer resumes on
// the destination where it left off on the source.
//
// One round: the source's groups listed; those taken by mirror.groups.include/exclude that are
// consumer groups (or offsets-only groups: protocol type "") kept; their offsets for the
// partitions the sync works on fetched in one batched call; then each group alone, so that one
// group's failure (its fetch, a refused commit) never stops the others:
//   - a group with members on the destination is left alone: its consumers there own its
//     offsets (shown as active_on_destination);
//   - a group of another protocol type on the destination is refused (GROUP_ID_NOT_FOUND);
//   - each offset clamped to what the destination holds, max(log start, min(offset, LSO)), so
//     that no consumer resumes past the data (nor before the log start); the source's leader
//     epoch goes with its own offset only, -1 with a clamped one;
//   - only offsets that differ from what this sync committed last time are committed, a move
//     backwards (a reset on the source) included.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "base/log.h"
#include "mirror/mirror_filters.h"
#include "mirror/mirror_sync.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

// Consumer groups, and offsets-only groups (admin tools, consumers that assign partitions
// themselves), whose committed offsets are where a consumer resumes. Other kinds (connect,
// share groups) keep no such offsets.
bool offsets_group(const std::string& protocol_type) {
  return protocol_type == "consumer" || protocol_type.empty();
}

// The commit that stands for the source's committed offset `c` on the destination.
client::OffsetToCommit clamped(const client::CommittedOffset& c, const DestinationBounds& b) {
  const int64_t offset = std::max(b.log_start, std::min(c.offset, b.last_stable));
  // The epoch belongs to the source's offset; with another offset it would make the consumer's
  // epoch check (KIP-320) compare against the wrong record, and -1 skips the check.
  const int32_t epoch = offset == c.offset ? c.leader_epoch : -1;
  return {c.tp, offset, epoch, c.metadata};
}

bool same_commit(const client::OffsetToCommit& a, const client::OffsetToCommit& b) {
  return a.offset == b.offset && a.leader_epoch == b.leader_epoch && a.metadata == b.metadata;
}

// A group's error recorded (OK: it syncs), logged once per change rather than every round.
void set_group_error(const std::string& mirror, const std::string& group, GroupSyncStatus& st,
                     const Status& error) {
  const bool changed = st.error.code() != error.code() || st.error.message() != error.message();
  if (changed && !error.ok()) {
    MIRRA_LOG_WARN("mirror {}: the offsets of group {} are not synced: {}", mirror, group,
                   error.message());
  } else if (changed) {
    MIRRA_LOG_INFO("mirror {}: the offsets of group {} are synced again", mirror, group);
  }
  st.error = error;
}

}  // namespace

asio::awaitable<SyncRound> MirrorSync::sync_groups() {
  MIRRA_ASSERT_OWNER(owner_);
  SyncRound round;
  auto listed = co_await source_->list_groups();
  if (stopping_) co_return round;
  if (!listed.ok()) {
    round.status = listed.status();
    co_return round;
  }
  // Compiled once per round, not per group: a source may have thousands.
  const NameFilter filter{PatternList(settings_.groups_include),
                          PatternList(settings_.groups_exclude)};
  std::vector<std::string> groups;
  for (const client::GroupListing& g : listed->groups) {
    if (offsets_group(g.protocol_type) && filter.takes(g.group_id)) groups.push_back(g.group_id);
  }
  // A listing with errors (a source broker that could not be asked) is partial: a group it
  // misses may still exist, so only a complete one drops the groups gone from the source.
  if (listed->errors.empty()) {
    const std::set<std::string> taken(groups.begin(), groups.end());
    std::erase_if(status_.groups, [&](const auto& e) { return taken.count(e.first) == 0; });
    std::erase_if(group_commits_, [&](const auto& e) { return taken.count(e.first) == 0; });
  }
  std::vector<client::TopicPartition> partitions;
  for (const SinkTopic& t : synced_topics()) {
    for (int32_t p : t.partitions) partitions.push_back({t.name, p});
  }
  round.looked_at = static_cast<int64_t>(groups.size());
  const Status partial = listed->errors.empty() ? Status::OK() : listed->errors.front();
  if (groups.empty() || partitions.empty()) {
    round.status = partial;
    co_return round;
  }
  auto fetched = co_await source_->committed_offsets(groups, partitions);
  if (stopping_) co_return round;
  if (!fetched.ok()) {
    round.status = fetched.status();
    co_return round;
  }
  const Result<std::vector<client::CommittedOffset>> unanswered =
      Status(ErrorCode::UNKNOWN_SERVER_ERROR, "the source's OffsetFetch had no answer for it");
  size_t failed = 0;
  std::string first_group;
  Status first;
  for (const std::string& g : groups) {
    auto it = fetched->find(g);
    const Result<std::vector<client::CommittedOffset>>& offsets = it == fetched->end() ? unanswered
                                                                                       : it->second;
    Status s = co_await sync_group(g, offsets, round.changed);
    if (stopping_) co_return round;
    if (!s.ok() && failed++ == 0) {
      first_group = g;
      first = std::move(s);
    }
  }
  round.status = partial;
  if (failed > 0) {
    round.status =
        Status(first.code(), fmt::format("{} of {} groups failed; the first, {}: {}", failed,
                                         groups.size(), first_group, first.message()));
  }
  co_return round;
}

asio::awaitable<Status> MirrorSync::sync_group(
    const std::string& group, const Result<std::vector<client::CommittedOffset>>& offsets,
    int64_t& committed) {
  MIRRA_ASSERT_OWNER(owner_);
  GroupSyncStatus& st = status_.groups[group];
  if (!offsets.ok()) {
    set_group_error(mirror_, group, st, offsets.status());
    co_return offsets.status();
  }
  const DestinationGroup dest = ctx_.destination.group(group);
  const bool active = dest.exists && dest.members > 0;
  if (active && !st.active_on_destination) {
    MIRRA_LOG_INFO(
        "mirror {}: group {} has members on the destination: its offsets are left "
        "to them",
        mirror_, group);
  } else if (!active && st.active_on_destination) {
    MIRRA_LOG_INFO(
        "mirror {}: group {} has no members on the destination any more: its "
        "offsets are synced again",
        mirror_, group);
  }
  st.active_on_destination = active;
  if (active) {
    // Its consumers here commit their own offsets: what this sync committed last says nothing
    // of what the group holds once they leave, so everything is committed again then.
    group_commits_.erase(group);
    set_group_error(mirror_, group, st, Status::OK());
    co_return Status::OK();
  }
  if (dest.exists && !offsets_group(dest.protocol_type)) {
    Status refused(ErrorCode::GROUP_ID_NOT_FOUND,
                   fmt::format("group {} is a {} group on the destination, not a consumer group",
                               group, dest.protocol_type));
    set_group_error(mirror_, group, st, refused);
    co_return refused;
  }
  Status outcome = co_await commit_group(group, offsets.value(), st.offsets_committed);
  committed += st.offsets_committed;
  set_group_error(mirror_, group, st, outcome);
  if (outcome.ok()) st.last_synced_ms = wall_ms();
  co_return outcome;
}

asio::awaitable<Status> MirrorSync::commit_group(
    const std::string& group, const std::vector<client::CommittedOffset>& offsets,
    int64_t& committed) {
  committed = 0;
  Status partial;  // the first partition's own error: the others are committed regardless
  std::map<client::TopicPartition, client::OffsetToCommit>& last = group_commits_[group];
  std::vector<client::OffsetToCommit> commits;
  for (const client::CommittedOffset& c : offsets) {
    if (!c.status.ok()) {
      if (partial.ok()) partial = c.status;
      continue;
    }
    if (c.offset < 0) continue;  // none committed on the source
    const std::optional<DestinationBounds> bounds = ctx_.destination.bounds(c.tp);
    if (!bounds) continue;  // not (or no longer) here
    client::OffsetToCommit o = clamped(c, *bounds);
    auto it = last.find(c.tp);
    if (it == last.end() || !same_commit(it->second, o)) commits.push_back(std::move(o));
  }
  if (commits.empty()) co_return partial;
  auto results = co_await ctx_.destination.commit_offsets(group, commits);
  if (!results.ok()) co_return results.status();
  for (const client::PartitionStatus& r : results.value()) {
    if (!r.status.ok()) {
      if (partial.ok()) partial = r.status;
      continue;
    }
    auto o = std::find_if(commits.begin(), commits.end(),
                          [&](const client::OffsetToCommit& c) { return c.tp == r.tp; });
    if (o == commits.end()) continue;
    last.insert_or_assign(r.tp, *o);
    ++committed;
  }
  co_return partial;
}

}  // namespace mirra::mirror
