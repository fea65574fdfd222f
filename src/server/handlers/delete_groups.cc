// DeleteGroups (key 42): empty groups are deleted with their committed offsets.
#include "protocol/messages/delete_groups.h"

#include "groups/group_coordinator.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_delete_groups(RequestContext& ctx) {
  auto req = decode_body<protocol::DeleteGroupsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::DeleteGroupsResponse resp;
  for (const std::string& id : req->groups_names) {
    if (!authorized(ctx, AclOperation::del, ResourceType::group, id)) {
      auto& refused = resp.results.emplace_back();
      refused.group_id = id;
      refused.error_code = error_number(ErrorCode::GROUP_AUTHORIZATION_FAILED);
      continue;
    }
    auto result = co_await ctx.broker->groups->delete_group(id);
    resp.results.push_back(std::move(result));
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
