// LastMirroredOffsets (key 105, docs/mirroring-design.md §6): a cluster failing back asks its new
// source (this broker) for the LMO this broker's failovers recorded for the requester's partitions:
// those of mirrors whose source is the requesting cluster. -1 where there is none. The rule is
// MirrorManager::last_mirrored_offsets()'s; this handler only translates.
#include "protocol/messages/last_mirrored_offsets.h"

#include "mirror/mirror_manager.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_last_mirrored_offsets(RequestContext& ctx) {
  auto req = decode_body<protocol::LastMirroredOffsetsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  if (auto refused = refuse_unless_on_cluster<protocol::LastMirroredOffsetsResponse>(
          ctx, AclOperation::describe)) {
    co_return respond(ctx, *refused);
  }
  std::vector<mirror::PartitionsOfTopic> asked;
  for (const auto& t : req->topics) asked.push_back({t.topic_id, t.partitions});
  protocol::LastMirroredOffsetsResponse resp;
  for (const mirror::TopicLastMirroredOffsets& t :
       ctx.broker->mirror_manager->last_mirrored_offsets(req->source_cluster_id, asked)) {
    auto& tout = resp.topics.emplace_back();
    tout.topic_id = t.topic_id;
    for (const auto& [partition, lmo] : t.offsets) {
      auto& pout = tout.partitions.emplace_back();
      pout.partition_index = partition;
      pout.last_mirrored_offset = lmo;
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
