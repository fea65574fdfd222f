// ShareGroupHeartbeat (key 76, KIP-932): a share group member joins (MemberEpoch 0), stays
// (its epoch) or leaves (-1); the answer carries its assignment as topic ids when it changed
// (groups/group_coordinator.h, share_group_coordinator.cc).
#include "protocol/messages/share_group_heartbeat.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "groups/group_coordinator.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_share_group_heartbeat(RequestContext& ctx) {
  auto req = decode_body<protocol::ShareGroupHeartbeatRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::ShareGroupHeartbeatResponse resp;
  // As Kafka: READ on the group, then DESCRIBE on every topic the member subscribes to.
  if (!authorized(ctx, AclOperation::read, ResourceType::group, req->group_id)) {
    resp.error_code = error_number(ErrorCode::GROUP_AUTHORIZATION_FAILED);
    resp.error_message = group_authorization_failed(req->group_id).message();
    co_return respond(ctx, resp);
  }
  if (req->subscribed_topic_names) {
    std::vector<std::string> refused;
    for (const std::string& t : *req->subscribed_topic_names) {
      if (!authorized(ctx, AclOperation::describe, ResourceType::topic, t)) refused.push_back(t);
    }
    if (!refused.empty()) {
      resp.error_code = error_number(ErrorCode::TOPIC_AUTHORIZATION_FAILED);
      resp.error_message = fmt::format("Unauthorized topics: {}", fmt::join(refused, ", "));
      co_return respond(ctx, resp);
    }
  }
  const groups::ClientInfo client{ctx.header.client_id.value_or(""), client_host(ctx)};
  co_return respond(ctx, ctx.broker->groups->share_heartbeat(req.value(), client));
}

}  // namespace mirra::server
