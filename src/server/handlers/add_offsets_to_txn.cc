// AddOffsetsToTxn (key 25): the group's __consumer_offsets partition joins the transaction,
// so the markers reach the offsets committed with TxnOffsetCommit.
#include "protocol/messages/add_offsets_to_txn.h"

#include "groups/group_coordinator.h"
#include "groups/offsets_topic.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"
#include "txn/txn_coordinator.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_add_offsets_to_txn(RequestContext& ctx) {
  auto req = decode_body<protocol::AddOffsetsToTxnRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::AddOffsetsToTxnResponse resp;
  if (!authorized(ctx, AclOperation::write, ResourceType::transactional_id,
                  req->transactional_id)) {
    resp.error_code = error_number(ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    co_return respond(ctx, resp);
  }
  if (!authorized(ctx, AclOperation::read, ResourceType::group, req->group_id)) {
    resp.error_code = error_number(ErrorCode::GROUP_AUTHORIZATION_FAILED);
    co_return respond(ctx, resp);
  }
  // The offsets topic exists from here on: the marker needs its partition.
  if (Status st = co_await ctx.broker->groups->ready_for(req->group_id); !st) {
    resp.error_code = error_number(st.code());
    co_return respond(ctx, resp);
  }
  txn::TxnPartitions parts;
  parts[groups::kOffsetsTopic].insert(ctx.broker->groups->partition_of(req->group_id));
  auto errors = co_await ctx.broker->txn->add_partitions(req->transactional_id, req->producer_id,
                                                         req->producer_epoch, parts);
  for (const auto& [tp, e] : errors) {
    if (e != ErrorCode::NONE) resp.error_code = error_number(fenced_for(e, ctx.api_version >= 2));
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
