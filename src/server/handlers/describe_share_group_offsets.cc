// DescribeShareGroupOffsets (key 90, KIP-932): each share group's start offsets (server/
// share_admin.h), with the lag from v1. DESCRIBE on the group; a topic the caller may not
// DESCRIBE is answered TOPIC_AUTHORIZATION_FAILED, and left out when every topic is asked for.
#include "protocol/messages/describe_share_group_offsets.h"

#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"
#include "server/share_admin.h"

namespace mirra::server {
namespace {

using Req = protocol::DescribeShareGroupOffsetsRequest;
using Resp = protocol::DescribeShareGroupOffsetsResponse;
using GroupOut = Resp::DescribeShareGroupOffsetsResponseGroup;

// The asked topics the caller may describe, by name; the others answered at once.
std::map<std::string, std::vector<int32_t>> visible_topics(
    RequestContext& ctx, const std::vector<Req::DescribeShareGroupOffsetsRequestTopic>& topics,
    GroupOut& out) {
  std::map<std::string, std::vector<int32_t>> asked;
  for (const auto& t : topics) {
    if (authorized(ctx, AclOperation::describe, ResourceType::topic, t.topic_name)) {
      auto& ps = asked[t.topic_name];
      ps.insert(ps.end(), t.partitions.begin(), t.partitions.end());
      continue;
    }
    auto& refused = out.topics.emplace_back();
    refused.topic_name = t.topic_name;
    for (int32_t p : t.partitions) {
      auto& po = refused.partitions.emplace_back();
      po.partition_index = p;
      po.start_offset = -1;
      po.leader_epoch = -1;
      po.error_code = error_number(ErrorCode::TOPIC_AUTHORIZATION_FAILED);
      po.error_message = topic_authorization_failed(t.topic_name).message();
    }
  }
  return asked;
}

void add_rows(RequestContext& ctx, bool all_topics, const std::vector<ShareOffsetRow>& rows,
              GroupOut& out) {
  for (const ShareOffsetRow& r : rows) {
    if (all_topics && !authorized(ctx, AclOperation::describe, ResourceType::topic, r.topic)) {
      continue;
    }
    if (out.topics.empty() || out.topics.back().topic_name != r.topic) {
      auto& t = out.topics.emplace_back();
      t.topic_name = r.topic;
      t.topic_id = r.topic_id;
    }
    auto& p = out.topics.back().partitions.emplace_back();
    p.partition_index = r.partition;
    p.start_offset = r.start_offset;
    p.leader_epoch = r.leader_epoch;
    p.lag = r.lag;
    p.error_code = error_number(r.error);
    if (r.error != ErrorCode::NONE) p.error_message = std::string(error_message(r.error));
  }
}

GroupOut describe_group(RequestContext& ctx, const Req::DescribeShareGroupOffsetsRequestGroup& g) {
  GroupOut out;
  out.group_id = g.group_id;
  if (!authorized(ctx, AclOperation::describe, ResourceType::group, g.group_id)) {
    out.error_code = error_number(ErrorCode::GROUP_AUTHORIZATION_FAILED);
    out.error_message = group_authorization_failed(g.group_id).message();
    return out;
  }
  std::optional<std::map<std::string, std::vector<int32_t>>> asked;
  if (g.topics) asked = visible_topics(ctx, *g.topics, out);
  auto rows = describe_share_offsets(*ctx.broker, g.group_id, asked);
  if (!rows.ok()) {
    out.topics.clear();
    out.error_code = error_number(rows.status().code());
    out.error_message = rows.status().message();
    return out;
  }
  add_rows(ctx, !g.topics, rows.value(), out);
  return out;
}

}  // namespace

asio::awaitable<HandlerResult> handle_describe_share_group_offsets(RequestContext& ctx) {
  auto req = decode_body<Req>(ctx);
  if (!req.ok()) co_return req.status();
  Resp resp;
  for (const auto& g : req->groups) resp.groups.push_back(describe_group(ctx, g));
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
