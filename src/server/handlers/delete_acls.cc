// DeleteAcls (key 31): advertised as Kafka does; while the broker has no authorizer every
// filter is answered SECURITY_DISABLED with no matching ACLs, one result per filter in request
// order (docs/protocol.md).
#include "protocol/messages/delete_acls.h"

#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_delete_acls(RequestContext& ctx) {
  auto req = decode_body<protocol::DeleteAclsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::DeleteAclsResponse resp;
  for (size_t i = 0; i < req->filters.size(); ++i) {
    protocol::DeleteAclsResponse::DeleteAclsFilterResult& r = resp.filter_results.emplace_back();
    r.error_code = static_cast<int16_t>(ErrorCode::SECURITY_DISABLED);
    r.error_message = std::string(kNoAuthorizerMessage);
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
