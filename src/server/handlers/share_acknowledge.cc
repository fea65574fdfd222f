// ShareAcknowledge (key 79, v1-2): acknowledgements without a fetch (a share consumer's
// commitSync/commitAsync and close). The session must exist; epoch -1 closes it after the
// acknowledgements, giving back what its member still holds on its partitions. Epoch 0 opens
// nothing here: a session is opened by ShareFetch (docs/share-groups-design.md).
#include "protocol/messages/share_acknowledge.h"

#include <map>

#include "base/clock.h"
#include "cluster/partition.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"
#include "server/handlers/share_util.h"

namespace mirra::server {
namespace {

using protocol::ShareAcknowledgeRequest;
using protocol::ShareAcknowledgeResponse;

ShareAcknowledgeResponse failed(ErrorCode e, std::optional<std::string> why = std::nullopt) {
  ShareAcknowledgeResponse resp;
  resp.error_code = error_number(e);
  resp.error_message = std::move(why);
  return resp;
}

}  // namespace

asio::awaitable<HandlerResult> handle_share_acknowledge(RequestContext& ctx) {
  auto req = decode_body<ShareAcknowledgeRequest>(ctx);
  if (!req.ok()) co_return req.status();
  std::string why;
  if (ErrorCode e = check_share_ids(req->group_id, req->member_id, why); e != ErrorCode::NONE) {
    co_return respond(ctx, failed(e, why));
  }
  if (auto refused = refuse_unless_on_group<ShareAcknowledgeResponse>(ctx, AclOperation::read,
                                                                      *req->group_id)) {
    co_return respond(ctx, *refused);
  }
  if (req->share_session_epoch == 0) {
    co_return respond(ctx, failed(ErrorCode::INVALID_SHARE_SESSION_EPOCH,
                                  "ShareAcknowledge does not open a share session."));
  }
  const std::string& group = *req->group_id;
  const std::string& member = *req->member_id;
  share::ShareSession* session = nullptr;
  if (ErrorCode e = share_session_for(ctx, group, member, req->share_session_epoch, session);
      e != ErrorCode::NONE) {
    co_return respond(ctx, failed(e));
  }
  share::ShareState& state = *ctx.broker->share;
  const share::ShareLimits limits = share_limits_of(ctx, share_group_settings_of(ctx, group));
  // Each partition once, in topic id order, whatever order and repetition the request has.
  std::map<share::SharePartitionId, ShareTarget> results;
  for (const auto& t : req->topics) {
    for (const auto& p : t.partitions) {
      const share::SharePartitionId id{t.topic_id, p.partition_index};
      auto [it, fresh] = results.try_emplace(id);
      ShareTarget& target = it->second;
      if (fresh) target = find_share_target(ctx, id);
      if (target.error != ErrorCode::NONE) continue;
      target.error = apply_acks(state, {group, id.topic_id, id.partition}, member,
                                ack_batches(p.acknowledgement_batches), ctx.api_version,
                                steady_ms(), limits);
    }
  }
  // What was acknowledged is durable before the answer says so (also where a later batch was
  // refused: the batches before it stay applied).
  for (auto& [id, target] : results) {
    if (target.part == nullptr) continue;
    const share::ShareKey key{group, id.topic_id, id.partition};  // named: see persist_share_state
    const ErrorCode e = co_await persist_share_state(*ctx.broker, key);
    if (target.error == ErrorCode::NONE) target.error = e;
  }
  if (req->share_session_epoch == -1) {
    if (auto closed = state.sessions().close(group, member)) state.end_session(*closed);
  }
  ShareAcknowledgeResponse resp;
  if (ctx.api_version >= 2) {
    resp.acquisition_lock_timeout_ms = static_cast<int32_t>(limits.lock_duration_ms);
  }
  for (const auto& [id, target] : results) {
    if (resp.responses.empty() || resp.responses.back().topic_id != id.topic_id) {
      resp.responses.emplace_back().topic_id = id.topic_id;
    }
    auto& pd = resp.responses.back().partitions.emplace_back();
    pd.partition_index = id.partition;
    pd.error_code = error_number(target.error);
    pd.current_leader.leader_id = ctx.broker->config->node_id;
    pd.current_leader.leader_epoch = target.part ? target.part->leader_epoch : -1;
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
