// DescribeProducers (key 61): the producers a partition's log knows (producer state), with
// the first offset of each one's open transaction, as kafka-transactions.sh shows them to
// find hanging transactions.
#include "protocol/messages/describe_producers.h"

#include "cluster/partition_manager.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::DescribeProducersResponse;
using ProducerState = DescribeProducersResponse::ProducerState;

std::vector<ProducerState> active_producers(const storage::PartitionLog& log) {
  std::vector<ProducerState> out;
  for (const auto& [id, e] : log.producer_state().producers()) {
    ProducerState s;
    s.producer_id = id;
    s.producer_epoch = e.epoch;
    s.last_sequence = e.batches.empty() ? -1 : e.batches.back().last_seq;
    s.last_timestamp = e.last_timestamp;
    s.coordinator_epoch = e.coordinator_epoch;
    s.current_txn_start_offset = e.current_txn_first_offset.value_or(-1);
    out.push_back(s);
  }
  return out;
}

}  // namespace

asio::awaitable<HandlerResult> handle_describe_producers(RequestContext& ctx) {
  auto req = decode_body<protocol::DescribeProducersRequest>(ctx);
  if (!req.ok()) co_return req.status();
  DescribeProducersResponse resp;
  for (const auto& t : req->topics) {
    auto& tout = resp.topics.emplace_back();
    tout.name = t.name;
    const bool allowed = authorized(ctx, AclOperation::read, ResourceType::topic, t.name);
    for (int32_t index : t.partition_indexes) {
      auto& pout = tout.partitions.emplace_back();
      pout.partition_index = index;
      if (!allowed) {
        pout.error_code = error_number(ErrorCode::TOPIC_AUTHORIZATION_FAILED);
        continue;
      }
      PartitionLookup found = find_partition(ctx, t.name, index);
      if (found.error != ErrorCode::NONE) {
        pout.error_code = error_number(found.error);
        continue;
      }
      auto producers = co_await ctx.broker->partitions->run(
          found.partition,
          [](const storage::PartitionLog& log) -> Result<std::vector<ProducerState>> {
            return active_producers(log);
          });
      if (!producers.ok()) {
        pout.error_code = error_number(producers.status().code());
        pout.error_message = producers.status().message();
        continue;
      }
      pout.active_producers = std::move(producers.value());
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
