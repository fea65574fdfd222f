// OffsetCommit (key 8): committed offsets are durable in __consumer_offsets before the answer.
#include "protocol/messages/offset_commit.h"

#include "groups/group_coordinator.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_offset_commit(RequestContext& ctx) {
  auto req = decode_body<protocol::OffsetCommitRequest>(ctx);
  if (!req.ok()) co_return req.status();
  // READ on the group, else every partition is refused; then READ on each topic.
  std::vector<protocol::OffsetCommitResponse::OffsetCommitResponseTopic> refused;
  if (!authorized(ctx, AclOperation::read, ResourceType::group, req->group_id)) {
    move_topics_out(req->topics, refused, ErrorCode::GROUP_AUTHORIZATION_FAILED,
                    [](const std::string&) { return false; });
  }
  split_unauthorized_topics(ctx, AclOperation::read, req->topics, refused);
  protocol::OffsetCommitResponse resp;
  if (!req->topics.empty())
    resp = co_await ctx.broker->groups->commit(req.value(), ctx.api_version);
  for (auto& t : refused) resp.topics.push_back(std::move(t));
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
