// CreateMirror (key 94, docs/mirroring-design.md §7): the destination learns a source cluster under
// a name. The configs are checked and stored (mirror/mirror_admin.h); secrets are never echoed, not
// even in an error message.
#include "protocol/messages/create_mirror.h"

#include "mirror/mirror_admin.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_create_mirror(RequestContext& ctx) {
  auto req = decode_body<protocol::CreateMirrorRequest>(ctx);
  if (!req.ok()) co_return req.status();
  if (auto refused = refuse_unless_on_cluster<protocol::CreateMirrorResponse>(
          ctx, AclOperation::cluster_action)) {
    co_return respond(ctx, *refused);
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> configs;
  for (const auto& c : req->configs) configs.emplace_back(c.name, c.value);
  Status s = co_await ctx.broker->mirrors->create(req->mirror_name, configs, req->validate_only);
  protocol::CreateMirrorResponse resp;
  resp.error_code = error_number(s.code());
  if (!s.ok()) resp.error_message = s.message();
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
