// DescribeMirrors (key 99, docs/mirroring-design.md §7, §12): per mirror and partition, the state,
// the source's log start and high watermark, the destination's log end, the lag in offsets and in
// time, the rates, the fetch round trip and the last error. The rules are the mirror module's
// (mirror/mirror_describe.h); this handler only puts its answer on the wire.
#include "protocol/messages/describe_mirrors.h"

#include "mirror/mirror_manager.h"
#include "server/handlers/authorize.h"
#include "server/handlers/describe_mirrors_sync.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::DescribeMirrorsResponse;

DescribeMirrorsResponse::DescribedPartition to_wire(const mirror::PartitionDescription& d) {
  DescribeMirrorsResponse::DescribedPartition out;
  out.partition_index = d.partition;
  out.state = d.state;
  out.previous_state = d.previous_state;
  out.source_log_start_offset = d.source_log_start_offset;
  out.source_high_watermark = d.source_high_watermark;
  out.destination_log_end_offset = d.destination_log_end_offset;
  out.lag = d.lag;
  out.lag_ms = d.lag_ms;
  out.fetch_latency_ms = d.fetch_latency_ms;
  out.last_mirrored_offset = d.last_mirrored_offset;
  out.retry_count = d.retry_count;
  out.bytes_per_second = d.bytes_per_second;
  out.records_per_second = d.records_per_second;
  out.last_error_code = d.last_error_code;
  out.last_error = d.last_error;
  return out;
}

}  // namespace

void sync_to_wire(const mirror::SyncDescription& sync,
                  DescribeMirrorsResponse::DescribedMirror& out) {
  for (const auto& [kind, st] : sync.kinds) {
    auto& k = out.sync_kinds.emplace_back();
    k.kind = static_cast<int8_t>(kind);
    k.runs = st.runs;
    k.failures = st.failures;
    k.last_run_ms = st.last_run_ms;
    k.last_success_ms = st.last_success_ms;
    k.last_error_ms = st.last_error_ms;
    k.last_duration_us = st.last_duration_us;
    k.looked_at = st.looked_at;
    k.changed = st.changed;
    k.changed_total = st.changed_total;
    k.last_error_code = error_number(st.last_error.code());
    if (!st.last_error.ok()) k.last_error = st.last_error.message();
  }
  for (const auto& [id, g] : sync.groups) {
    auto& group = out.sync_groups.emplace_back();
    group.group_id = id;
    group.error_code = error_number(g.error.code());
    if (!g.error.ok()) group.error_message = g.error.message();
    group.active_on_destination = g.active_on_destination;
    group.last_synced_ms = g.last_synced_ms;
    group.offsets_committed = g.offsets_committed;
    group.kind = static_cast<int8_t>(g.kind);
  }
}

DescribeMirrorsResponse describe_mirrors_response(
    const mirror::MirrorManager& mirrors, const std::optional<std::vector<std::string>>& names) {
  DescribeMirrorsResponse resp;
  for (const mirror::MirrorDescription& d : mirrors.describe(names)) {
    auto& out = resp.mirrors.emplace_back();
    out.name = d.name;
    if (!d.status.ok()) {
      out.error_code = error_number(d.status.code());
      out.error_message = d.status.message();
      continue;
    }
    out.source_bootstrap_servers = d.source_bootstrap_servers;
    out.source_cluster_id = d.source_cluster_id;
    for (const mirror::TopicDescription& t : d.topics) {
      auto& topic = out.topics.emplace_back();
      topic.name = t.name;
      topic.topic_id = t.topic_id;
      for (const mirror::PartitionDescription& p : t.partitions) {
        topic.partitions.push_back(to_wire(p));
      }
    }
    sync_to_wire(d.sync, out);
    out.throttled_rate = d.throttled_rate == mirror::kUnthrottledRate ? -1 : d.throttled_rate;
    out.destination_throttled_ms = d.destination_throttled_ms;
    out.source_throttled_ms = d.source_throttled_ms;
  }
  return resp;
}

asio::awaitable<HandlerResult> handle_describe_mirrors(RequestContext& ctx) {
  auto req = decode_body<protocol::DescribeMirrorsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  if (auto refused =
          refuse_unless_on_cluster<DescribeMirrorsResponse>(ctx, AclOperation::describe)) {
    co_return respond(ctx, *refused);
  }
  co_return respond(ctx, describe_mirrors_response(*ctx.broker->mirror_manager, req->mirror_names));
}

}  // namespace mirra::server
