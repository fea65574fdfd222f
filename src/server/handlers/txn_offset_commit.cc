// TxnOffsetCommit (key 28): a transactional producer commits a group's offsets inside its
// transaction; they count when the transaction commits (groups/group_txn_offsets.cc).
#include "protocol/messages/txn_offset_commit.h"

#include "groups/group_coordinator.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"
#include "txn/txn_coordinator.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_txn_offset_commit(RequestContext& ctx) {
  auto req = decode_body<protocol::TxnOffsetCommitRequest>(ctx);
  if (!req.ok()) co_return req.status();
  // Kafka's order: WRITE on the transactional id, READ on the group, READ on each topic.
  std::vector<protocol::TxnOffsetCommitResponse::TxnOffsetCommitResponseTopic> refused;
  ErrorCode producer = ErrorCode::NONE;
  if (!authorized(ctx, AclOperation::write, ResourceType::transactional_id,
                  req->transactional_id)) {
    producer = ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
  } else if (!authorized(ctx, AclOperation::read, ResourceType::group, req->group_id)) {
    producer = ErrorCode::GROUP_AUTHORIZATION_FAILED;
  } else {
    split_unauthorized_topics(ctx, AclOperation::read, req->topics, refused);
    producer = ctx.broker->txn->check_txn_offset_commit(
        req->transactional_id, req->producer_id, req->producer_epoch,
        ctx.broker->groups->partition_of(req->group_id));
  }
  if (producer != ErrorCode::NONE) {
    protocol::TxnOffsetCommitResponse resp;
    for (const auto& t : req->topics) {
      auto& out = resp.topics.emplace_back();
      out.name = t.name;
      for (const auto& p : t.partitions) {
        out.partitions.push_back({p.partition_index, error_number(producer), {}});
      }
    }
    co_return respond(ctx, resp);
  }
  protocol::TxnOffsetCommitResponse resp;
  if (!req->topics.empty()) resp = co_await ctx.broker->groups->txn_commit(req.value());
  for (auto& t : refused) resp.topics.push_back(std::move(t));
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
