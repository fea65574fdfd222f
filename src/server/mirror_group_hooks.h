// The group coordinator as the mirror's groups sync sees it (mirror::GroupHooks,
// docs/mirroring-design.md §8). `mirror` does not depend on `groups` (docs/architecture.md):
// the broker, which owns both, builds these and hands them to the MirrorManager at start-up.
//
// Threading: the core thread, where both the coordinator and the sync run.
#pragma once

#include "mirror/cluster_sync_destination.h"

namespace mirra::server {

struct BrokerState;

// describe: a group's existence, protocol type ("share" for a share group) and member count
// (unknown or not loaded yet: exists = false). commit: an admin commit (generation -1, no
// member id, as Kafka's tools commit), which the coordinator takes only while the group has no
// members; a refusal of the whole group comes back as the Status. alter_share: what
// AlterShareGroupOffsets does (server/share_admin.h).
mirror::GroupHooks mirror_group_hooks(BrokerState& broker);

}  // namespace mirra::server
