// OffsetFetch (key 9): committed offsets of one group (v1-7) or several (v8+); all of a
// group's when no topics are named (v2+). Offsets never committed are -1. With require_stable
// (v7+), an offset a transaction still holds is UNSTABLE_OFFSET_COMMIT, retried by the client.
#include "protocol/messages/offset_fetch.h"

#include "groups/group_coordinator.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::OffsetFetchRequest;
using protocol::OffsetFetchResponse;

// The group's committed offsets as the caller may see them: DESCRIBE on the group, else
// GROUP_AUTHORIZATION_FAILED; topics it may not DESCRIBE are left out of "all topics" and
// answered TOPIC_AUTHORIZATION_FAILED when named (docs/security.md).
template <typename Topics>
OffsetFetchResponse::OffsetFetchResponseGroup fetch_authorized(RequestContext& ctx,
                                                               const std::string& group_id,
                                                               const Topics& topics,
                                                               bool require_stable) {
  if (!authorized(ctx, AclOperation::describe, ResourceType::group, group_id)) {
    auto refused = ctx.broker->groups->fetch_offsets("", std::nullopt);  // for the layout only
    refused.group_id = group_id;
    refused.topics.clear();
    refused.error_code = error_number(ErrorCode::GROUP_AUTHORIZATION_FAILED);
    return refused;
  }
  auto group = ctx.broker->groups->fetch_offsets(group_id, topics, require_stable);
  std::erase_if(group.topics, [&](auto& t) {
    if (authorized(ctx, AclOperation::describe, ResourceType::topic, t.name)) return false;
    if (!topics) return true;
    for (auto& p : t.partitions) {
      p.committed_offset = -1;
      p.error_code = error_number(ErrorCode::TOPIC_AUTHORIZATION_FAILED);
    }
    return false;
  });
  return group;
}

// v1-7: one group, answered in the pre-v8 layout (a v1 response has no group-level error, so
// it goes to every partition).
OffsetFetchResponse single_group(RequestContext& ctx, const OffsetFetchRequest& req) {
  std::optional<std::vector<OffsetFetchRequest::OffsetFetchRequestTopics>> topics;
  if (req.topics) {
    topics.emplace();
    for (const auto& t : *req.topics) topics->push_back({t.name, t.partition_indexes, {}});
  }
  auto group = fetch_authorized(ctx, req.group_id, topics, req.require_stable);
  OffsetFetchResponse resp;
  resp.error_code = group.error_code;
  if (group.error_code != 0 && req.topics) {
    group = ctx.broker->groups->fetch_offsets("", std::nullopt);  // for the layout only
    group.topics.clear();
    for (const auto& t : *req.topics) {
      auto& out = group.topics.emplace_back();
      out.name = t.name;
      for (int32_t p : t.partition_indexes) {
        auto& po = out.partitions.emplace_back();
        po.partition_index = p;
        po.committed_offset = -1;
        po.metadata = "";
        po.error_code = resp.error_code;
      }
    }
  }
  for (const auto& t : group.topics) {
    auto& out = resp.topics.emplace_back();
    out.name = t.name;
    for (const auto& p : t.partitions) {
      out.partitions.push_back({p.partition_index,
                                p.committed_offset,
                                p.committed_leader_epoch,
                                p.metadata,
                                p.error_code,
                                {}});
    }
  }
  return resp;
}

}  // namespace

asio::awaitable<HandlerResult> handle_offset_fetch(RequestContext& ctx) {
  auto req = decode_body<OffsetFetchRequest>(ctx);
  if (!req.ok()) co_return req.status();
  if (ctx.api_version < 8) co_return respond(ctx, single_group(ctx, req.value()));
  OffsetFetchResponse resp;
  for (const auto& g : req->groups) {
    resp.groups.push_back(fetch_authorized(ctx, g.group_id, g.topics, req->require_stable));
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
