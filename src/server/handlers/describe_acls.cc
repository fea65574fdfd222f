// DescribeAcls (key 29): advertised as Kafka does, answered SECURITY_DISABLED while the broker
// has no authorizer (docs/protocol.md). The security issue gives it an authorizer to ask.
#include "protocol/messages/describe_acls.h"

#include "server/handlers/acl_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_describe_acls(RequestContext& ctx) {
  auto req = decode_body<protocol::DescribeAclsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::DescribeAclsResponse resp;
  refuse_without_authorizer(resp);
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
