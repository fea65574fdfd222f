// OffsetCommit (key 8): committed offsets are durable in __consumer_offsets before the answer.
#include "protocol/messages/offset_commit.h"

#include "groups/group_coordinator.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_offset_commit(RequestContext& ctx) {
  auto req = decode_body<protocol::OffsetCommitRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::OffsetCommitResponse resp =
      co_await ctx.broker->groups->commit(req.value(), ctx.api_version);
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
