// ListMirrors (key 98, docs/mirroring-design.md §7): the mirrors of this cluster with their source,
// and optionally their topics. With TopicNames only the mirrors holding one of those topics are
// listed: a destination asks its source this before a failback, to find a loop (§4).
#include "protocol/messages/list_mirrors.h"

#include <algorithm>

#include "cluster/metadata_store.h"
#include "mirror/mirror_admin.h"
#include "mirror/mirror_manager.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_list_mirrors(RequestContext& ctx) {
  auto req = decode_body<protocol::ListMirrorsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  const metadata::MetadataImage& image = ctx.broker->metadata->image();
  protocol::ListMirrorsResponse resp;
  for (const auto& [name, m] : image.mirrors()) {
    const auto topics = mirror::mirror_topics(image, name);
    if (req->topic_names) {
      const auto& wanted = *req->topic_names;
      const bool holds = std::any_of(topics.begin(), topics.end(), [&](const auto* t) {
        return std::find(wanted.begin(), wanted.end(), t->name) != wanted.end();
      });
      if (!holds) continue;
    }
    auto& out = resp.mirrors.emplace_back();
    out.name = name;
    auto bootstrap = m.configs.find("bootstrap.servers");
    out.source_bootstrap_servers = bootstrap == m.configs.end() ? "" : bootstrap->second;
    out.topic_count = static_cast<int32_t>(topics.size());
    out.source_cluster_id =
        mirror::recorded_source_cluster_id(ctx.broker->mirror_manager->states(), topics);
    if (!req->include_topics) continue;
    for (const metadata::TopicInfo* t : topics) {
      auto& topic = out.topics.emplace_back();
      topic.name = t->name;
      topic.topic_id = t->id;
      topic.state = mirror::topic_state(ctx.broker->mirror_manager->states(), *t);
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
