// AddTopicsToMirror (key 95, docs/mirroring-design.md §1, §4, §7): start mirroring source topics
// (names and regular expressions) into topics with the same name, id, partition count and configs.
#include "protocol/messages/add_topics_to_mirror.h"

#include "mirror/mirror_manager.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_add_topics_to_mirror(RequestContext& ctx) {
  auto req = decode_body<protocol::AddTopicsToMirrorRequest>(ctx);
  if (!req.ok()) co_return req.status();
  if (auto refused = refuse_unless_on_cluster<protocol::AddTopicsToMirrorResponse>(
          ctx, AclOperation::cluster_action)) {
    co_return respond(ctx, *refused);
  }
  auto added = co_await ctx.broker->mirror_manager->add_topics(req->mirror_name, req->topic_names,
                                                               req->topic_patterns);
  protocol::AddTopicsToMirrorResponse resp;
  if (!added.ok()) {
    resp.error_code = error_number(added.status().code());
    resp.error_message = added.status().message();
    co_return respond(ctx, resp);
  }
  for (const mirror::AddedTopic& t : added.value()) {
    auto& out = resp.topics.emplace_back();
    out.name = t.name;
    out.topic_id = t.id;
    out.error_code = error_number(t.status.code());
    if (!t.status.ok()) out.error_message = t.status.message();
    for (const mirror::PartitionRestart& r : t.restarts) {
      auto& p = out.partitions.emplace_back();
      p.partition_index = r.partition;
      p.truncated_to_offset = r.truncated_to;
      p.discarded_records = r.discarded;
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
