// The JSON of DescribeMirrors' answer (as client::MirrorDescription holds it), one writer for
// `mirra mirror --describe --json` and the broker's /v1/mirrors (docs/observability.md "JSON
// API"), so that a tool reads the same field names from both.
//
// Rows: a partition row (no "type" key: mirror, topic, topicId, partition, state, offsets, lag,
// rates, lastError), and rows with "type" "throttle", "sync" (one per kind of sync task) and
// "syncGroup" (its "kind": "groups" for a consumer group, "share-groups" for a share group).
// Numbers that are unknown are -1, as on the wire; errors are null or a message.
#pragma once

#include <cstdint>
#include <string>

#include "client/types.h"

namespace mirra::mirror {

// "topics", "configs", "partitions", "groups", "acls", "share-groups"; a kind this build does not
// know as its number.
std::string sync_kind_name(int8_t kind);

std::string partition_json(const client::MirrorDescription& m,
                           const client::MirrorTopicDescription& t,
                           const client::MirrorPartitionDescription& p);
std::string throttle_json(const client::MirrorDescription& m);
std::string sync_kind_json(const client::MirrorDescription& m,
                           const client::MirrorSyncKindDescription& k);
std::string sync_group_json(const client::MirrorDescription& m,
                            const client::MirrorSyncGroupDescription& g);

// One mirror as an object: name, error, source, throttling, partitionsByState and the rows
// above in "partitions", "sync" and "syncGroups" (/v1/mirrors).
std::string mirror_json(const client::MirrorDescription& m);

}  // namespace mirra::mirror
