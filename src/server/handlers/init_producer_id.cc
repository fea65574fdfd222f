// InitProducerId (key 22): a producer id for an idempotent producer, or a transactional id's
// producer with its epoch bumped (txn/txn_coordinator.h).
#include "protocol/messages/init_producer_id.h"

#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"
#include "txn/txn_coordinator.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_init_producer_id(RequestContext& ctx) {
  auto req = decode_body<protocol::InitProducerIdRequest>(ctx);
  if (!req.ok()) co_return req.status();
  // A transactional producer needs WRITE on its id; an idempotent one IDEMPOTENT_WRITE on the
  // cluster or WRITE on any topic (KIP-679).
  ErrorCode refused = ErrorCode::NONE;
  if (req->transactional_id) {
    if (!authorized(ctx, AclOperation::write, ResourceType::transactional_id,
                    *req->transactional_id)) {
      refused = ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    }
  } else if (!authorized_on_cluster(ctx, AclOperation::idempotent_write) &&
             !authorized_any(ctx, AclOperation::write, ResourceType::topic)) {
    refused = ErrorCode::CLUSTER_AUTHORIZATION_FAILED;
  }
  if (refused != ErrorCode::NONE) {
    protocol::InitProducerIdResponse resp;
    resp.error_code = error_number(refused);
    resp.producer_id = -1;
    resp.producer_epoch = -1;
    co_return respond(ctx, resp);
  }
  txn::InitResult r = co_await ctx.broker->txn->init_producer_id(
      req->transactional_id, req->transaction_timeout_ms, req->producer_id, req->producer_epoch);
  protocol::InitProducerIdResponse resp;
  resp.error_code = error_number(fenced_for(r.error, ctx.api_version >= 4));
  resp.producer_id = r.producer_id;
  resp.producer_epoch = r.producer_epoch;
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
