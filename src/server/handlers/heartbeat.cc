// Heartbeat (key 12): keeps a member's session alive; REBALANCE_IN_PROGRESS tells it to rejoin.
#include "protocol/messages/heartbeat.h"

#include "groups/group_coordinator.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_heartbeat(RequestContext& ctx) {
  auto req = decode_body<protocol::HeartbeatRequest>(ctx);
  if (!req.ok()) co_return req.status();
  if (auto refused = refuse_unless_on_group<protocol::HeartbeatResponse>(ctx, AclOperation::read,
                                                                         req->group_id)) {
    co_return respond(ctx, *refused);
  }
  co_return respond(ctx, ctx.broker->groups->heartbeat(req.value()));
}

}  // namespace mirra::server
