// Produce (key 0): appends each partition's record batches to its log through the partition's
// shard. Offsets are assigned in the request's own buffer (storage assigns them in place);
// acks=1 and acks=-1 are the same on a single node (durability follows the topic's flush
// settings); acks=0 gets no response, and an error closes the connection so the producer
// notices, as Kafka does.
#include "protocol/messages/produce.h"

#include <fmt/format.h>

#include "base/clock.h"
#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "server/broker_metrics.h"
#include "server/client_quotas.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::ProduceRequest;
using protocol::ProduceResponse;
using PartitionResponse = ProduceResponse::PartitionProduceResponse;

// Produce v0-v2 carry message formats 0/1, which Mirra does not store; they are still
// advertised because librdkafka enables compression only when Produce v0 is in range.
constexpr int16_t kMinAcceptedVersion = 3;

PartitionResponse partition_error(int32_t index, const Status& s) {
  PartitionResponse out;
  out.index = index;
  out.error_code = error_number(s.code());
  out.base_offset = -1;
  out.error_message = s.message();
  return out;
}

using AppendJob = std::shared_ptr<cluster::Pending<Result<storage::AppendResult>>>;

// One partition of the request: either answered at once (an error) or an append in flight.
struct Slot {
  PartitionResponse response;
  AppendJob job;
};

// Checks the partition and posts its append to the partition's shard; does not wait.
// `refused`: the authorization failure of this partition, if any (checked before existence, so
// an unauthorized client cannot tell which topics exist).
Slot start_append(RequestContext& ctx, int16_t acks, const std::string& topic,
                  const ProduceRequest::PartitionProduceData& pd, const Status& refused) {
  Slot slot;
  if (!refused.ok()) {
    slot.response = partition_error(pd.index, refused);
    return slot;
  }
  if (ctx.api_version < kMinAcceptedVersion) {
    slot.response = partition_error(
        pd.index, Status(ErrorCode::UNSUPPORTED_VERSION,
                         "Produce v0-v2 (message formats 0 and 1) are not supported"));
    return slot;
  }
  if (acks != 0 && acks != 1 && acks != -1) {
    slot.response =
        partition_error(pd.index, Status(ErrorCode::INVALID_REQUIRED_ACKS,
                                         fmt::format("acks={} (expected 0, 1 or -1)", acks)));
    return slot;
  }
  auto part = ctx.broker->partitions->find(topic, pd.index);
  if (part == nullptr) {
    slot.response =
        partition_error(pd.index, Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                                         fmt::format("{}-{} does not exist", topic, pd.index)));
    return slot;
  }
  if (!pd.records || pd.records->size == 0) {
    slot.response = partition_error(pd.index, Status(ErrorCode::INVALID_RECORD, "no record batch"));
    return slot;
  }
  std::span<uint8_t> records = ctx.writable(*pd.records);
  const int32_t epoch = part->leader_epoch;
  // A mirror topic refuses it there with READ_ONLY_TOPIC (cluster/log_writer.h).
  slot.job = ctx.broker->partitions->start_write(
      part, cluster::LogWriter::client(), [records, epoch](storage::PartitionLog& log) {
        return log.append_as_leader(records, epoch, storage::AppendOrigin::client, now_ms());
      });
  return slot;
}

PartitionResponse appended(int32_t index, const Result<storage::AppendResult>& r) {
  if (!r.ok()) return partition_error(index, r.status());
  PartitionResponse out;
  out.index = index;
  out.base_offset = r->first_offset;
  out.log_append_time_ms = r->log_append_time;
  out.log_start_offset = r->log_start_offset;
  return out;
}

}  // namespace

asio::awaitable<HandlerResult> handle_produce(RequestContext& ctx) {
  auto req = decode_body<ProduceRequest>(ctx);
  if (!req.ok()) co_return req.status();
  // Kafka's order: a transactional request needs WRITE on its transactional id (else every
  // partition fails), then each topic needs WRITE.
  Status txn_refused = Status::OK();
  if (req->transactional_id && !authorized(ctx, AclOperation::write, ResourceType::transactional_id,
                                           *req->transactional_id)) {
    txn_refused = transactional_id_authorization_failed(*req->transactional_id);
  }
  // Every append is posted before the first one is awaited (see PartitionManager::start).
  std::vector<std::vector<Slot>> slots;
  for (const auto& td : req->topic_data) {
    Status refused = txn_refused;
    if (refused.ok() && !authorized(ctx, AclOperation::write, ResourceType::topic, td.name)) {
      refused = topic_authorization_failed(td.name);
    }
    auto& topic_slots = slots.emplace_back();
    for (const auto& pd : td.partition_data) {
      topic_slots.push_back(start_append(ctx, req->acks, td.name, pd, refused));
    }
  }
  ProduceResponse resp;
  Status first_error = Status::OK();
  for (size_t t = 0; t < slots.size(); ++t) {
    const auto& td = req->topic_data[t];
    auto& tr = resp.responses.emplace_back();
    tr.name = td.name;
    for (size_t i = 0; i < slots[t].size(); ++i) {
      Slot& slot = slots[t][i];
      const int32_t index = td.partition_data[i].index;
      PartitionResponse pr = slot.response;
      if (slot.job) {
        auto result = co_await slot.job->wait();
        pr = appended(index, result);
        if (result.ok() && !result->duplicate && ctx.broker->metrics != nullptr) {
          ctx.broker->metrics->record_produced(
              td.name, static_cast<int64_t>(td.partition_data[i].records->size),
              result->last_offset - result->first_offset + 1);
        }
      }
      if (ctx.broker->metrics != nullptr) {
        ctx.broker->metrics->record_error(ctx.header.request_api_key, pr.error_code);
      }
      if (pr.error_code != 0 && first_error.ok()) {
        first_error =
            Status(static_cast<ErrorCode>(pr.error_code),
                   fmt::format("{}-{}: {}", td.name, index, pr.error_message.value_or("")));
      }
      tr.partition_responses.push_back(std::move(pr));
    }
  }
  // producer_byte_rate counts the whole request, as Kafka's does.
  if (ctx.broker->quotas != nullptr) {
    ctx.throttle_ms = ctx.broker->quotas->record_produce(ctx.quota_client(),
                                                         static_cast<int64_t>(ctx.frame.size()));
  }
  if (req->acks == 0) {
    if (!first_error.ok()) {
      co_return Status(first_error.code(), "acks=0 produce failed: " + first_error.message());
    }
    Response none;  // acks=0: no response, but a throttled producer is still muted
    none.throttle_ms = settle_throttle(ctx);
    co_return none;
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
