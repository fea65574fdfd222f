// LastMirroredOffsets (key 105, docs/mirroring-design.md §6): a cluster failing back asks its new
// source (this broker) for the LMO this broker's failovers recorded for the requester's partitions:
// those of mirrors whose source is the requesting cluster. -1 where there is none.
#include "protocol/messages/last_mirrored_offsets.h"

#include "mirror/mirror_manager.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_last_mirrored_offsets(RequestContext& ctx) {
  auto req = decode_body<protocol::LastMirroredOffsetsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  const mirror::MirrorStateStore& states = ctx.broker->mirror_manager->states();
  protocol::LastMirroredOffsetsResponse resp;
  for (const auto& t : req->topics) {
    auto& tout = resp.topics.emplace_back();
    tout.topic_id = t.topic_id;
    for (int32_t p : t.partitions) {
      auto& pout = tout.partitions.emplace_back();
      pout.partition_index = p;
      const mirror::MirrorStateValue* v = states.get({t.topic_id, p});
      if (v != nullptr && v->source_cluster_id == req->source_cluster_id &&
          static_cast<mirror::MirrorState>(v->state) == mirror::MirrorState::stopped) {
        pout.last_mirrored_offset = v->last_mirrored_offset;
      }
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
