// ListGroups (key 16): every classic group of this coordinator, filtered by state (v4+) and
// type (v5+).
#include "protocol/messages/list_groups.h"

#include "groups/group_coordinator.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_list_groups(RequestContext& ctx) {
  auto req = decode_body<protocol::ListGroupsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  co_return respond(ctx, ctx.broker->groups->list(req.value(), ctx.api_version));
}

}  // namespace mirra::server
