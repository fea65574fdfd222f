// DeleteShareGroupOffsets (key 92, KIP-932): an empty share group's state for whole topics
// forgotten (server/share_admin.h). DELETE on the group and READ on each topic, as in Kafka.
#include "protocol/messages/delete_share_group_offsets.h"

#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"
#include "server/share_admin.h"

namespace mirra::server {
namespace {

using Req = protocol::DeleteShareGroupOffsetsRequest;
using Resp = protocol::DeleteShareGroupOffsetsResponse;

void add_outcome(Resp& resp, const std::string& topic, const Uuid& topic_id, const Status& s) {
  auto& t = resp.responses.emplace_back();
  t.topic_name = topic;
  t.topic_id = topic_id;
  t.error_code = error_number(s.code());
  if (!s.ok()) t.error_message = s.message();
}

Resp refused(const Status& why) {
  Resp resp;
  resp.error_code = error_number(why.code());
  resp.error_message = why.message();
  return resp;
}

}  // namespace

asio::awaitable<HandlerResult> handle_delete_share_group_offsets(RequestContext& ctx) {
  auto req = decode_body<Req>(ctx);
  if (!req.ok()) co_return req.status();
  if (!authorized(ctx, AclOperation::del, ResourceType::group, req->group_id)) {
    co_return respond(ctx, refused(group_authorization_failed(req->group_id)));
  }
  Resp resp;
  std::vector<std::string> topics;
  for (const auto& t : req->topics) {
    if (authorized(ctx, AclOperation::read, ResourceType::topic, t.topic_name)) {
      topics.push_back(t.topic_name);
    } else {
      add_outcome(resp, t.topic_name, Uuid::zero(), topic_authorization_failed(t.topic_name));
    }
  }
  auto outcomes = co_await delete_share_offsets(*ctx.broker, req->group_id, std::move(topics));
  if (!outcomes.ok()) co_return respond(ctx, refused(outcomes.status()));
  for (const ShareOffsetOutcome& o : outcomes.value())
    add_outcome(resp, o.topic, o.topic_id, o.status);
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
