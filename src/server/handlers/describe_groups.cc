// DescribeGroups (key 15): state, protocol and members of each group; an unknown group is
// reported as Dead, as Kafka does before DescribeGroups v6.
#include "protocol/messages/describe_groups.h"

#include "groups/group_coordinator.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_describe_groups(RequestContext& ctx) {
  auto req = decode_body<protocol::DescribeGroupsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::DescribeGroupsResponse resp;
  for (const std::string& id : req->groups) {
    if (!authorized(ctx, AclOperation::describe, ResourceType::group, id)) {
      auto& refused = resp.groups.emplace_back();
      refused.group_id = id;
      refused.error_code = error_number(ErrorCode::GROUP_AUTHORIZATION_FAILED);
      continue;
    }
    auto g = ctx.broker->groups->describe(id, ctx.api_version);
    if (req->include_authorized_operations) {
      g.authorized_operations =
          authorized_operations(ctx, ResourceType::group, id, kAllGroupOperations);
    }
    resp.groups.push_back(std::move(g));
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
