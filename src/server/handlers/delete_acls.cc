// DeleteAcls (key 31). Without an authorizer every filter is answered SECURITY_DISABLED with no
// matching ACLs (docs/protocol.md). With one: ALTER on the cluster (else
// CLUSTER_AUTHORIZATION_FAILED for every filter); a filter with unknown values gets
// INVALID_REQUEST; the others each list the ACLs they matched, which are removed together in one
// metadata change (an ACL two filters match is removed once and listed by both). One result
// per filter, in request order.
#include <set>

#include "cluster/acls.h"
#include "cluster/metadata_store.h"
#include "protocol/messages/delete_acls.h"
#include "server/handlers/acl_util.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using FilterResult = protocol::DeleteAclsResponse::DeleteAclsFilterResult;

void add_match(FilterResult& out, const security::AclBinding& b) {
  auto& m = out.matching_acls.emplace_back();
  m.error_message.reset();
  m.resource_type = static_cast<int8_t>(b.resource_type);
  m.resource_name = b.resource_name;
  m.pattern_type = static_cast<int8_t>(b.pattern_type);
  m.principal = b.principal;
  m.host = b.host;
  m.operation = static_cast<int8_t>(b.operation);
  m.permission_type = static_cast<int8_t>(b.permission);
}

}  // namespace

asio::awaitable<HandlerResult> handle_delete_acls(RequestContext& ctx) {
  auto req = decode_body<protocol::DeleteAclsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::DeleteAclsResponse resp;
  resp.filter_results.resize(req->filters.size());
  for (auto& r : resp.filter_results) r.error_message.reset();  // null on success, as Kafka
  if (ctx.broker->authorizer == nullptr) {
    for (auto& r : resp.filter_results) refuse_without_authorizer(r);
    co_return respond(ctx, resp);
  }
  if (!authorized(ctx, security::AclOperation::alter, security::ResourceType::cluster,
                  security::kClusterResourceName)) {
    for (auto& r : resp.filter_results) refuse_unauthorized(r);
    co_return respond(ctx, resp);
  }
  std::vector<security::AclBindingFilter> filters;
  for (size_t i = 0; i < req->filters.size(); ++i) {
    filters.push_back(acl_filter(req->filters[i]));
    if (Status s = security::validate_filter(filters.back()); !s.ok()) {
      resp.filter_results[i].error_code = error_number(s.code());
      resp.filter_results[i].error_message = s.message();
    }
  }
  // Matched inside the change, against the image it applies to: an ACL created or removed
  // meanwhile by another request is seen as it is then.
  auto build =
      [&](const metadata::MetadataImage& image) -> Result<std::vector<metadata::MetadataRecord>> {
    std::set<Uuid> removed;
    for (size_t i = 0; i < filters.size(); ++i) {
      FilterResult& out = resp.filter_results[i];
      out.matching_acls.clear();
      if (out.error_code != 0) continue;
      for (const auto& [id, r] : image.acls()) {
        security::AclBinding b = cluster::acl_binding(r);
        if (!filters[i].matches(b)) continue;
        add_match(out, b);
        removed.insert(id);
      }
    }
    std::vector<metadata::MetadataRecord> records;
    for (const Uuid& id : removed)
      records.emplace_back(metadata::RemoveAccessControlEntryRecord{id});
    return records;
  };
  Status s = co_await ctx.broker->metadata->change(build);
  sync_authorizer(*ctx.broker);
  if (!s.ok()) {
    for (auto& r : resp.filter_results) {
      if (r.error_code != 0) continue;
      r.error_code = error_number(s.code());
      r.error_message = s.message();
      r.matching_acls.clear();
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
