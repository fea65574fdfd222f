// DescribeTopicPartitions (key 75, KIP-966): topics by name (every topic for an empty list) in
// name order with their partitions, paginated: at most response_partition_limit partitions
// (capped at Kafka's max.request.partition.size.limit default, 2000) per response, continued
// from the request's cursor; next_cursor says where the next page starts.
#include "protocol/messages/describe_topic_partitions.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "cluster/metadata_store.h"
#include "cluster/topic_admin.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::DescribeTopicPartitionsRequest;
using protocol::DescribeTopicPartitionsResponse;
using ResponseTopic = DescribeTopicPartitionsResponse::DescribeTopicPartitionsResponseTopic;

constexpr int32_t kMaxPartitionsPerResponse = 2000;

DescribeTopicPartitionsResponse::Cursor cursor_at(const std::string& topic, int32_t partition) {
  DescribeTopicPartitionsResponse::Cursor c;
  c.topic_name = topic;
  c.partition_index = partition;
  return c;
}

ResponseTopic topic_error(const std::string& name, ErrorCode code) {
  ResponseTopic out;
  out.name = name;
  out.error_code = error_number(code);
  return out;
}

// A refused request: every topic it names carries the error, as Kafka's error response does.
DescribeTopicPartitionsResponse refuse(const DescribeTopicPartitionsRequest& req) {
  DescribeTopicPartitionsResponse resp;
  for (const auto& t : req.topics)
    resp.topics.push_back(topic_error(t.name, ErrorCode::INVALID_REQUEST));
  return resp;
}

void add_partitions(const RequestContext& ctx, const metadata::TopicInfo& topic, int32_t begin,
                    int32_t end, ResponseTopic& out) {
  for (int32_t i = begin; i < end; ++i) {
    const PartitionView v =
        view_partition(ctx, topic.name, topic.partitions[static_cast<size_t>(i)]);
    auto& p = out.partitions.emplace_back();
    p.error_code = error_number(v.error);
    p.partition_index = i;
    p.leader_id = v.leader;
    p.leader_epoch = v.leader_epoch;
    p.replica_nodes = v.replicas;
    p.isr_nodes = v.isr;
    p.eligible_leader_replicas = std::vector<int32_t>{};  // no ELR without elections
    p.last_known_elr = std::vector<int32_t>{};
    p.offline_replicas = v.offline;
  }
}

// The topics to describe, from the cursor's topic on: nullopt when the cursor is invalid.
std::optional<std::set<std::string>> topics_from_cursor(const RequestContext& ctx,
                                                        const DescribeTopicPartitionsRequest& req) {
  const std::string first = req.cursor ? req.cursor->topic_name : "";
  std::set<std::string> names;
  if (req.topics.empty()) {
    for (const auto& [name, topic] : ctx.broker->metadata->image().topics()) {
      if (name >= first) names.insert(name);
    }
  } else {
    for (const auto& t : req.topics) {
      if (t.name >= first) names.insert(t.name);
    }
    if (req.cursor && names.count(first) == 0) return std::nullopt;
  }
  if (req.cursor && req.cursor->partition_index < 0) return std::nullopt;
  return names;
}

}  // namespace

asio::awaitable<HandlerResult> handle_describe_topic_partitions(RequestContext& ctx) {
  auto req = decode_body<DescribeTopicPartitionsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  auto names = topics_from_cursor(ctx, req.value());
  if (!names) co_return respond(ctx, refuse(req.value()));
  const bool all_topics = req->topics.empty();
  int32_t remaining =
      std::max(1, std::min(kMaxPartitionsPerResponse, req->response_partition_limit));
  const auto& image = ctx.broker->metadata->image();
  DescribeTopicPartitionsResponse resp;
  for (const std::string& name : *names) {
    if (remaining == 0) {  // the page is full: the next one starts with this topic
      resp.next_cursor = cursor_at(name, 0);
      break;
    }
    // As Metadata: unauthorized topics are left out of "all", refused by name.
    if (!authorized(ctx, AclOperation::describe, ResourceType::topic, name)) {
      if (!all_topics)
        resp.topics.push_back(topic_error(name, ErrorCode::TOPIC_AUTHORIZATION_FAILED));
      continue;
    }
    const metadata::TopicInfo* topic = image.topic(name);
    if (topic == nullptr) {
      if (all_topics) continue;
      const bool valid = cluster::validate_topic_name(name).ok();
      resp.topics.push_back(topic_error(name, valid ? ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
                                                    : ErrorCode::INVALID_TOPIC_EXCEPTION));
      continue;
    }
    auto& out = resp.topics.emplace_back();
    out.name = name;
    out.topic_id = topic->id;
    out.is_internal = is_internal_topic(name);
    out.topic_authorized_operations =
        authorized_operations(ctx, ResourceType::topic, name, kAllTopicOperations);
    const int32_t count = static_cast<int32_t>(topic->partitions.size());
    const int32_t begin = std::min(
        count, req->cursor && req->cursor->topic_name == name ? req->cursor->partition_index : 0);
    const int32_t end = begin + std::min(count - begin, remaining);
    add_partitions(ctx, *topic, begin, end, out);
    if (end < count) {
      resp.next_cursor = cursor_at(name, end);
      break;
    }
    remaining -= end - begin;
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
