// The describe, list and last-mirrored-offsets rules (mirror_describe.h), and the
// MirrorManager calls that apply them to the image, the partition states and the runners.
#include "mirror/mirror_describe.h"

#include <algorithm>

#include "base/assert.h"
#include "base/clock.h"
#include "mirror/mirror_admin.h"
#include "mirror/mirror_manager.h"

namespace mirra::mirror {
namespace {

// Bytes and records per second, the fetch round trip, and the time lag: 0 when caught up, else
// how old the newest mirrored record is (wall clock minus its timestamp), which is how far
// behind the destination is at least; -1 before anything was mirrored.
void describe_activity(const PartitionMirrorStatus& st, DescribeClock now,
                       PartitionDescription& out) {
  out.bytes_per_second = st.bytes.per_second(now.steady_ms);
  out.records_per_second = st.records.per_second(now.steady_ms);
  out.fetch_latency_ms = st.fetch_latency_ms;
  if (out.lag == 0) {
    out.lag_ms = 0;
  } else if (st.newest_mirrored_timestamp >= 0) {
    out.lag_ms = std::max<int64_t>(0, now.wall_ms - st.newest_mirrored_timestamp);
  }
}

std::string bootstrap_servers(const metadata::MirrorInfo& m) {
  auto it = m.configs.find("bootstrap.servers");
  return it == m.configs.end() ? "" : it->second;
}

}  // namespace

PartitionDescription describe_partition(int32_t partition, const MirrorStateValue* state,
                                        const PartitionMirrorStatus* status,
                                        int64_t destination_log_end, DescribeClock now) {
  PartitionDescription out;
  out.partition = partition;
  out.destination_log_end_offset = destination_log_end;
  out.state = static_cast<int8_t>(MirrorState::preparing);
  if (state != nullptr) {
    out.state = state->state;
    out.previous_state = state->previous_state;
    out.last_mirrored_offset = state->last_mirrored_offset;
  }
  if (status != nullptr) {
    out.source_log_start_offset = status->source_log_start;
    out.source_high_watermark = status->source_high_watermark;
    if (status->source_high_watermark >= 0 && destination_log_end >= 0) {
      out.lag = std::max<int64_t>(0, status->source_high_watermark - destination_log_end);
    }
    describe_activity(*status, now, out);
    out.retry_count = status->pipeline.retries();
    out.last_error_code = error_number(status->last_error.code());
    if (!status->last_error.ok()) out.last_error = status->last_error.message();
  }
  // A FAILED partition's retries and cause are durable; they are the ones to show.
  if (state != nullptr && static_cast<MirrorState>(state->state) == MirrorState::failed) {
    out.retry_count = state->retries;
    out.last_error_code = state->last_error_code;
    out.last_error = state->last_error;
  }
  // Failed over, or being failed over: nothing is copied any more, so there is no lag, and the
  // age of the last copied record would only grow (docs/mirroring-design.md §12).
  const auto s = static_cast<MirrorState>(out.state);
  if (s == MirrorState::stopping || s == MirrorState::stopped) {
    out.lag = -1;
    out.lag_ms = -1;
  }
  return out;
}

PartitionDescription describe_source_only_partition(int32_t partition, int64_t source_log_end) {
  PartitionDescription out;
  out.partition = partition;
  out.state = kNotMirroredState;
  out.source_high_watermark = source_log_end;
  out.lag = source_log_end;
  out.last_error_code = error_number(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  out.last_error =
      "added on the source after the topic was added: not mirrored (the destination's topic "
      "lacks this partition; docs/mirroring-design.md §8)";
  return out;
}

bool group_worth_showing(const GroupSyncStatus& group) {
  return !group.error.ok() || group.active_on_destination;
}

SyncDescription describe_sync(const MirrorSyncStatus& status) {
  SyncDescription out;
  for (SyncKind kind : kSyncKinds) out.kinds.emplace_back(kind, status.of(kind));
  for (const auto& [id, group] : status.groups) {
    if (group_worth_showing(group)) out.groups.emplace_back(id, group);
  }
  return out;
}

int64_t last_mirrored_offset_for(const MirrorStateValue* state,
                                 const std::string& requesting_cluster_id) {
  if (state == nullptr || state->source_cluster_id != requesting_cluster_id) return -1;
  if (static_cast<MirrorState>(state->state) != MirrorState::stopped) return -1;
  return state->last_mirrored_offset;
}

std::vector<MirrorDescription> MirrorManager::describe(
    const std::optional<std::vector<std::string>>& names) const {
  MIRRA_ASSERT_OWNER(owner_);
  const metadata::MetadataImage& image = store_.image();
  std::vector<std::string> wanted;
  if (names) {
    wanted = *names;
  } else {
    for (const auto& [name, m] : image.mirrors()) wanted.push_back(name);
  }
  const DescribeClock now{steady_ms(), mirra::now_ms()};
  std::vector<MirrorDescription> out;
  for (const std::string& name : wanted) {
    MirrorDescription& d = out.emplace_back();
    d.name = name;
    const metadata::MirrorInfo* m = image.mirror(name);
    if (m == nullptr) {
      d.status = Status(ErrorCode::UNKNOWN_MIRROR, "mirror '" + name + "' does not exist");
      continue;
    }
    d.source_bootstrap_servers = bootstrap_servers(*m);
    const MirrorRunner* r = runner(name);
    if (const MirrorSync* s = sync_of(name); s != nullptr) d.sync = describe_sync(s->status());
    d.throttled_rate = throttle_.limit();
    if (r != nullptr) {
      d.destination_throttled_ms = r->destination_throttled_ms();
      d.source_throttled_ms = r->source_throttled_ms();
    }
    const auto topics = mirror_topics(image, name);
    d.source_cluster_id = recorded_source_cluster_id(states_, topics);
    for (const metadata::TopicInfo* t : topics) {
      TopicDescription& td = d.topics.emplace_back();
      td.name = t->name;
      td.topic_id = t->id;
      for (const metadata::PartitionInfo& p : t->partitions) {
        auto handle = partitions_.find(t->name, p.partition);
        const PartitionMirrorStatus* status = nullptr;
        if (r != nullptr) {
          auto it = r->status().find({t->name, p.partition});
          if (it != r->status().end()) status = &it->second;
        }
        td.partitions.push_back(
            describe_partition(p.partition, states_.get({t->id, p.partition}), status,
                               handle == nullptr ? -1 : handle->offsets.log_end, now));
      }
      if (r == nullptr) continue;
      for (const auto& [tp, end] : r->source_only()) {
        // The runner notes them at its own pace: one the partitions sync has added since
        // is described above.
        if (tp.topic == t->name && tp.partition >= static_cast<int32_t>(t->partitions.size())) {
          td.partitions.push_back(describe_source_only_partition(tp.partition, end));
        }
      }
    }
  }
  return out;
}

std::vector<ListedMirror> MirrorManager::list(
    bool include_topics, const std::optional<std::vector<std::string>>& topic_names) const {
  MIRRA_ASSERT_OWNER(owner_);
  const metadata::MetadataImage& image = store_.image();
  std::vector<ListedMirror> out;
  for (const auto& [name, m] : image.mirrors()) {
    const auto topics = mirror_topics(image, name);
    // A failback's loop check asks only about the mirrors that hold its topics.
    if (topic_names) {
      const bool holds = std::any_of(topics.begin(), topics.end(), [&](const auto* t) {
        return std::find(topic_names->begin(), topic_names->end(), t->name) != topic_names->end();
      });
      if (!holds) continue;
    }
    ListedMirror& l = out.emplace_back();
    l.name = name;
    l.source_bootstrap_servers = bootstrap_servers(m);
    l.topic_count = static_cast<int32_t>(topics.size());
    l.source_cluster_id = recorded_source_cluster_id(states_, topics);
    if (!include_topics) continue;
    for (const metadata::TopicInfo* t : topics) {
      l.topics.push_back({t->name, t->id, topic_state(states_, *t)});
    }
  }
  return out;
}

std::vector<TopicLastMirroredOffsets> MirrorManager::last_mirrored_offsets(
    const std::string& requesting_cluster_id, const std::vector<PartitionsOfTopic>& topics) const {
  MIRRA_ASSERT_OWNER(owner_);
  std::vector<TopicLastMirroredOffsets> out;
  for (const PartitionsOfTopic& t : topics) {
    TopicLastMirroredOffsets& o = out.emplace_back();
    o.topic_id = t.topic_id;
    for (int32_t p : t.partitions) {
      o.offsets.emplace_back(
          p, last_mirrored_offset_for(states_.get({t.topic_id, p}), requesting_cluster_id));
    }
  }
  return out;
}

}  // namespace mirra::mirror
