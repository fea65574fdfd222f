// Share-group offset administration on this broker (docs/share-groups-design.md): what
// DescribeShareGroupOffsets, AlterShareGroupOffsets and DeleteShareGroupOffsets (keys 90-92)
// do to the group coordinator's share groups and to the share state (share/share_state.h),
// written durably (share/share_store.h) before they answer. The mirror's share-group offset
// sync writes through the same functions (server/mirror_group_hooks.h), so a synced start
// offset is exactly what an operator's AlterShareGroupOffsets would have set.
//
// Authorization is the callers' (the handlers check the group and each topic first).
//
// Threading: the core thread, where the coordinator and the share state live.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/error_codes.h"
#include "base/status.h"
#include "base/uuid.h"

namespace mirra::server {

struct BrokerState;

// One partition of a share group as DescribeShareGroupOffsets reports it: its start offset
// (-1: the group holds no state for it yet), the partition's leader epoch, and the records
// the group has still to finish (lag: high watermark - start offset - records finished above
// the start; -1 without state).
struct ShareOffsetRow {
  std::string topic;
  Uuid topic_id;
  int32_t partition = 0;
  int64_t start_offset = -1;
  int32_t leader_epoch = -1;
  int64_t lag = -1;
  ErrorCode error = ErrorCode::NONE;
};

// The group's partitions: those of `topics` (by name, partition indexes), or every partition
// the group holds state for (nullopt). GROUP_ID_NOT_FOUND when no share group has the id
// (unknown, or a consumer group's). Unknown topics and partitions come back as rows with
// UNKNOWN_TOPIC_OR_PARTITION.
Result<std::vector<ShareOffsetRow>> describe_share_offsets(
    BrokerState& broker, const std::string& group_id,
    const std::optional<std::map<std::string, std::vector<int32_t>>>& topics);

// A start offset to set (AlterShareGroupOffsets).
struct ShareOffsetTarget {
  std::string topic;
  int32_t partition = 0;
  int64_t start_offset = 0;
};

// One partition's (or, for delete, one topic's: partition -1) outcome.
struct ShareOffsetOutcome {
  std::string topic;
  Uuid topic_id;
  int32_t partition = -1;
  Status status;
};

// Sets each partition's start offset: its in-flight records and delivery counts are
// forgotten and consumption starts there. The share group is created if missing. Refused as a
// whole with NON_EMPTY_GROUP while the group has members, GROUP_ID_NOT_FOUND when a consumer
// group has the id. Per partition: UNKNOWN_TOPIC_OR_PARTITION, INVALID_REQUEST (a negative
// offset), KAFKA_STORAGE_ERROR (not written).
asio::awaitable<Result<std::vector<ShareOffsetOutcome>>> alter_share_offsets(
    BrokerState& broker, std::string group_id, std::vector<ShareOffsetTarget> targets);

// Forgets the group's state for whole topics (the next fetch starts at
// share.auto.offset.reset). Refused as a whole with GROUP_ID_NOT_FOUND (no such share group)
// or NON_EMPTY_GROUP; per topic UNKNOWN_TOPIC_OR_PARTITION or KAFKA_STORAGE_ERROR.
asio::awaitable<Result<std::vector<ShareOffsetOutcome>>> delete_share_offsets(
    BrokerState& broker, std::string group_id, std::vector<std::string> topics);

}  // namespace mirra::server
