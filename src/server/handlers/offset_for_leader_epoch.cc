// OffsetForLeaderEpoch (key 23, v2-4): where a leader epoch ends in the log, for consumers
// validating their position after a leader change (KIP-320) and for followers. The answer is
// the largest epoch at or below the requested one and its end offset (the log end offset for
// the latest epoch); -1/-1 when the log knows no such epoch. The client's current leader
// epoch is checked first, as in ListOffsets and Fetch.
#include "protocol/messages/offset_for_leader_epoch.h"

#include "cluster/partition_manager.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::OffsetForLeaderEpochRequest;
using protocol::OffsetForLeaderEpochResponse;

using EpochEnd = std::pair<int32_t, int64_t>;

}  // namespace

asio::awaitable<HandlerResult> handle_offset_for_leader_epoch(RequestContext& ctx) {
  auto req = decode_body<OffsetForLeaderEpochRequest>(ctx);
  if (!req.ok()) co_return req.status();
  OffsetForLeaderEpochResponse resp;
  for (const auto& t : req->topics) {
    auto& tr = resp.topics.emplace_back();
    tr.topic = t.topic;
    // A consumer's check (replica id -1); Mirra serves no followers.
    const bool allowed = authorized(ctx, AclOperation::describe, ResourceType::topic, t.topic);
    for (const auto& p : t.partitions) {
      auto& pr = tr.partitions.emplace_back();
      pr.partition = p.partition;
      if (!allowed) {
        pr.error_code = error_number(ErrorCode::TOPIC_AUTHORIZATION_FAILED);
        continue;
      }
      PartitionLookup found = find_partition(ctx, t.topic, p.partition, p.current_leader_epoch);
      if (found.error != ErrorCode::NONE) {
        pr.error_code = error_number(found.error);
        continue;
      }
      const int32_t epoch = p.leader_epoch;
      auto end = co_await ctx.broker->partitions->run(
          found.partition, [epoch](const storage::PartitionLog& log) -> Result<EpochEnd> {
            return log.leader_epochs().end_offset_for(epoch, log.log_end_offset());
          });
      if (!end.ok()) {
        pr.error_code = error_number(end.status().code());
        continue;
      }
      pr.leader_epoch = end->first;
      pr.end_offset = end->second;
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
