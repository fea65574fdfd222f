// OffsetDelete (key 47): removes committed offsets of partitions the group does not consume.
#include "protocol/messages/offset_delete.h"

#include "groups/group_coordinator.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_offset_delete(RequestContext& ctx) {
  auto req = decode_body<protocol::OffsetDeleteRequest>(ctx);
  if (!req.ok()) co_return req.status();
  if (auto refused = refuse_unless_on_group<protocol::OffsetDeleteResponse>(ctx, AclOperation::del,
                                                                            req->group_id)) {
    co_return respond(ctx, *refused);
  }
  std::vector<protocol::OffsetDeleteResponse::OffsetDeleteResponseTopic> refused;
  split_unauthorized_topics(ctx, AclOperation::read, req->topics, refused);
  protocol::OffsetDeleteResponse resp = co_await ctx.broker->groups->delete_offsets(req.value());
  for (auto& t : refused) resp.topics.push_back(std::move(t));
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
