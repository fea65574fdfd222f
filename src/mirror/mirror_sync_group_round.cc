// A round of one of MirrorSync's two group kinds (docs/mirroring-design.md §8): the groups sync
// (consumer-group offsets, mirror_sync_groups.cc) and the share-groups sync (share-group start
// offsets, mirror_sync_share_groups.cc). Both list the source's groups once per round, take them
// by the same filters, fetch the offsets of all of them for the synced partitions in one call,
// keep one status entry per group id (a group id is one kind of group on the source), refuse a
// destination group of the other type alike, leave a group with members on the destination to
// them, and write per group only what changed since their last write. Only what they read and
// write differs: MirrorSync::GroupKind, which each kind's file fills in.
//
// One group's failure (its fetch, a refused write) never stops the others.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "base/log.h"
#include "mirror/mirror_filters.h"
#include "mirror/mirror_sync.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

const char* offsets_noun(SyncKind kind) {
  return kind == SyncKind::kShareGroups ? "start offsets" : "offsets";
}

// How the log names a group's offsets: a consumer group's committed offsets, or a share
// group's start offsets.
std::string offsets_of(SyncKind kind, const std::string& group) {
  return kind == SyncKind::kShareGroups ? fmt::format("the start offsets of share group {}", group)
                                        : fmt::format("the offsets of group {}", group);
}

}  // namespace

asio::awaitable<Result<MirrorSync::GroupSelection>> MirrorSync::select_groups(
    SyncKind kind, bool (*type_taken)(const std::string&)) {
  MIRRA_ASSERT_OWNER(owner_);
  if (!round_groups_) round_groups_ = co_await source_->list_groups();
  if (stopping_) co_return Status(ErrorCode::UNKNOWN_SERVER_ERROR, "stopping");
  const Result<client::GroupListings>& listed = *round_groups_;
  if (!listed.ok()) co_return listed.status();
  // Compiled once per round, not per group: a source may have thousands.
  const NameFilter filter{PatternList(settings_.groups_include),
                          PatternList(settings_.groups_exclude)};
  GroupSelection out;
  for (const client::GroupListing& g : listed->groups) {
    if (type_taken(g.protocol_type) && filter.takes(g.group_id)) out.groups.push_back(g.group_id);
  }
  if (!listed->errors.empty()) {
    // A listing with errors (a source broker that could not be asked) is partial: a group it
    // misses may still exist, so nothing is dropped.
    out.partial = listed->errors.front();
    co_return out;
  }
  const std::set<std::string> taken(out.groups.begin(), out.groups.end());
  const auto gone = [&](const std::string& g) { return taken.count(g) == 0; };
  std::erase_if(status_.groups,
                [&](const auto& e) { return e.second.kind == kind && gone(e.first); });
  if (kind == SyncKind::kShareGroups) {
    std::erase_if(share_writes_, [&](const auto& e) { return gone(e.first); });
  } else {
    std::erase_if(group_commits_, [&](const auto& e) { return gone(e.first); });
  }
  co_return out;
}

template <typename Offset, typename Write>
asio::awaitable<SyncRound> MirrorSync::run_group_kind(const GroupKind<Offset, Write>& k) {
  MIRRA_ASSERT_OWNER(owner_);
  SyncRound round;
  auto selected = co_await select_groups(k.kind, k.type_taken);
  if (stopping_) co_return round;
  if (!selected.ok()) {
    round.status = selected.status();
    co_return round;
  }
  const std::vector<std::string>& groups = selected->groups;
  const std::vector<client::TopicPartition> partitions = synced_partitions();
  round.looked_at = static_cast<int64_t>(groups.size());
  round.status = selected->partial;
  if (groups.empty() || partitions.empty()) co_return round;
  auto fetched = co_await (source_.get()->*k.fetch)(groups, partitions);
  if (stopping_) co_return round;
  if (!fetched.ok()) {
    round.status = fetched.status();
    co_return round;
  }
  const Result<std::vector<Offset>> unanswered =
      Status(ErrorCode::UNKNOWN_SERVER_ERROR,
             fmt::format("the source's {} had no answer for it", k.source_call));
  GroupFailures failures;
  for (const std::string& g : groups) {
    auto it = fetched->find(g);
    const Result<std::vector<Offset>>& offsets = it == fetched->end() ? unanswered : it->second;
    Status s = co_await sync_one_group(k, g, offsets, round.changed);
    if (stopping_) co_return round;
    failures.add(g, std::move(s));
  }
  round.status = failures.outcome(selected->partial, groups.size());
  co_return round;
}

template <typename Offset, typename Write>
asio::awaitable<Status> MirrorSync::sync_one_group(const GroupKind<Offset, Write>& k,
                                                   const std::string& group,
                                                   const Result<std::vector<Offset>>& offsets,
                                                   int64_t& written) {
  MIRRA_ASSERT_OWNER(owner_);
  bool forget = false;
  const std::optional<Status> done =
      check_group(k.kind, group, offsets.status(), k.type_taken, forget);
  if (forget) (this->*k.written).erase(group);
  if (done) co_return *done;
  GroupSyncStatus& st = status_.groups[group];
  Status outcome = co_await write_group(k, group, offsets.value(), st.offsets_committed);
  written += st.offsets_committed;
  set_group_error(group, st, outcome);
  if (outcome.ok()) st.last_synced_ms = wall_ms();
  co_return outcome;
}

template <typename Offset, typename Write>
asio::awaitable<Status> MirrorSync::write_group(const GroupKind<Offset, Write>& k,
                                                const std::string& group,
                                                const std::vector<Offset>& offsets,
                                                int64_t& written) {
  written = 0;
  Status partial;  // the first partition's own error: the others are written regardless
  std::map<client::TopicPartition, Write>& last = (this->*k.written)[group];
  std::vector<Write> writes;
  for (const Offset& o : offsets) {
    if (!o.status.ok()) {
      if (partial.ok()) partial = o.status;
      continue;
    }
    const std::optional<DestinationBounds> bounds = ctx_.destination.bounds(o.tp);
    if (!bounds) continue;  // not (or no longer) here
    std::optional<Write> w = k.to_write(o, *bounds);
    if (!w) continue;  // none on the source
    auto it = last.find(o.tp);
    if (it == last.end() || !k.same(it->second, *w)) writes.push_back(std::move(*w));
  }
  if (writes.empty()) co_return partial;
  auto results = co_await (ctx_.destination.*k.write)(group, writes);
  if (!results.ok()) co_return results.status();
  for (const client::PartitionStatus& r : results.value()) {
    if (!r.status.ok()) {
      if (partial.ok()) partial = r.status;
      continue;
    }
    auto w =
        std::find_if(writes.begin(), writes.end(), [&](const Write& x) { return x.tp == r.tp; });
    if (w == writes.end()) continue;
    last.insert_or_assign(r.tp, *w);
    ++written;
  }
  co_return partial;
}

// The two kinds (client/types.h holds both pairs of types).
template asio::awaitable<SyncRound> MirrorSync::run_group_kind(
    const GroupKind<client::CommittedOffset, client::OffsetToCommit>& k);
template asio::awaitable<SyncRound> MirrorSync::run_group_kind(
    const GroupKind<client::ShareGroupOffset, client::ShareGroupOffset>& k);

std::vector<client::TopicPartition> MirrorSync::synced_partitions() const {
  std::vector<client::TopicPartition> out;
  for (const SinkTopic& t : synced_topics()) {
    for (int32_t p : t.partitions) out.push_back({t.name, p});
  }
  return out;
}

void MirrorSync::GroupFailures::add(const std::string& group, Status s) {
  if (s.ok() || failed++ > 0) return;
  first_group = group;
  first = std::move(s);
}

Status MirrorSync::GroupFailures::outcome(const Status& partial, size_t groups) const {
  if (failed == 0) return partial;
  return Status(first.code(), fmt::format("{} of {} groups failed; the first, {}: {}", failed,
                                          groups, first_group, first.message()));
}

std::optional<Status> MirrorSync::check_group(SyncKind kind, const std::string& group,
                                              const Status& fetched,
                                              bool (*type_ok)(const std::string&), bool& forget) {
  MIRRA_ASSERT_OWNER(owner_);
  forget = false;
  GroupSyncStatus& st = status_.groups[group];
  st.kind = kind;  // a group deleted and recreated as the other type changes hands
  if (!fetched.ok()) {
    set_group_error(group, st, fetched);
    return fetched;
  }
  const DestinationGroup dest = ctx_.destination.group(group);
  // The type first: a group id of the other type here is refused whether or not it has
  // members, so describe always names the conflict (issue 20).
  if (dest.exists && !type_ok(dest.protocol_type)) {
    const std::string what = dest.protocol_type.empty()
                                 ? std::string("an offsets-only group")
                                 : fmt::format("a {} group", dest.protocol_type);
    Status refused(ErrorCode::GROUP_ID_NOT_FOUND,
                   fmt::format("group {} is {} on the destination, not a {} group", group, what,
                               kind == SyncKind::kShareGroups ? "share" : "consumer"));
    st.active_on_destination = false;
    set_group_error(group, st, refused);
    return refused;
  }
  const bool active = dest.exists && dest.members > 0;
  if (active && !st.active_on_destination) {
    MIRRA_LOG_INFO("mirror {}: group {} has members on the destination: its {} are left to them",
                   mirror_, group, offsets_noun(kind));
  } else if (!active && st.active_on_destination) {
    MIRRA_LOG_INFO(
        "mirror {}: group {} has no members on the destination any more: its {} are synced "
        "again",
        mirror_, group, offsets_noun(kind));
  }
  st.active_on_destination = active;
  if (active) {
    forget = true;
    set_group_error(group, st, Status::OK());
    return Status::OK();
  }
  return std::nullopt;
}

void MirrorSync::set_group_error(const std::string& group, GroupSyncStatus& st,
                                 const Status& error) {
  const bool changed = st.error.code() != error.code() || st.error.message() != error.message();
  if (changed && !error.ok()) {
    MIRRA_LOG_WARN("mirror {}: {} are not synced: {}", mirror_, offsets_of(st.kind, group),
                   error.message());
  } else if (changed) {
    MIRRA_LOG_INFO("mirror {}: {} are synced again", mirror_, offsets_of(st.kind, group));
  }
  st.error = error;
}

}  // namespace mirra::mirror
