// AlterShareGroupOffsets (key 91, KIP-932): sets an empty share group's start offsets (server/
// share_admin.h), creating the group if missing. READ on the group and on each topic, as in
// Kafka. A refusal of the whole group is the top-level error and every partition's.
#include "protocol/messages/alter_share_group_offsets.h"

#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"
#include "server/share_admin.h"

namespace mirra::server {
namespace {

using Req = protocol::AlterShareGroupOffsetsRequest;
using Resp = protocol::AlterShareGroupOffsetsResponse;

void add_outcome(Resp& resp, const std::string& topic, const Uuid& topic_id, int32_t partition,
                 const Status& status) {
  if (resp.responses.empty() || resp.responses.back().topic_name != topic) {
    auto& t = resp.responses.emplace_back();
    t.topic_name = topic;
    t.topic_id = topic_id;
  }
  auto& p = resp.responses.back().partitions.emplace_back();
  p.partition_index = partition;
  p.error_code = error_number(status.code());
  if (!status.ok()) p.error_message = status.message();
}

// The whole request refused with `why`, at the top and on every partition.
Resp refused(const Req& req, const Status& why) {
  Resp resp;
  resp.error_code = error_number(why.code());
  resp.error_message = why.message();
  for (const auto& t : req.topics) {
    for (const auto& p : t.partitions)
      add_outcome(resp, t.topic_name, Uuid::zero(), p.partition_index, why);
  }
  return resp;
}

}  // namespace

asio::awaitable<HandlerResult> handle_alter_share_group_offsets(RequestContext& ctx) {
  auto req = decode_body<Req>(ctx);
  if (!req.ok()) co_return req.status();
  if (!authorized(ctx, AclOperation::read, ResourceType::group, req->group_id)) {
    co_return respond(ctx, refused(*req, group_authorization_failed(req->group_id)));
  }
  Resp denied;  // topics the caller may not read, answered as such
  std::vector<ShareOffsetTarget> targets;
  for (const auto& t : req->topics) {
    const bool allowed = authorized(ctx, AclOperation::read, ResourceType::topic, t.topic_name);
    for (const auto& p : t.partitions) {
      if (allowed) {
        targets.push_back({t.topic_name, p.partition_index, p.start_offset});
      } else {
        add_outcome(denied, t.topic_name, Uuid::zero(), p.partition_index,
                    topic_authorization_failed(t.topic_name));
      }
    }
  }
  auto outcomes = co_await alter_share_offsets(*ctx.broker, req->group_id, std::move(targets));
  if (!outcomes.ok()) co_return respond(ctx, refused(*req, outcomes.status()));
  Resp resp = std::move(denied);
  for (const ShareOffsetOutcome& o : outcomes.value()) {
    add_outcome(resp, o.topic, o.topic_id, o.partition, o.status);
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
