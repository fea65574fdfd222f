// What ShareFetch (key 78) and ShareAcknowledge (key 79) share: the checks of the group and
// member ids, the share session an epoch names, finding a partition by topic id, and applying
// a partition's acknowledgement batches to its share partition (docs/share-groups-design.md).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/error_codes.h"
#include "base/uuid.h"
#include "groups/share_group_configs.h"
#include "server/request_context.h"
#include "share/share_partition.h"
#include "share/share_state.h"

namespace mirra::cluster {
class Partition;
}

namespace mirra::server {

// Kafka's member ids are UUIDs the client makes; it checks only their shape on the data path.
inline constexpr size_t kMaxMemberIdLength = 36;

// INVALID_REQUEST (with `why`) for a missing group id or a malformed member id, else NONE.
ErrorCode check_share_ids(const std::optional<std::string>& group_id,
                          const std::optional<std::string>& member_id, std::string& why);

// One partition a share request names, found by topic id after READ on the topic.
struct ShareTarget {
  share::SharePartitionId id;
  std::shared_ptr<cluster::Partition> part;  // null when `error` says why
  ErrorCode error = ErrorCode::NONE;
};
ShareTarget find_share_target(RequestContext& ctx, const share::SharePartitionId& id);

// The session a request's epoch names (0 opens one, -1 names the one to close after the
// request, N > 0 continues it), or the top-level error. An opened session replaces the
// member's earlier one, whose records go back.
ErrorCode share_session_for(RequestContext& ctx, const std::string& group_id,
                            const std::string& member_id, int32_t epoch,
                            share::ShareSession*& session);

// One acknowledgement batch as both requests carry it.
struct AckBatch {
  int64_t first = 0;
  int64_t last = 0;
  std::vector<share::AckType> types;
};
template <typename Batches>
std::vector<AckBatch> ack_batches(const Batches& in) {
  std::vector<AckBatch> out;
  out.reserve(in.size());
  for (const auto& b : in) {
    AckBatch& a = out.emplace_back(AckBatch{b.first_offset, b.last_offset, {}});
    for (int8_t t : b.acknowledge_types) a.types.push_back(static_cast<share::AckType>(t));
  }
  return out;
}

// The group's share.* settings (its GROUP config overrides over the broker's defaults), and
// the limits its share partitions run with (the group's lock duration).
groups::ShareGroupSettings share_group_settings_of(const RequestContext& ctx,
                                                   const std::string& group_id);
share::ShareLimits share_limits_of(const RequestContext& ctx,
                                   const groups::ShareGroupSettings& settings);

// Applies a partition's batches for `member`, in order, each all or nothing: INVALID_REQUEST
// for batches out of order or overlapping, a type the version does not know (Renew is v2+),
// or a malformed batch; INVALID_RECORD_STATE for a record the member does not hold. The first
// error is returned; the batches before it stay applied, as in Kafka.
ErrorCode apply_acks(share::ShareState& state, const share::ShareKey& key,
                     const std::string& member, const std::vector<AckBatch>& batches,
                     int16_t api_version, int64_t now_ms, const share::ShareLimits& limits);

// Makes the partition's state durable (share/share_store.h) before an acknowledgement of it
// is answered: NONE, or KAFKA_STORAGE_ERROR when it could not be written.
asio::awaitable<ErrorCode> persist_share_state(BrokerState& broker, const share::ShareKey& key);

}  // namespace mirra::server
