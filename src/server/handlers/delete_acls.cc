// DeleteAcls (key 31): advertised as Kafka does; while the broker has no authorizer every
// filter is answered SECURITY_DISABLED with no matching ACLs, one result per filter in request
// order (docs/protocol.md).
#include "protocol/messages/delete_acls.h"

#include "server/handlers/acl_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_delete_acls(RequestContext& ctx) {
  auto req = decode_body<protocol::DeleteAclsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::DeleteAclsResponse resp;
  resp.filter_results.resize(req->filters.size());
  for (auto& r : resp.filter_results) refuse_without_authorizer(r);
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
