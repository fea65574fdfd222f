// RemoveTopicsFromMirror (key 96, docs/mirroring-design.md §5): the failover. Each partition stops
// being fetched, is truncated to its local LSO, records that as its LMO and becomes writable.
#include "protocol/messages/remove_topics_from_mirror.h"

#include "mirror/mirror_manager.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_remove_topics_from_mirror(RequestContext& ctx) {
  auto req = decode_body<protocol::RemoveTopicsFromMirrorRequest>(ctx);
  if (!req.ok()) co_return req.status();
  if (auto refused = refuse_unless_on_cluster<protocol::RemoveTopicsFromMirrorResponse>(
          ctx, AclOperation::cluster_action)) {
    co_return respond(ctx, *refused);
  }
  auto stopped = co_await ctx.broker->mirror_manager->failover(req->mirror_name, req->topic_names,
                                                               req->topic_patterns);
  protocol::RemoveTopicsFromMirrorResponse resp;
  if (!stopped.ok()) {
    resp.error_code = error_number(stopped.status().code());
    resp.error_message = stopped.status().message();
    co_return respond(ctx, resp);
  }
  for (const mirror::StoppedTopic& t : stopped.value()) {
    auto& out = resp.topics.emplace_back();
    out.name = t.name;
    out.topic_id = t.id;
    out.error_code = error_number(t.status.code());
    if (!t.status.ok()) out.error_message = t.status.message();
    for (const mirror::PartitionStop& stop : t.partitions) {
      auto& p = out.partitions.emplace_back();
      p.partition_index = stop.partition;
      p.last_mirrored_offset = stop.last_mirrored_offset;
      p.discarded_records = stop.discarded;
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
