// CreateAcls (key 30). Without an authorizer every creation is refused with SECURITY_DISABLED
// (docs/protocol.md). With one: ALTER on the cluster (else CLUSTER_AUTHORIZATION_FAILED for
// every creation); each creation is validated on its own (INVALID_REQUEST with a message), and
// all valid ones go into the metadata log as one change. An ACL that exists already is not
// written again and still succeeds, as in Kafka. One result per creation, in request order.
#include "protocol/messages/create_acls.h"
#include "cluster/acls.h"
#include "cluster/metadata_store.h"
#include "server/handlers/acl_util.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

security::AclBinding binding_of(const protocol::CreateAclsRequest::AclCreation& c) {
  return security::binding_from_codes(c.resource_type, c.resource_name, c.resource_pattern_type,
                                      c.principal, c.host, c.operation, c.permission_type);
}

}  // namespace

asio::awaitable<HandlerResult> handle_create_acls(RequestContext& ctx) {
  auto req = decode_body<protocol::CreateAclsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::CreateAclsResponse resp;
  resp.results.resize(req->creations.size());
  for (auto& r : resp.results) r.error_message.reset();  // null on success, as Kafka sends it
  if (ctx.broker->authorizer == nullptr) {
    for (auto& r : resp.results) refuse_without_authorizer(r);
    co_return respond(ctx, resp);
  }
  if (!authorized(ctx, security::AclOperation::alter, security::ResourceType::cluster,
                  security::kClusterResourceName)) {
    for (auto& r : resp.results) refuse_unauthorized(r);
    co_return respond(ctx, resp);
  }
  std::vector<security::AclBinding> valid;
  std::vector<size_t> valid_index;
  for (size_t i = 0; i < req->creations.size(); ++i) {
    security::AclBinding b = binding_of(req->creations[i]);
    if (Status s = security::validate_for_creation(b); !s.ok()) {
      resp.results[i].error_code = error_number(s.code());
      resp.results[i].error_message = s.message();
      continue;
    }
    valid.push_back(std::move(b));
    valid_index.push_back(i);
  }
  if (!valid.empty()) {
    auto build =
        [&valid](
            const metadata::MetadataImage& image) -> Result<std::vector<metadata::MetadataRecord>> {
      return cluster::new_acl_records(image, valid);
    };
    Status s = co_await ctx.broker->metadata->change(build);
    sync_authorizer(*ctx.broker);
    if (!s.ok()) {
      for (size_t i : valid_index) {
        resp.results[i].error_code = error_number(s.code());
        resp.results[i].error_message = s.message();
      }
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
