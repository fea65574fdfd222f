// DeleteMirror (key 104, docs/mirroring-design.md §7): forgets a mirror whose topics are all
// STOPPED (failed over); they become ordinary topics.
#include "protocol/messages/delete_mirror.h"

#include "mirror/mirror_admin.h"
#include "mirror/mirror_manager.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_delete_mirror(RequestContext& ctx) {
  auto req = decode_body<protocol::DeleteMirrorRequest>(ctx);
  if (!req.ok()) co_return req.status();
  if (auto refused = refuse_unless_on_cluster<protocol::DeleteMirrorResponse>(
          ctx, AclOperation::cluster_action)) {
    co_return respond(ctx, *refused);
  }
  Status s =
      co_await ctx.broker->mirrors->remove(req->mirror_name, ctx.broker->mirror_manager->states());
  protocol::DeleteMirrorResponse resp;
  resp.error_code = error_number(s.code());
  if (!s.ok()) resp.error_message = s.message();
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
