// InitProducerId (key 22): a producer id for an idempotent producer, or a transactional id's
// producer with its epoch bumped (txn/txn_coordinator.h).
#include "protocol/messages/init_producer_id.h"

#include "server/handlers/handlers.h"
#include "txn/txn_coordinator.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_init_producer_id(RequestContext& ctx) {
  auto req = decode_body<protocol::InitProducerIdRequest>(ctx);
  if (!req.ok()) co_return req.status();
  txn::InitResult r = co_await ctx.broker->txn->init_producer_id(
      req->transactional_id, req->transaction_timeout_ms, req->producer_id, req->producer_epoch);
  protocol::InitProducerIdResponse resp;
  resp.error_code = error_number(fenced_for(r.error, ctx.api_version >= 4));
  resp.producer_id = r.producer_id;
  resp.producer_epoch = r.producer_epoch;
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
