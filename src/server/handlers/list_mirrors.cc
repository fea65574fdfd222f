// ListMirrors (key 98, docs/mirroring-design.md §7): the mirrors of this cluster with their source,
// and optionally their topics. With TopicNames only the mirrors holding one of those topics are
// listed: a destination asks its source this before a failback, to find a loop (§4). The rules
// are MirrorManager::list()'s; this handler only puts its answer on the wire.
#include "protocol/messages/list_mirrors.h"

#include "mirror/mirror_manager.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_list_mirrors(RequestContext& ctx) {
  auto req = decode_body<protocol::ListMirrorsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  if (auto refused =
          refuse_unless_on_cluster<protocol::ListMirrorsResponse>(ctx, AclOperation::describe)) {
    co_return respond(ctx, *refused);
  }
  protocol::ListMirrorsResponse resp;
  for (const mirror::ListedMirror& m :
       ctx.broker->mirror_manager->list(req->include_topics, req->topic_names)) {
    auto& out = resp.mirrors.emplace_back();
    out.name = m.name;
    out.source_bootstrap_servers = m.source_bootstrap_servers;
    out.topic_count = m.topic_count;
    out.source_cluster_id = m.source_cluster_id;
    for (const mirror::ListedTopic& t : m.topics) {
      auto& topic = out.topics.emplace_back();
      topic.name = t.name;
      topic.topic_id = t.topic_id;
      topic.state = t.state;
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
