// DeleteRecords (key 21): raises each partition's log start offset to the requested offset
// (-1: the high watermark); segments wholly below it go. The answer is the new low watermark.
// Above the high watermark, or a negative offset other than -1, is OFFSET_OUT_OF_RANGE; a
// compact-only topic refuses with POLICY_VIOLATION, as Kafka does.
#include "protocol/messages/delete_records.h"

#include <fmt/format.h>

#include "base/log.h"
#include "cluster/partition_manager.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

constexpr std::string_view kMirraLogComponent = "delete-records";

using protocol::DeleteRecordsRequest;
using protocol::DeleteRecordsResponse;

constexpr int64_t kHighWatermark = -1;

// On the partition's shard: the new log start offset.
Result<int64_t> delete_below(storage::PartitionLog& log, int64_t requested) {
  if (!log.config().cleanup_delete) {
    return Status(ErrorCode::POLICY_VIOLATION,
                  "records cannot be deleted: the topic's cleanup.policy has no \"delete\"");
  }
  const int64_t hw = log.high_watermark();
  const int64_t offset = requested == kHighWatermark ? hw : requested;
  if (offset < 0 || offset > hw) {
    return Status(ErrorCode::OFFSET_OUT_OF_RANGE,
                  fmt::format("offset {} is outside [0, high watermark {}]", offset, hw));
  }
  if (Status s = log.advance_log_start(offset); !s.ok()) return s;
  return log.log_start_offset();
}

}  // namespace

asio::awaitable<HandlerResult> handle_delete_records(RequestContext& ctx) {
  auto req = decode_body<DeleteRecordsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  DeleteRecordsResponse resp;
  for (const auto& t : req->topics) {
    auto& tr = resp.topics.emplace_back();
    tr.name = t.name;
    const bool allowed = authorized(ctx, AclOperation::del, ResourceType::topic, t.name);
    for (const auto& p : t.partitions) {
      auto& pr = tr.partitions.emplace_back();
      pr.partition_index = p.partition_index;
      pr.low_watermark = -1;
      if (!allowed) {
        pr.error_code = error_number(ErrorCode::TOPIC_AUTHORIZATION_FAILED);
        continue;
      }
      PartitionLookup found = find_partition(ctx, t.name, p.partition_index);
      if (found.error != ErrorCode::NONE) {
        pr.error_code = error_number(found.error);
        continue;
      }
      // A mirror topic's log start follows its source (docs/mirroring-design.md §4): the
      // manager refuses it with READ_ONLY_TOPIC (cluster/log_writer.h).
      const int64_t requested = p.offset;
      auto start = co_await ctx.broker->partitions->run_write(
          found.partition, cluster::LogWriter::client(),
          [requested](storage::PartitionLog& log) { return delete_below(log, requested); });
      if (!start.ok()) {
        pr.error_code = error_number(start.status().code());
        MIRRA_LOG_INFO("{}-{}: records not deleted: {}", t.name, p.partition_index,
                       start.status().message());
        continue;
      }
      pr.low_watermark = start.value();
      MIRRA_LOG_INFO("{}-{}: log start offset now {} (DeleteRecords to {})", t.name,
                     p.partition_index, start.value(), requested);
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
