// Client's transaction admin calls, as Kafka's Admin offers them to kafka-transactions.sh:
// ListTransactions asks every broker (each coordinates some transactional ids),
// DescribeTransactions goes to each id's coordinator (FindCoordinator key type 1), and
// DescribeProducers and the admin abort (WriteTxnMarkers) go to the partition's leader.
#include <algorithm>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "client/client.h"
#include "client/client_routing.h"

namespace mirra::client {
namespace {

asio::awaitable<Result<std::vector<TransactionListing>>> list_transactions_of(
    BrokerConnection& c, int32_t node_id, const TransactionFilter& filter) {
  auto version = c.version_for(protocol::ListTransactionsRequest::kApiKey);
  if (!version.ok()) co_return version.status();
  if (filter.min_duration_ms >= 0 && version.value() < 1) {
    co_return Status(ErrorCode::UNSUPPORTED_VERSION,
                     fmt::format("broker {} cannot filter transactions by duration "
                                 "(ListTransactions v0, the filter needs v1)",
                                 c.address()));
  }
  protocol::ListTransactionsRequest req;
  req.state_filters = filter.states;
  req.producer_id_filters = filter.producer_ids;
  req.duration_filter = filter.min_duration_ms;
  auto reply = co_await c.send(req);
  if (!reply.ok()) co_return reply.status();
  const auto& r = reply->body;
  Status s = status_from(r.error_code, std::nullopt, "list transactions of " + c.address());
  if (!s.ok()) co_return s;
  if (!r.unknown_state_filters.empty()) {
    co_return Status(ErrorCode::INVALID_REQUEST,
                     fmt::format("unknown transaction state '{}' (Kafka's states: Empty, Ongoing, "
                                 "PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort, "
                                 "Dead, PrepareEpochFence)",
                                 r.unknown_state_filters.front()));
  }
  std::vector<TransactionListing> out;
  for (const auto& t : r.transaction_states) {
    out.push_back({t.transactional_id, t.producer_id, t.transaction_state, node_id});
  }
  co_return out;
}

// DescribeProducers for `indexes` of `out` on one broker.
asio::awaitable<Status> describe_producers_on(BrokerConnection& conn,
                                              const std::vector<size_t>& indexes,
                                              std::vector<PartitionProducers>& out) {
  protocol::DescribeProducersRequest req;
  std::map<std::string, size_t> topic_index;
  for (size_t i : indexes) {
    auto [it, fresh] = topic_index.emplace(out[i].tp.topic, req.topics.size());
    if (fresh) req.topics.emplace_back().name = out[i].tp.topic;
    req.topics[it->second].partition_indexes.push_back(out[i].tp.partition);
  }
  auto reply = co_await conn.send(req);
  if (!reply.ok()) co_return reply.status();
  for (size_t i : indexes) {
    PartitionProducers& r = out[i];
    r.status = Status(ErrorCode::UNKNOWN_SERVER_ERROR,
                      fmt::format("the DescribeProducers response from {} has no answer for {}",
                                  conn.address(), to_string(r.tp)));
    for (const auto& t : reply->body.topics) {
      if (t.name != r.tp.topic) continue;
      for (const auto& p : t.partitions) {
        if (p.partition_index != r.tp.partition) continue;
        r.status = status_from(p.error_code, p.error_message, "producers of " + to_string(r.tp));
        r.producers.clear();
        for (const auto& a : p.active_producers) {
          r.producers.push_back({a.producer_id, a.producer_epoch, a.last_sequence, a.last_timestamp,
                                 a.coordinator_epoch, a.current_txn_start_offset});
        }
      }
    }
  }
  co_return Status::OK();
}

// Every partition of `items` on one broker (describe-producers --broker-id).
asio::awaitable<Result<bool>> describe_all_producers_on(BrokerConnection& conn,
                                                        std::vector<PartitionProducers>& items) {
  std::vector<size_t> all(items.size());
  std::iota(all.begin(), all.end(), size_t{0});
  Status s = co_await describe_producers_on(conn, all, items);
  if (!s.ok()) co_return s;
  co_return true;
}

}  // namespace

asio::awaitable<Result<TransactionListings>> Client::list_transactions(TransactionFilter filter) {
  auto md = co_await metadata(std::vector<std::string>{});  // the brokers
  if (!md.ok()) co_return md.status();
  TransactionListings out;
  for (const BrokerInfo& b : md->brokers) {
    const int32_t node = b.node_id;
    auto listed = co_await ask_broker<std::vector<TransactionListing>>(
        node,
        [&filter, node](BrokerConnection& c) { return list_transactions_of(c, node, filter); });
    if (!listed.ok()) {
      out.errors.push_back(listed.status());
      continue;
    }
    for (TransactionListing& t : listed.value()) out.transactions.push_back(std::move(t));
  }
  std::sort(out.transactions.begin(), out.transactions.end(),
            [](const auto& a, const auto& b) { return a.transactional_id < b.transactional_id; });
  co_return out;
}

asio::awaitable<Result<std::vector<TransactionDescription>>> Client::describe_transactions(
    std::vector<std::string> ids) {
  std::vector<TransactionDescription> results(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) results[i].transactional_id = ids[i];
  auto send_group = [](BrokerConnection& conn, const Coordinator& c,
                       const std::vector<size_t>& indexes,
                       std::vector<TransactionDescription>& out) -> asio::awaitable<Status> {
    protocol::DescribeTransactionsRequest req;
    for (size_t i : indexes) req.transactional_ids.push_back(out[i].transactional_id);
    auto reply = co_await conn.send(req);
    if (!reply.ok()) co_return reply.status();
    for (size_t i : indexes) {
      TransactionDescription& d = out[i];
      d.status = Status(ErrorCode::UNKNOWN_SERVER_ERROR,
                        fmt::format("the DescribeTransactions response from {} has no answer "
                                    "for transactional id {}",
                                    conn.address(), d.transactional_id));
      for (const auto& t : reply->body.transaction_states) {
        if (t.transactional_id != d.transactional_id) continue;
        d.status =
            status_from(t.error_code, std::nullopt, "transactional id " + d.transactional_id);
        d.state = t.transaction_state;
        d.timeout_ms = t.transaction_timeout_ms;
        d.start_time_ms = t.transaction_start_time_ms;
        d.producer_id = t.producer_id;
        d.producer_epoch = t.producer_epoch;
        d.coordinator = c;
        d.partitions.clear();
        for (const auto& topic : t.topics) {
          for (int32_t p : topic.partitions) d.partitions.push_back({topic.topic, p});
        }
        std::sort(d.partitions.begin(), d.partitions.end());
      }
    }
    co_return Status::OK();
  };
  if (Status s =
          co_await route_to_coordinators(ids, results, send_group, CoordinatorType::transaction);
      !s.ok()) {
    co_return s;
  }
  co_return results;
}

asio::awaitable<Result<std::vector<PartitionProducers>>> Client::describe_producers(
    std::vector<TopicPartition> partitions, std::optional<int32_t> broker_id) {
  std::vector<PartitionProducers> items;
  for (const TopicPartition& tp : partitions) items.push_back({tp, Status::OK(), {}});
  if (broker_id) {
    // One broker, leader or not: nothing to route.
    auto answered = co_await ask_broker<bool>(
        *broker_id, [&items](BrokerConnection& c) { return describe_all_producers_on(c, items); });
    if (!answered.ok()) co_return answered.status();
    co_return items;
  }
  co_return co_await route<PartitionProducers>(items, describe_producers_on);
}

asio::awaitable<Status> Client::abort_transaction(AbortTransactionSpec spec) {
  std::vector<PartitionStatus> items{{spec.tp, Status::OK()}};
  auto send_group = [&spec](BrokerConnection& conn, const std::vector<size_t>&,
                            std::vector<PartitionStatus>& out) -> asio::awaitable<Status> {
    protocol::WriteTxnMarkersRequest req;
    auto& m = req.markers.emplace_back();
    m.producer_id = spec.producer_id;
    m.producer_epoch = spec.producer_epoch;
    m.transaction_result = false;  // abort
    m.coordinator_epoch = spec.coordinator_epoch;
    auto& t = m.topics.emplace_back();
    t.name = spec.tp.topic;
    t.partition_indexes.push_back(spec.tp.partition);
    auto reply = co_await conn.send(req);
    if (!reply.ok()) co_return reply.status();
    out[0].status = Status(ErrorCode::UNKNOWN_SERVER_ERROR,
                           fmt::format("the WriteTxnMarkers response from {} has no answer for {}",
                                       conn.address(), to_string(spec.tp)));
    for (const auto& mr : reply->body.markers) {
      for (const auto& tr : mr.topics) {
        for (const auto& p : tr.partitions) {
          if (tr.name == spec.tp.topic && p.partition_index == spec.tp.partition) {
            out[0].status =
                status_from(p.error_code, std::nullopt, "abort marker for " + to_string(spec.tp));
          }
        }
      }
    }
    co_return Status::OK();
  };
  auto results = co_await route<PartitionStatus>(items, send_group);
  if (!results.ok()) co_return results.status();
  co_return results->front().status;
}

}  // namespace mirra::client
