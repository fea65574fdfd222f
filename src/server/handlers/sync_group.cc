// SyncGroup (key 14): the leader hands in the assignments, every member gets its own.
#include "protocol/messages/sync_group.h"

#include "groups/group_coordinator.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_sync_group(RequestContext& ctx) {
  auto req = decode_body<protocol::SyncGroupRequest>(ctx);
  if (!req.ok()) co_return req.status();
  if (auto refused = refuse_unless_on_group<protocol::SyncGroupResponse>(ctx, AclOperation::read,
                                                                         req->group_id)) {
    co_return respond(ctx, *refused);
  }
  protocol::SyncGroupResponse resp =
      co_await ctx.broker->groups->sync(req.value(), ctx.api_version);
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
