// DescribeMirrors (key 99, docs/mirroring-design.md §7, §12): per mirror and partition, the state,
// the source's log start and high watermark, the destination's log end, the lag in offsets and in
// time, the rates, the fetch round trip and the last error.
#include "protocol/messages/describe_mirrors.h"

#include <algorithm>

#include "base/clock.h"
#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "mirror/mirror_admin.h"
#include "mirror/mirror_manager.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::DescribeMirrorsResponse;

// §12: bytes and records per second, the fetch round trip, and the time lag: 0 when caught
// up, else how old the newest mirrored record is (wall clock minus its timestamp), which is how
// far behind the destination is at least; -1 before anything was mirrored.
void describe_activity(const mirror::PartitionMirrorStatus& st,
                       DescribeMirrorsResponse::DescribedPartition& out) {
  const int64_t now = steady_ms();
  out.bytes_per_second = st.bytes.per_second(now);
  out.records_per_second = st.records.per_second(now);
  out.fetch_latency_ms = st.fetch_latency_ms;
  if (out.lag == 0) {
    out.lag_ms = 0;
  } else if (st.newest_mirrored_timestamp >= 0) {
    out.lag_ms = std::max<int64_t>(0, mirra::now_ms() - st.newest_mirrored_timestamp);
  }
}

void describe_partition(const RequestContext& ctx, const mirror::MirrorRunner* runner,
                        const metadata::TopicInfo& t, int32_t index,
                        DescribeMirrorsResponse::DescribedPartition& out) {
  out.partition_index = index;
  auto handle = ctx.broker->partitions->find(t.name, index);
  if (handle != nullptr) out.destination_log_end_offset = handle->offsets.log_end;
  out.state = static_cast<int8_t>(mirror::MirrorState::preparing);
  const mirror::MirrorStateValue* v = ctx.broker->mirror_manager->states().get({t.id, index});
  if (v != nullptr) {
    out.state = v->state;
    out.previous_state = v->previous_state;
    out.last_mirrored_offset = v->last_mirrored_offset;
  }
  if (runner != nullptr) {
    auto it = runner->status().find({t.name, index});
    if (it != runner->status().end()) {
      const mirror::PartitionMirrorStatus& st = it->second;
      out.source_log_start_offset = st.source_log_start;
      out.source_high_watermark = st.source_high_watermark;
      if (st.source_high_watermark >= 0 && out.destination_log_end_offset >= 0) {
        out.lag = std::max<int64_t>(0, st.source_high_watermark - out.destination_log_end_offset);
      }
      describe_activity(st, out);
      out.retry_count = st.pipeline.retries();
      out.last_error_code = error_number(st.last_error.code());
      if (!st.last_error.ok()) out.last_error = st.last_error.message();
    }
  }
  // A FAILED partition's retries and cause are durable; they are the ones to show.
  if (v != nullptr && static_cast<mirror::MirrorState>(v->state) == mirror::MirrorState::failed) {
    out.retry_count = v->retries;
    out.last_error_code = v->last_error_code;
    out.last_error = v->last_error;
  }
}

}  // namespace

asio::awaitable<HandlerResult> handle_describe_mirrors(RequestContext& ctx) {
  auto req = decode_body<protocol::DescribeMirrorsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  const metadata::MetadataImage& image = ctx.broker->metadata->image();
  std::vector<std::string> names;
  if (req->mirror_names) {
    names = *req->mirror_names;
  } else {
    for (const auto& [name, m] : image.mirrors()) names.push_back(name);
  }
  DescribeMirrorsResponse resp;
  for (const std::string& name : names) {
    auto& out = resp.mirrors.emplace_back();
    out.name = name;
    const metadata::MirrorInfo* m = image.mirror(name);
    if (m == nullptr) {
      out.error_code = error_number(ErrorCode::UNKNOWN_MIRROR);
      out.error_message = "mirror '" + name + "' does not exist";
      continue;
    }
    auto bootstrap = m->configs.find("bootstrap.servers");
    if (bootstrap != m->configs.end()) out.source_bootstrap_servers = bootstrap->second;
    const mirror::MirrorRunner* runner = ctx.broker->mirror_manager->runner(name);
    const auto topics = mirror::mirror_topics(image, name);
    out.source_cluster_id =
        mirror::recorded_source_cluster_id(ctx.broker->mirror_manager->states(), topics);
    for (const metadata::TopicInfo* t : topics) {
      auto& topic = out.topics.emplace_back();
      topic.name = t->name;
      topic.topic_id = t->id;
      for (const metadata::PartitionInfo& p : t->partitions) {
        describe_partition(ctx, runner, *t, p.partition, topic.partitions.emplace_back());
      }
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
