// AddPartitionsToTxn (key 24): the partitions a transactional producer is about to write.
// v0-3 carry one transaction (from producers); v4+ several (from brokers, KIP-890), where
// verify_only asks whether the partitions are already in the transaction.
#include "protocol/messages/add_partitions_to_txn.h"

#include <map>
#include <optional>
#include <set>
#include <string>

#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"
#include "txn/txn_coordinator.h"

namespace mirra::server {
namespace {

using protocol::AddPartitionsToTxnRequest;
using protocol::AddPartitionsToTxnResponse;
using TopicResult = AddPartitionsToTxnResponse::AddPartitionsToTxnTopicResult;

txn::TxnPartitions partitions_of(
    const std::vector<AddPartitionsToTxnRequest::AddPartitionsToTxnTopic>& topics) {
  txn::TxnPartitions out;
  for (const auto& t : topics) out[t.name].insert(t.partitions.begin(), t.partitions.end());
  return out;
}

// The answer when the caller may not add these partitions (nullopt: it may): without WRITE on
// the transactional id every partition fails with TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
// without WRITE on some topic, its partitions fail with TOPIC_AUTHORIZATION_FAILED and the
// others are OPERATION_NOT_ATTEMPTED, as in Kafka.
std::optional<std::map<std::pair<std::string, int32_t>, ErrorCode>> refused(
    RequestContext& ctx, const std::string& transactional_id, const txn::TxnPartitions& parts) {
  const bool txn_ok =
      authorized(ctx, AclOperation::write, ResourceType::transactional_id, transactional_id);
  std::set<std::string> denied;
  for (const auto& [topic, indexes] : parts) {
    if (txn_ok && !authorized(ctx, AclOperation::write, ResourceType::topic, topic)) {
      denied.insert(topic);
    }
  }
  if (txn_ok && denied.empty()) return std::nullopt;
  std::map<std::pair<std::string, int32_t>, ErrorCode> out;
  for (const auto& [topic, indexes] : parts) {
    for (int32_t p : indexes) {
      out[{topic, p}] = !txn_ok ? ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED
                        : denied.count(topic) != 0 ? ErrorCode::TOPIC_AUTHORIZATION_FAILED
                                                   : ErrorCode::OPERATION_NOT_ATTEMPTED;
    }
  }
  return out;
}

// NONE for each partition already in the open transaction, INVALID_TXN_STATE for the others.
std::map<std::pair<std::string, int32_t>, ErrorCode> verify(
    const txn::TxnCoordinator& coordinator,
    const AddPartitionsToTxnRequest::AddPartitionsToTxnTransaction& t) {
  std::map<std::pair<std::string, int32_t>, ErrorCode> out;
  const txn::TxnMetadata* m = coordinator.find(t.transactional_id);
  for (const auto& [topic, parts] : partitions_of(t.topics)) {
    for (int32_t p : parts) {
      ErrorCode e = ErrorCode::INVALID_TXN_STATE;
      if (m == nullptr || m->producer_id != t.producer_id) {
        e = ErrorCode::INVALID_PRODUCER_ID_MAPPING;
      } else if (m->producer_epoch != t.producer_epoch) {
        e = ErrorCode::PRODUCER_FENCED;
      } else if (m->state == txn::TxnState::ongoing && m->partitions.count(topic) != 0 &&
                 m->partitions.at(topic).count(p) != 0) {
        e = ErrorCode::NONE;
      }
      out[{topic, p}] = e;
    }
  }
  return out;
}

std::vector<TopicResult> topic_results(
    const std::map<std::pair<std::string, int32_t>, ErrorCode>& errors) {
  std::vector<TopicResult> out;
  for (const auto& [tp, e] : errors) {
    if (out.empty() || out.back().name != tp.first) out.emplace_back().name = tp.first;
    auto& r = out.back().results_by_partition.emplace_back();
    r.partition_index = tp.second;
    r.partition_error_code = error_number(e);
  }
  return out;
}

}  // namespace

asio::awaitable<HandlerResult> handle_add_partitions_to_txn(RequestContext& ctx) {
  auto req = decode_body<AddPartitionsToTxnRequest>(ctx);
  if (!req.ok()) co_return req.status();
  txn::TxnCoordinator& coordinator = *ctx.broker->txn;
  AddPartitionsToTxnResponse resp;
  if (ctx.api_version <= 3) {
    if (auto denied = refused(ctx, req->v3_and_below_transactional_id,
                              partitions_of(req->v3_and_below_topics))) {
      resp.results_by_topic_v3_and_below = topic_results(*denied);
      co_return respond(ctx, resp);
    }
    auto errors = co_await coordinator.add_partitions(
        req->v3_and_below_transactional_id, req->v3_and_below_producer_id,
        req->v3_and_below_producer_epoch, partitions_of(req->v3_and_below_topics));
    for (auto& [tp, e] : errors) e = fenced_for(e, ctx.api_version >= 2);
    resp.results_by_topic_v3_and_below = topic_results(errors);
    co_return respond(ctx, resp);
  }
  // v4+ is sent by brokers on behalf of producers: CLUSTER_ACTION on the cluster.
  if (!authorized_on_cluster(ctx, AclOperation::cluster_action)) {
    resp.error_code = error_number(ErrorCode::CLUSTER_AUTHORIZATION_FAILED);
    co_return respond(ctx, resp);
  }
  for (const auto& t : req->transactions) {
    // An if, not a conditional expression: g++ 12 miscompiles co_await inside ?:.
    std::map<std::pair<std::string, int32_t>, ErrorCode> errors;
    if (t.verify_only) {
      errors = verify(coordinator, t);
    } else {
      errors = co_await coordinator.add_partitions(t.transactional_id, t.producer_id,
                                                   t.producer_epoch, partitions_of(t.topics));
    }
    auto& out = resp.results_by_transaction.emplace_back();
    out.transactional_id = t.transactional_id;
    out.topic_results = topic_results(errors);
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
