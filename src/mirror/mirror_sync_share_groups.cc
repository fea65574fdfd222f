// MirrorSync's share-groups sync (docs/mirroring-design.md §8, docs/share-groups-design.md
// "Mirroring"): the start offsets of the source's share groups written on the destination, so
// that after a failover a share consumer of the same group goes on where the group stood on the
// source: records below the start offset are not delivered again.
//
// One round, the last kind of a round, reusing the groups sync's listing of the source's groups:
// the share groups (protocol type "share") that mirror.groups.include/exclude take; their start
// offsets for the partitions the sync works on (none once failed over) in one batched call; then
// each group alone, through the checks the groups sync makes too (mirror_sync_group_round.cc):
//   - a group with members on the destination is left to them (active_on_destination);
//   - a consumer or classic group of that id on the destination is refused
//     (GROUP_ID_NOT_FOUND), as AlterShareGroupOffsets refuses it; the other groups go on;
//   - a partition where the source group holds no state (start offset -1) is skipped;
//   - each start offset clamped as a committed offset is (DestinationBounds::clamp): a start
//     offset is where consumption resumes;
//   - only start offsets that differ from what this sync wrote last are written, with
//     AlterShareGroupOffsets here (the share group created if missing).
// A start offset carries no leader epoch (AlterShareGroupOffsets has none).
// The round itself is the groups sync's (run_group_kind(), mirror_sync_group_round.cc); this
// file says what is particular to share groups.
#include "mirror/mirror_sync.h"

namespace mirra::mirror {
namespace {

bool share_group(const std::string& protocol_type) { return protocol_type == "share"; }

// The start offset written for the source's `o` on the destination: clamped as a committed
// offset is, since it is where consumption resumes.
std::optional<client::ShareGroupOffset> clamped(const client::ShareGroupOffset& o,
                                                const DestinationBounds& b) {
  if (o.start_offset < 0) return std::nullopt;  // the source group holds no state for it
  client::ShareGroupOffset w;
  w.tp = o.tp;
  w.start_offset = b.clamp(o.start_offset);
  return w;
}

bool same_start(const client::ShareGroupOffset& a, const client::ShareGroupOffset& b) {
  return a.start_offset == b.start_offset;
}

}  // namespace

asio::awaitable<SyncRound> MirrorSync::sync_share_groups() {
  static const GroupKind<client::ShareGroupOffset, client::ShareGroupOffset> kShareGroups{
      SyncKind::kShareGroups,
      share_group,
      "DescribeShareGroupOffsets",
      &SyncSource::share_group_offsets,
      clamped,
      same_start,
      &SyncDestination::alter_share_offsets,
      &MirrorSync::share_writes_};
  co_return co_await run_group_kind(kShareGroups);
}

}  // namespace mirra::mirror
