// DescribeTransactions (key 65): a transactional id's state, producer and partitions.
#include "protocol/messages/describe_transactions.h"

#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"
#include "txn/txn_coordinator.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_describe_transactions(RequestContext& ctx) {
  auto req = decode_body<protocol::DescribeTransactionsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  const txn::TxnCoordinator& coordinator = *ctx.broker->txn;
  protocol::DescribeTransactionsResponse resp;
  for (const std::string& id : req->transactional_ids) {
    auto& out = resp.transaction_states.emplace_back();
    out.transactional_id = id;
    out.transaction_state = "";
    out.producer_id = -1;
    out.producer_epoch = -1;
    out.transaction_start_time_ms = -1;
    if (!authorized(ctx, AclOperation::describe, ResourceType::transactional_id, id)) {
      out.error_code = error_number(ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
      continue;
    }
    const txn::TxnMetadata* m = coordinator.find(id);
    if (coordinator.loading()) {
      out.error_code = error_number(ErrorCode::COORDINATOR_LOAD_IN_PROGRESS);
      continue;
    }
    if (m == nullptr) {
      out.error_code = error_number(ErrorCode::TRANSACTIONAL_ID_NOT_FOUND);
      continue;
    }
    out.transaction_state = txn::state_name(m->state);
    out.transaction_timeout_ms = m->timeout_ms;
    out.transaction_start_time_ms = m->start_ms;
    out.producer_id = m->producer_id;
    out.producer_epoch = m->producer_epoch;
    for (const auto& [topic, parts] : m->partitions) {
      out.topics.push_back({topic, std::vector<int32_t>(parts.begin(), parts.end()), {}});
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
