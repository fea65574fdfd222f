// FindCoordinator (key 10): this node coordinates every group and every transactional id.
// The first lookup of a group creates __consumer_offsets, that of a transactional id
// __transaction_state, as in Kafka. v4+ asks for several keys at once.
#include "protocol/messages/find_coordinator.h"

#include <fmt/format.h>

#include "base/parse.h"
#include "base/uuid.h"
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
constexpr int8_t kShareKey = 2;  // v6+, KIP-932: "groupId:topicId:partition"

// A share coordinator key as Kafka's SharePartitionKey accepts it: a group id (it may hold
// ':' itself), a topic id (base64 UUID) and a partition number.
bool valid_share_key(std::string_view key) {
  const size_t last = key.rfind(':');
  if (last == std::string_view::npos || last == 0) return false;
  const size_t middle = key.rfind(':', last - 1);
  if (middle == std::string_view::npos || middle == 0) return false;
  const auto topic_id = Uuid::parse(key.substr(middle + 1, last - middle - 1));
  const auto partition = parse_decimal<int32_t>(key.substr(last + 1));
  return topic_id && !topic_id->is_zero() && partition && *partition >= 0;
}

// The share coordinator of every share partition is this node: its state is local.
Status share_coordinator(RequestContext& ctx, const std::string& key) {
  if (ctx.api_version < 6) {
    return Status(ErrorCode::INVALID_REQUEST, "key type 2 needs FindCoordinator v6");
  }
  if (!authorized_on_cluster(ctx, AclOperation::cluster_action)) {
    return cluster_authorization_failed(AclOperation::cluster_action);
  }
  if (!valid_share_key(key)) {
    return Status(
        ErrorCode::INVALID_REQUEST,
        fmt::format("'{}' is not a share coordinator key groupId:topicId:partition", key));
  }
  return Status::OK();
}

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
  } else if (key_type == kShareKey) {
    st = share_coordinator(ctx, key);
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
