// ListTransactions (key 66): transactional ids, filtered by state names, producer ids and
// (v1+) how long their transaction has been open.
#include "protocol/messages/list_transactions.h"

#include <algorithm>

#include "base/clock.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"
#include "txn/txn_coordinator.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_list_transactions(RequestContext& ctx) {
  auto req = decode_body<protocol::ListTransactionsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  const txn::TxnCoordinator& coordinator = *ctx.broker->txn;
  protocol::ListTransactionsResponse resp;
  if (coordinator.loading()) {
    resp.error_code = error_number(ErrorCode::COORDINATOR_LOAD_IN_PROGRESS);
    co_return respond(ctx, resp);
  }
  std::vector<txn::TxnState> states;
  for (const std::string& name : req->state_filters) {
    txn::TxnState s;
    if (txn::state_from_name(name, s)) states.push_back(s);
    else resp.unknown_state_filters.push_back(name);
  }
  // Only unknown names asked for: nothing can match.
  if (!req->state_filters.empty() && states.empty()) co_return respond(ctx, resp);
  const auto& pids = req->producer_id_filters;
  const int64_t now = now_ms();
  for (const txn::TxnMetadata* m : coordinator.list()) {
    // Transactions the caller may not DESCRIBE are left out silently, as in Kafka.
    if (!authorized(ctx, AclOperation::describe, ResourceType::transactional_id,
                    m->transactional_id)) {
      continue;
    }
    if (!states.empty() && std::find(states.begin(), states.end(), m->state) == states.end())
      continue;
    if (!pids.empty() && std::find(pids.begin(), pids.end(), m->producer_id) == pids.end())
      continue;
    if (req->duration_filter >= 0 &&
        (m->state != txn::TxnState::ongoing || now - m->start_ms < req->duration_filter)) {
      continue;
    }
    resp.transaction_states.push_back(
        {m->transactional_id, m->producer_id, txn::state_name(m->state), {}});
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
