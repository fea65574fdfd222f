// ShareGroupDescribe (key 77, KIP-932): each share group's state, epochs, assignor and members
// with their subscriptions and assignments (topic id and name).
#include "protocol/messages/share_group_describe.h"

#include "groups/group_coordinator.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using Described = protocol::ShareGroupDescribeResponse::DescribedGroup;

// As Kafka: a group whose members subscribe to or are assigned a topic the caller may not
// DESCRIBE is refused as a whole, so that a description does not reveal topics.
bool topics_visible(RequestContext& ctx, const Described& g) {
  for (const auto& m : g.members) {
    for (const std::string& t : m.subscribed_topic_names) {
      if (!authorized(ctx, AclOperation::describe, ResourceType::topic, t)) return false;
    }
    for (const auto& tp : m.assignment.topic_partitions) {
      if (!authorized(ctx, AclOperation::describe, ResourceType::topic, tp.topic_name)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

asio::awaitable<HandlerResult> handle_share_group_describe(RequestContext& ctx) {
  auto req = decode_body<protocol::ShareGroupDescribeRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::ShareGroupDescribeResponse resp;
  for (const std::string& id : req->group_ids) {
    if (!authorized(ctx, AclOperation::describe, ResourceType::group, id)) {
      auto& refused = resp.groups.emplace_back();
      refused.group_id = id;
      refused.error_code = error_number(ErrorCode::GROUP_AUTHORIZATION_FAILED);
      refused.error_message = group_authorization_failed(id).message();
      continue;
    }
    Described g = ctx.broker->groups->share_describe(id);
    if (!topics_visible(ctx, g)) {
      Described refused;
      refused.group_id = id;
      refused.error_code = error_number(ErrorCode::TOPIC_AUTHORIZATION_FAILED);
      refused.error_message =
          "The group has a member subscribed to or assigned a topic "
          "the caller may not describe.";
      g = std::move(refused);
    } else if (req->include_authorized_operations && g.error_code == 0) {
      g.authorized_operations =
          authorized_operations(ctx, ResourceType::group, id, kAllGroupOperations);
    }
    resp.groups.push_back(std::move(g));
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
