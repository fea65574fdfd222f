// Authorization in the handlers: one question per check, asked of the broker's authorizer
// (security/acl.h) with the connection's principal and address. Without an authorizer
// (authorizer.class.name unset) everything is allowed, as in Kafka.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "metadata/image.h"
#include "security/acl.h"
#include "server/request_context.h"

namespace mirra::server {

using security::AclOperation;
using security::ResourceType;

// May the request's principal, from its host, do `op` on the resource? True without an
// authorizer.
bool authorized(RequestContext& ctx, security::AclOperation op, security::ResourceType type,
                std::string_view name);
// May it do `op` on some resource of the type (KIP-679's "WRITE on any topic")? True without an
// authorizer.
bool authorized_any(RequestContext& ctx, security::AclOperation op, security::ResourceType type);

// Brings the broker's authorizer (if any) up to date with the ACLs of the metadata image: a
// no-op while the image's ACLs are unchanged since the last call, so every check may call it.
void sync_authorizer(BrokerState& state);

// ---- What the handlers' checks share ----

inline bool authorized_on_cluster(RequestContext& ctx, AclOperation op) {
  return authorized(ctx, op, ResourceType::cluster, security::kClusterResourceName);
}
// The operations of `all` (AclOperation codes as bit positions, as Kafka's *_authorized_operations
// fields) the caller may do on the resource; `all` itself without an authorizer.
inline int32_t authorized_operations(RequestContext& ctx, ResourceType type, std::string_view name,
                                     int32_t all) {
  int32_t out = 0;
  for (int code = 0; code < 31; ++code) {
    if ((all & (1 << code)) == 0) continue;
    const auto op = static_cast<AclOperation>(code);
    if (authorized(ctx, op, type, name)) out |= 1 << code;
  }
  return out;
}
inline Status topic_authorization_failed(std::string_view topic) {
  return Status(ErrorCode::TOPIC_AUTHORIZATION_FAILED,
                fmt::format("not authorized to access topic {}", topic));
}
inline Status group_authorization_failed(std::string_view group) {
  return Status(ErrorCode::GROUP_AUTHORIZATION_FAILED,
                fmt::format("not authorized to access group {}", group));
}
inline Status cluster_authorization_failed(AclOperation op) {
  return Status(
      ErrorCode::CLUSTER_AUTHORIZATION_FAILED,
      fmt::format("not authorized for {} on the cluster", security::acl_operation_name(op)));
}
inline Status transactional_id_authorization_failed(std::string_view id) {
  return Status(ErrorCode::TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                fmt::format("not authorized to use transactional id {}", id));
}

// An answer refusing the whole request with CLUSTER_AUTHORIZATION_FAILED unless the caller may
// do `op` on the cluster; nullopt when it may. For the APIs that answer with one top-level
// error: the mirror APIs (docs/mirroring-design.md §9: changes need CLUSTER_ACTION, reading
// needs DESCRIBE), DescribeLogDirs, ...
template <typename Resp>
std::optional<Resp> refuse_unless_on_cluster(RequestContext& ctx, AclOperation op) {
  if (authorized_on_cluster(ctx, op)) return std::nullopt;
  Resp resp;
  resp.error_code = error_number(ErrorCode::CLUSTER_AUTHORIZATION_FAILED);
  if constexpr (requires { resp.error_message; }) {
    resp.error_message = cluster_authorization_failed(op).message();
  }
  return resp;
}

// A group request's answer refusing it with GROUP_AUTHORIZATION_FAILED at the top unless the
// caller may do `op` on the group; nullopt when it may (JoinGroup, SyncGroup, Heartbeat,
// LeaveGroup, OffsetDelete).
template <typename Resp>
std::optional<Resp> refuse_unless_on_group(RequestContext& ctx, AclOperation op,
                                           std::string_view group) {
  if (authorized(ctx, op, ResourceType::group, group)) return std::nullopt;
  Resp resp;
  resp.error_code = error_number(ErrorCode::GROUP_AUTHORIZATION_FAILED);
  return resp;
}

// Moves the topics of `req_topics` that `keep` rejects out of the request and answers each of
// their partitions with `code` in `refused`: the rest of the request goes on without them, as
// in Kafka (OffsetCommit, OffsetDelete, ...).
template <typename ReqTopics, typename RespTopics, typename Keep>
void move_topics_out(ReqTopics& req_topics, RespTopics& refused, ErrorCode code, Keep keep) {
  ReqTopics kept;
  for (auto& t : req_topics) {
    if (keep(t.name)) {
      kept.push_back(std::move(t));
      continue;
    }
    auto& out = refused.emplace_back();
    out.name = t.name;
    for (const auto& p : t.partitions) {
      auto& po = out.partitions.emplace_back();
      po.partition_index = p.partition_index;
      po.error_code = error_number(code);
    }
  }
  req_topics = std::move(kept);
}

// move_topics_out() of the topics the caller may not do `op` on (TOPIC_AUTHORIZATION_FAILED).
template <typename ReqTopics, typename RespTopics>
void split_unauthorized_topics(RequestContext& ctx, AclOperation op, ReqTopics& req_topics,
                               RespTopics& refused) {
  move_topics_out(
      req_topics, refused, ErrorCode::TOPIC_AUTHORIZATION_FAILED,
      [&](const std::string& name) { return authorized(ctx, op, ResourceType::topic, name); });
}

}  // namespace mirra::server
