// EndTxn (key 26): commit or abort the producer's open transaction; answered once the
// decision is durable in __transaction_state and the markers are written.
#include "protocol/messages/end_txn.h"

#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"
#include "txn/txn_coordinator.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_end_txn(RequestContext& ctx) {
  auto req = decode_body<protocol::EndTxnRequest>(ctx);
  if (!req.ok()) co_return req.status();
  if (!authorized(ctx, AclOperation::write, ResourceType::transactional_id,
                  req->transactional_id)) {
    protocol::EndTxnResponse refused;
    refused.error_code = error_number(ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    co_return respond(ctx, refused);
  }
  ErrorCode e = co_await ctx.broker->txn->end_txn(req->transactional_id, req->producer_id,
                                                  req->producer_epoch, req->committed);
  protocol::EndTxnResponse resp;
  resp.error_code = error_number(fenced_for(e, ctx.api_version >= 2));
  // v5+ (KIP-890 part 2) reports the producer's id and epoch; Mirra does not bump the epoch
  // at the end of a transaction, so they are the request's.
  resp.producer_id = req->producer_id;
  resp.producer_epoch = req->producer_epoch;
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
