// ListOffsets (key 2): earliest (-2), latest (-1: the high watermark, or the last stable offset
// for read_committed), max timestamp (-3), earliest local (-4: the log start, no tiered
// storage), and the first offset at or after a timestamp. Each partition is answered by its
// shard; the leader epoch returned is the one of the batch holding the offset (Kafka's rule).
#include "protocol/messages/list_offsets.h"

#include <fmt/format.h>

#include "cluster/partition_manager.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::ListOffsetsRequest;
using protocol::ListOffsetsResponse;
using PartitionResponse = ListOffsetsResponse::ListOffsetsPartitionResponse;

constexpr int64_t kLatest = -1;
constexpr int64_t kEarliest = -2;
constexpr int64_t kMaxTimestamp = -3;
constexpr int64_t kEarliestLocal = -4;
constexpr int64_t kEarliestPendingUpload = -5;
constexpr int64_t kLatestTiered = -6;

struct Found {
  int64_t offset = -1;
  int64_t timestamp = -1;
  int32_t epoch = -1;
};

// The epoch of the batch holding `offset` (the last epoch starting at or before it).
int32_t epoch_at(const storage::PartitionLog& log, int64_t offset) {
  int32_t epoch = -1;
  for (const auto& e : log.leader_epochs().entries()) {
    if (e.start_offset > offset) break;
    epoch = e.epoch;
  }
  return epoch;
}

Result<Found> lookup(const storage::PartitionLog& log, int64_t ts, bool committed) {
  Found f;
  switch (ts) {
    case kEarliest:
    case kEarliestLocal:
      f.offset = log.log_start_offset();
      break;
    case kLatest:
      f.offset = committed ? log.last_stable_offset() : log.high_watermark();
      break;
    case kMaxTimestamp: {
      auto [offset, max_ts] = log.max_timestamp_offset();
      if (offset < 0) return f;  // empty log: -1, -1
      f.offset = offset;
      f.timestamp = max_ts;
      break;
    }
    case kEarliestPendingUpload:
    case kLatestTiered:
      return f;  // no tiered storage: nothing pending, nothing tiered
    default: {
      if (ts < 0) {
        return Status(ErrorCode::INVALID_REQUEST, fmt::format("unknown special timestamp {}", ts));
      }
      auto hit = log.offset_for_timestamp(ts);
      if (!hit) return f;
      const int64_t bound = committed ? log.last_stable_offset() : log.high_watermark();
      if (hit->first >= bound) return f;
      f.offset = hit->first;
      f.timestamp = hit->second;
      break;
    }
  }
  // Latest has no batch of its own: Kafka answers with the current leader epoch, which on a
  // single node is the last epoch in the log.
  f.epoch = epoch_at(log, ts == kLatest ? f.offset - 1 : f.offset);
  return f;
}

}  // namespace

asio::awaitable<HandlerResult> handle_list_offsets(RequestContext& ctx) {
  auto req = decode_body<ListOffsetsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  const bool committed = req->isolation_level == 1;
  ListOffsetsResponse resp;
  // Every lookup is posted to its shard first and awaited after: one at a time, a request for
  // 1,000 partitions would wait for 1,000 round trips to the shards in turn.
  using Lookup = std::shared_ptr<cluster::Pending<Result<Found>>>;
  std::vector<std::pair<PartitionResponse*, Lookup>> lookups;
  for (const auto& t : req->topics) {
    auto& tr = resp.topics.emplace_back();
    tr.name = t.name;
    tr.partitions.reserve(t.partitions.size());  // lookups point into it
    const bool allowed = authorized(ctx, AclOperation::describe, ResourceType::topic, t.name);
    for (const auto& p : t.partitions) {
      PartitionResponse& pr = tr.partitions.emplace_back();
      pr.partition_index = p.partition_index;
      if (!allowed) {
        pr.error_code = error_number(ErrorCode::TOPIC_AUTHORIZATION_FAILED);
        continue;
      }
      PartitionLookup target =
          find_partition(ctx, t.name, p.partition_index, p.current_leader_epoch);
      if (target.error != ErrorCode::NONE) {
        pr.error_code = error_number(target.error);
        continue;
      }
      const int64_t ts = p.timestamp;
      lookups.emplace_back(
          &pr, ctx.broker->partitions->start(target.partition,
                                             [ts, committed](const storage::PartitionLog& log) {
                                               return lookup(log, ts, committed);
                                             }));
    }
  }
  for (auto& [pr, pending] : lookups) {
    const Result<Found> found = co_await pending->wait();
    if (!found.ok()) {
      pr->error_code = error_number(found.status().code());
      continue;
    }
    pr->offset = found->offset;
    pr->timestamp = found->timestamp;
    pr->leader_epoch = found->epoch;
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
