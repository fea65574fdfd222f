// MirrorSync's partitions sync (docs/mirroring-design.md §8).
#include "mirror/mirror_sync.h"

namespace mirra::mirror {

asio::awaitable<SyncRound> MirrorSync::sync_partitions() {
  MIRRA_ASSERT_OWNER(owner_);
  co_return SyncRound{};
}

}  // namespace mirra::mirror
