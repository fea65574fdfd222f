// LeaveGroup (key 13): members leave (v3+: several at once, static members by instance id);
// the rest of the group rebalances.
#include "protocol/messages/leave_group.h"

#include "groups/group_coordinator.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_leave_group(RequestContext& ctx) {
  auto req = decode_body<protocol::LeaveGroupRequest>(ctx);
  if (!req.ok()) co_return req.status();
  if (auto refused = refuse_unless_on_group<protocol::LeaveGroupResponse>(ctx, AclOperation::read,
                                                                          req->group_id)) {
    co_return respond(ctx, *refused);
  }
  protocol::LeaveGroupResponse resp =
      co_await ctx.broker->groups->leave(req.value(), ctx.api_version);
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
