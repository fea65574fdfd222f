// OffsetDelete (key 47): removes committed offsets of partitions the group does not consume.
#include "protocol/messages/offset_delete.h"

#include "groups/group_coordinator.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_offset_delete(RequestContext& ctx) {
  auto req = decode_body<protocol::OffsetDeleteRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::OffsetDeleteResponse resp = co_await ctx.broker->groups->delete_offsets(req.value());
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
