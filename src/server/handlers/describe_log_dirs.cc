// DescribeLogDirs (key 35, v1-4): the broker's one log directory with the size of each
// partition it holds (all topics for a null list, else the topics and partitions named), no
// offset lag and no future replicas (a single node has no reassignments), and from v4 the
// file system's total and usable bytes. A directory taken offline by a device error
// (cluster/log_dir_health.h) is answered KAFKA_STORAGE_ERROR with no logs.
#include "protocol/messages/describe_log_dirs.h"

#include <filesystem>

#include "cluster/partition_manager.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::DescribeLogDirsRequest;
using protocol::DescribeLogDirsResponse;

std::optional<std::vector<TopicSelection>> selection(const DescribeLogDirsRequest& req) {
  if (!req.topics) return std::nullopt;
  std::vector<TopicSelection> out;
  for (const auto& t : *req.topics) out.push_back({t.topic, t.partitions});
  return out;
}

void fill_space(const std::string& dir, DescribeLogDirsResponse::DescribeLogDirsResult& out) {
  const cluster::DiskSpace space = cluster::disk_space(dir);  // -1/-1: unknown
  out.total_bytes = space.total_bytes;
  out.usable_bytes = space.usable_bytes;
}

}  // namespace

asio::awaitable<HandlerResult> handle_describe_log_dirs(RequestContext& ctx) {
  auto req = decode_body<DescribeLogDirsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  // Before v3 the answer has no error field: an unauthorized caller gets no directories.
  if (auto refused =
          refuse_unless_on_cluster<DescribeLogDirsResponse>(ctx, AclOperation::describe)) {
    co_return respond(ctx, *refused);
  }
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::absolute(ctx.broker->log_dir, ec);
  DescribeLogDirsResponse resp;
  auto& result = resp.results.emplace_back();
  result.log_dir = ec ? ctx.broker->log_dir : dir.lexically_normal().string();
  // An offline directory is reported as Kafka reports one: its error, no logs, no sizes.
  if (ctx.broker->partitions->log_dir_health().offline()) {
    result.error_code = error_number(ErrorCode::KAFKA_STORAGE_ERROR);
    co_return respond(ctx, resp);
  }
  for (const TopicPartitions& tp : select_partitions(ctx, selection(req.value()))) {
    DescribeLogDirsResponse::DescribeLogDirsTopic topic;
    topic.name = tp.topic;
    for (const auto& part : tp.partitions) {
      // An offline partition has no size to report: it is left out, as Kafka leaves out the
      // logs of an offline directory.
      auto size = co_await ctx.broker->partitions->run(
          part,
          [](const storage::PartitionLog& log) -> Result<int64_t> { return log.size_bytes(); });
      if (!size.ok()) continue;
      topic.partitions.push_back({part->index, size.value(), 0, false, {}});
    }
    if (!topic.partitions.empty()) result.topics.push_back(std::move(topic));
  }
  fill_space(result.log_dir, result);
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
