// DescribeAcls (key 29). Without an authorizer: SECURITY_DISABLED (docs/protocol.md). With one:
// DESCRIBE on the cluster (else CLUSTER_AUTHORIZATION_FAILED), INVALID_REQUEST for a filter with
// unknown values, else the matching ACLs grouped by resource pattern (sorted by type, name and
// pattern type; each group's ACLs sorted too, so answers are stable).
#include <map>
#include <set>
#include <tuple>

#include "cluster/acls.h"
#include "cluster/metadata_store.h"
#include "protocol/messages/describe_acls.h"
#include "server/handlers/acl_util.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_describe_acls(RequestContext& ctx) {
  auto req = decode_body<protocol::DescribeAclsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::DescribeAclsResponse resp;
  resp.error_message.reset();  // null on success, as Kafka sends it
  if (ctx.broker->authorizer == nullptr) {
    refuse_without_authorizer(resp);
    co_return respond(ctx, resp);
  }
  if (!authorized(ctx, security::AclOperation::describe, security::ResourceType::cluster,
                  security::kClusterResourceName)) {
    refuse_unauthorized(resp);
    co_return respond(ctx, resp);
  }
  const security::AclBindingFilter filter = acl_filter(req.value());
  if (Status s = security::validate_filter(filter); !s.ok()) {
    resp.error_code = error_number(s.code());
    resp.error_message = s.message();
    co_return respond(ctx, resp);
  }
  using Pattern = std::tuple<security::ResourceType, std::string, security::PatternType>;
  std::map<Pattern, std::set<security::AclBinding>> groups;
  for (const auto& [id, r] : ctx.broker->metadata->image().acls()) {
    security::AclBinding b = cluster::acl_binding(r);
    if (!filter.matches(b)) continue;
    Pattern p{b.resource_type, b.resource_name, b.pattern_type};
    groups[p].insert(std::move(b));
  }
  for (const auto& [pattern, acls] : groups) {
    auto& res = resp.resources.emplace_back();
    res.resource_type = static_cast<int8_t>(std::get<0>(pattern));
    res.resource_name = std::get<1>(pattern);
    res.pattern_type = static_cast<int8_t>(std::get<2>(pattern));
    for (const security::AclBinding& b : acls) {
      auto& a = res.acls.emplace_back();
      a.principal = b.principal;
      a.host = b.host;
      a.operation = static_cast<int8_t>(b.operation);
      a.permission_type = static_cast<int8_t>(b.permission);
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
