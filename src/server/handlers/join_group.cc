// JoinGroup (key 11): the join phase of a classic group's rebalance
// (groups/group_coordinator.h). The response may wait for the other members, up to the
// group's rebalance timeout.
#include "protocol/messages/join_group.h"

#include "groups/group_coordinator.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_join_group(RequestContext& ctx) {
  auto req = decode_body<protocol::JoinGroupRequest>(ctx);
  if (!req.ok()) co_return req.status();
  if (auto refused = refuse_unless_on_group<protocol::JoinGroupResponse>(ctx, AclOperation::read,
                                                                         req->group_id)) {
    co_return respond(ctx, *refused);
  }
  const groups::ClientInfo client{ctx.header.client_id.value_or(""), client_host(ctx)};
  protocol::JoinGroupResponse resp =
      co_await ctx.broker->groups->join(req.value(), ctx.api_version, client);
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
