// CreateAcls (key 30): advertised as Kafka does; while the broker has no authorizer every
// creation is refused with SECURITY_DISABLED, one result per creation in request order
// (docs/protocol.md).
#include "protocol/messages/create_acls.h"

#include "server/handlers/acl_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_create_acls(RequestContext& ctx) {
  auto req = decode_body<protocol::CreateAclsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::CreateAclsResponse resp;
  resp.results.resize(req->creations.size());
  for (auto& r : resp.results) refuse_without_authorizer(r);
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
