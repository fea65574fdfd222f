// ListGroups (key 16): every classic group of this coordinator, filtered by state (v4+) and
// type (v5+).
#include "protocol/messages/list_groups.h"

#include "groups/group_coordinator.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_list_groups(RequestContext& ctx) {
  auto req = decode_body<protocol::ListGroupsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::ListGroupsResponse resp = ctx.broker->groups->list(req.value(), ctx.api_version);
  // DESCRIBE on the cluster lists every group; otherwise only the groups the caller may
  // DESCRIBE are listed, the others left out silently (as Kafka).
  if (!authorized_on_cluster(ctx, AclOperation::describe)) {
    std::erase_if(resp.groups, [&](const auto& g) {
      return !authorized(ctx, AclOperation::describe, ResourceType::group, g.group_id);
    });
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
