// FindCoordinator (key 10): this node coordinates every group and every transactional id.
// The first lookup of a group creates __consumer_offsets, that of a transactional id
// __transaction_state, as in Kafka. v4+ asks for several keys at once.
#include "protocol/messages/find_coordinator.h"

#include <fmt/format.h>

#include "groups/group_coordinator.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"
#include "txn/txn_coordinator.h"

namespace mirra::server {
namespace {

using protocol::FindCoordinatorRequest;
using protocol::FindCoordinatorResponse;
using Coordinator = FindCoordinatorResponse::Coordinator;

constexpr int8_t kGroupKey = 0;
constexpr int8_t kTransactionKey = 1;

asio::awaitable<Coordinator> lookup(RequestContext& ctx, int8_t key_type, const std::string& key) {
  Coordinator c;
  c.key = key;
  c.node_id = -1;
  Status st;
  // DESCRIBE on the group or transactional id comes first (Kafka's order).
  if (key_type == kGroupKey && !authorized(ctx, AclOperation::describe, ResourceType::group, key)) {
    st = group_authorization_failed(key);
  } else if (key_type == kTransactionKey &&
             !authorized(ctx, AclOperation::describe, ResourceType::transactional_id, key)) {
    st = transactional_id_authorization_failed(key);
  } else if (key_type == kGroupKey) {
    st = co_await ctx.broker->groups->ready_for(key);
  } else if (key_type == kTransactionKey) {
    st = co_await ctx.broker->txn->ready_for(key);
  } else {
    st = Status(ErrorCode::INVALID_REQUEST, fmt::format("unknown key type {}", key_type));
  }
  if (!st) {
    c.error_code = error_number(st.code());
    c.error_message = st.message();
    co_return c;
  }
  const AdvertisedEndpoint& ep = ctx.endpoint();
  c.node_id = ctx.broker->config->node_id;
  c.host = ep.host;
  c.port = ep.port;
  co_return c;
}

}  // namespace

asio::awaitable<HandlerResult> handle_find_coordinator(RequestContext& ctx) {
  auto req = decode_body<FindCoordinatorRequest>(ctx);
  if (!req.ok()) co_return req.status();
  FindCoordinatorResponse resp;
  if (ctx.api_version >= 4) {
    for (const std::string& key : req->coordinator_keys) {
      Coordinator c = co_await lookup(ctx, req->key_type, key);
      resp.coordinators.push_back(std::move(c));
    }
    co_return respond(ctx, resp);
  }
  Coordinator c = co_await lookup(ctx, req->key_type, req->key);
  resp.error_code = c.error_code;
  resp.error_message = c.error_message;
  resp.node_id = c.node_id;
  resp.host = c.host;
  resp.port = c.port;
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
