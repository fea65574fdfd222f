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
// The round itself, the same for the share-groups sync, is run_group_kind()
// (mirror_sync_group_round.cc); this file says what is particular to consumer groups.
#include "mirror/mirror_sync.h"

namespace mirra::mirror {
namespace {

// Consumer groups, and offsets-only groups (admin tools, consumers that assign partitions
// themselves), whose committed offsets are where a consumer resumes. Other kinds (connect,
// share groups) keep no such offsets.
bool offsets_group(const std::string& protocol_type) {
  return protocol_type == "consumer" || protocol_type.empty();
}

// The commit that stands for the source's committed offset `c` on the destination.
std::optional<client::OffsetToCommit> clamped(const client::CommittedOffset& c,
                                              const DestinationBounds& b) {
  if (c.offset < 0) return std::nullopt;  // none committed on the source
  const int64_t offset = b.clamp(c.offset);
  // The epoch belongs to the source's offset; with another offset it would make the consumer's
  // epoch check (KIP-320) compare against the wrong record, and -1 skips the check.
  const int32_t epoch = offset == c.offset ? c.leader_epoch : -1;
  return client::OffsetToCommit{c.tp, offset, epoch, c.metadata};
}

bool same_commit(const client::OffsetToCommit& a, const client::OffsetToCommit& b) {
  return a.offset == b.offset && a.leader_epoch == b.leader_epoch && a.metadata == b.metadata;
}

}  // namespace

asio::awaitable<SyncRound> MirrorSync::sync_groups() {
  static const GroupKind<client::CommittedOffset, client::OffsetToCommit> kConsumerGroups{
      SyncKind::kGroups,
      offsets_group,
      "OffsetFetch",
      &SyncSource::committed_offsets,
      clamped,
      same_commit,
      &SyncDestination::commit_offsets,
      &MirrorSync::group_commits_};
  co_return co_await run_group_kind(kConsumerGroups);
}

}  // namespace mirra::mirror
