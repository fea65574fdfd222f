// The consumer groups' and mirrors' parts of /metrics (server/broker_metrics.h): collected on the
// core thread from the group coordinator, the mirror manager and the partitions' offsets (no
// log is read), written as Prometheus text from the copy.
#include <cmath>
#include <tuple>

#include "cluster/partition_manager.h"
#include "groups/group_coordinator.h"
#include "metrics/prometheus_text.h"
#include "mirror/mirror_admin.h"
#include "mirror/mirror_manager.h"
#include "server/broker_metrics.h"
#include "server/request_context.h"
#include "server/share_admin.h"

namespace mirra::server {

using metrics::Labels;
using metrics::MetricType;
using metrics::PrometheusText;

void collect_groups(BrokerState& broker, MetricsSnapshot& s) {
  if (broker.groups == nullptr) return;
  for (auto& g : broker.groups->summaries()) {
    s.groups.push_back({g.group_id, std::string(g.state), g.members});
    for (const auto& [tp, committed] : g.offsets) {
      int64_t lag = -1;
      if (auto p = broker.partitions->find(tp.topic, tp.partition); p && committed >= 0) {
        lag = std::max<int64_t>(0, p->offsets.high_watermark - committed);
      }
      s.group_offsets.push_back({g.group_id, tp.topic, tp.partition, committed, lag});
    }
  }
  if (broker.share == nullptr) return;
  for (auto& g : broker.groups->share_summaries()) {
    s.share_groups.push_back({g.group_id, std::string(g.state), g.members});
    auto rows = describe_share_offsets(broker, g.group_id, std::nullopt);
    if (!rows.ok()) continue;
    for (const ShareOffsetRow& r : rows.value()) {
      s.share_group_offsets.push_back({g.group_id, r.topic, r.partition, r.start_offset, r.lag});
    }
  }
}

namespace {

// What a failover now would lose of a partition: above our last stable offset, up to the
// source's high watermark as last fetched (a source partition we lack: all of it). Nothing
// once the partition is failed over (STOPPING, STOPPED): it is no longer a copy.
int64_t failover_loss(BrokerState& broker, const std::string& topic,
                      const mirror::PartitionDescription& p) {
  using mirror::MirrorState;
  if (p.state == static_cast<int8_t>(MirrorState::stopping) ||
      p.state == static_cast<int8_t>(MirrorState::stopped)) {
    return 0;
  }
  if (p.state == mirror::kNotMirroredState) return std::max<int64_t>(0, p.lag);
  auto local = broker.partitions->find(topic, p.partition);
  if (!local || p.source_high_watermark < 0) return 0;
  return std::max<int64_t>(0, p.source_high_watermark - local->offsets.last_stable);
}

}  // namespace

void collect_mirrors(BrokerState& broker, MetricsSnapshot& s) {
  if (broker.mirror_manager == nullptr) return;
  for (const mirror::MirrorDescription& m : broker.mirror_manager->describe(std::nullopt)) {
    if (!m.status.ok()) continue;
    MirrorSample& out = s.mirrors.emplace_back();
    out.name = m.name;
    out.destination_throttled_ms = m.destination_throttled_ms;
    out.source_throttled_ms = m.source_throttled_ms;
    for (const auto& [kind, st] : m.sync.kinds) {
      out.sync.push_back({std::string(mirror::to_string(kind)), st.runs, st.failures});
    }
    const mirror::MirrorRunner* runner = broker.mirror_manager->runner(m.name);
    int64_t bytes = 0;
    int64_t records = 0;
    for (const mirror::TopicDescription& t : m.topics) {
      for (const mirror::PartitionDescription& p : t.partitions) {
        MirrorPartitionSample& mp = s.mirror_partitions.emplace_back();
        mp.mirror = m.name;
        mp.topic = t.name;
        mp.partition = p.partition;
        mp.state = std::string(mirror::mirror_state_name(p.state));
        ++out.partitions_by_state[mp.state];
        mp.lag = p.lag;
        mp.lag_ms = p.lag_ms;
        mp.retries = p.retry_count;
        if (runner != nullptr) {
          auto st = runner->status().find(client::TopicPartition{t.name, p.partition});
          if (st != runner->status().end()) {
            mp.bytes = st->second.bytes_total;
            mp.records = st->second.records_total;
            mp.last_fetch_ms = st->second.last_fetch_wall_ms;
            mp.fetch_latency = st->second.fetch_latency;
          }
        }
        mp.loss_records = failover_loss(broker, t.name, p);
        bytes += mp.bytes;
        records += mp.records;
        out.loss_records += mp.loss_records;
      }
    }
    if (records > 0) {
      out.loss_bytes = static_cast<double>(out.loss_records) * static_cast<double>(bytes) /
                       static_cast<double>(records);
    }
  }
}

namespace metrics_text {

namespace {

// The four families of one kind of group: its members, its state, an offset per partition
// (committed, or a share group's start offset) and its lag.
struct GroupFamilies {
  std::string prefix;  // "mirra_consumer_group", "mirra_share_group"
  const char* members_help;
  const char* state_help;
  const char* offset_name;  // after the prefix
  const char* offset_help;
  const char* lag_help;
};

void write_group_kind(PrometheusText& out, const std::vector<GroupSample>& groups,
                      const std::vector<GroupOffsetSample>& offsets, const GroupFamilies& f) {
  const std::string members = f.prefix + "_members", state = f.prefix + "_state",
                    offset = f.prefix + "_" + f.offset_name, lag = f.prefix + "_lag";
  out.family(members, MetricType::gauge, f.members_help);
  for (const GroupSample& g : groups) {
    out.sample(members, {{"group", g.group}}, static_cast<double>(g.members));
  }
  out.family(state, MetricType::gauge, f.state_help);
  for (const GroupSample& g : groups)
    out.sample(state, {{"group", g.group}, {"state", g.state}}, 1);
  out.family(offset, MetricType::gauge, f.offset_help);
  for (const GroupOffsetSample& o : offsets) {
    out.sample(offset,
               {{"group", o.group}, {"topic", o.topic}, {"partition", std::to_string(o.partition)}},
               static_cast<double>(o.committed));
  }
  out.family(lag, MetricType::gauge, f.lag_help);
  for (const GroupOffsetSample& o : offsets) {
    if (o.lag < 0) continue;
    out.sample(lag,
               {{"group", o.group}, {"topic", o.topic}, {"partition", std::to_string(o.partition)}},
               static_cast<double>(o.lag));
  }
}

}  // namespace

void write_groups(PrometheusText& out, const MetricsSnapshot& s) {
  write_group_kind(
      out, s.groups, s.group_offsets,
      {"mirra_consumer_group", "Members of a consumer group.",
       "1 for the group's current state (Empty, PreparingRebalance, CompletingRebalance, Stable, "
       "Dead).",
       "committed_offset", "The group's committed offset for a partition.",
       "Records between the group's committed offset and the partition's high watermark."});
}

void write_share_groups(PrometheusText& out, const MetricsSnapshot& s) {
  write_group_kind(
      out, s.share_groups, s.share_group_offsets,
      {"mirra_share_group", "Members of a share group.",
       "1 for the share group's current state (Empty, Stable).", "start_offset",
       "The share-partition start offset: below it the group has finished every record.",
       "Records of a partition the share group has still to finish (up to the high "
       "watermark)."});
}

namespace {

// One gauge or counter per mirror partition, from a field of the sample; values below 0
// (unknown) are left out.
void write_per_partition(PrometheusText& out, const MetricsSnapshot& s, const char* name,
                         MetricType type, const char* help, double scale,
                         int64_t MirrorPartitionSample::*field) {
  out.family(name, type, help);
  for (const MirrorPartitionSample& p : s.mirror_partitions) {
    if (p.*field < 0) continue;
    const std::string partition = std::to_string(p.partition);
    out.sample(name, {{"mirror", p.mirror}, {"topic", p.topic}, {"partition", partition}},
               static_cast<double>(p.*field) * scale);
  }
}

}  // namespace

void write_mirrors(PrometheusText& out, const MetricsSnapshot& s) {
  out.family("mirra_mirror_partitions", MetricType::gauge, "Mirror partitions per state.");
  for (const MirrorSample& m : s.mirrors) {
    for (const auto& [state, n] : m.partitions_by_state) {
      out.sample("mirra_mirror_partitions", {{"mirror", m.name}, {"state", state}},
                 static_cast<double>(n));
    }
  }
  out.family("mirra_mirror_partition_state", MetricType::gauge,
             "1 for the mirror partition's current state.");
  for (const MirrorPartitionSample& p : s.mirror_partitions) {
    const std::string partition = std::to_string(p.partition);
    out.sample(
        "mirra_mirror_partition_state",
        {{"mirror", p.mirror}, {"topic", p.topic}, {"partition", partition}, {"state", p.state}},
        1);
  }
  write_per_partition(out, s, "mirra_mirror_partition_lag_offsets", MetricType::gauge,
                      "The source's high watermark minus this broker's log end offset.", 1,
                      &MirrorPartitionSample::lag);
  write_per_partition(out, s, "mirra_mirror_partition_lag_seconds", MetricType::gauge,
                      "Age of the newest record mirrored while behind; 0 when caught up.", 0.001,
                      &MirrorPartitionSample::lag_ms);
  write_per_partition(out, s, "mirra_mirror_partition_bytes_total", MetricType::counter,
                      "Record bytes mirrored since the mirror started on this broker.", 1,
                      &MirrorPartitionSample::bytes);
  write_per_partition(out, s, "mirra_mirror_partition_records_total", MetricType::counter,
                      "Records mirrored since the mirror started on this broker.", 1,
                      &MirrorPartitionSample::records);
  write_per_partition(out, s, "mirra_mirror_partition_retries_total", MetricType::counter,
                      "Failed attempts retried since the partition last made progress.", 1,
                      &MirrorPartitionSample::retries);
  write_per_partition(out, s, "mirra_mirror_partition_last_fetch_timestamp_seconds",
                      MetricType::gauge, "When the source last answered a fetch for it.", 0.001,
                      &MirrorPartitionSample::last_fetch_ms);
  out.family("mirra_mirror_partition_fetch_duration_seconds", MetricType::histogram,
             "Round trip of the fetches that asked the source for the partition.");
  for (const MirrorPartitionSample& p : s.mirror_partitions) {
    const std::string partition = std::to_string(p.partition);
    out.histogram("mirra_mirror_partition_fetch_duration_seconds",
                  {{"mirror", p.mirror}, {"topic", p.topic}, {"partition", partition}},
                  p.fetch_latency);
  }
  out.family("mirra_mirror_throttled_seconds_total", MetricType::counter,
             "Time the mirror's fetches were held back, by this broker's "
             "mirror.replication.throttled.rate (side=destination) or the source's quotas "
             "(side=source).");
  for (const MirrorSample& m : s.mirrors) {
    out.sample("mirra_mirror_throttled_seconds_total",
               {{"mirror", m.name}, {"side", "destination"}},
               static_cast<double>(m.destination_throttled_ms) / 1000.0);
    out.sample("mirra_mirror_throttled_seconds_total", {{"mirror", m.name}, {"side", "source"}},
               static_cast<double>(m.source_throttled_ms) / 1000.0);
  }
  for (const auto& [name, help, field] :
       {std::tuple{
            "mirra_mirror_sync_runs_total",
            "Rounds of each sync task (topics, configs, partitions, groups, acls, share-groups).",
            &MirrorSyncSample::runs},
        std::tuple{"mirra_mirror_sync_errors_total",
                   "Rounds of each sync task that ended with an error.",
                   &MirrorSyncSample::failures}}) {
    out.family(name, MetricType::counter, help);
    for (const MirrorSample& m : s.mirrors) {
      for (const MirrorSyncSample& k : m.sync) {
        out.sample(name, {{"mirror", m.name}, {"kind", k.kind}}, static_cast<double>(k.*field));
      }
    }
  }
  out.family("mirra_mirror_failover_loss_records", MetricType::gauge,
             "Records a failover now would lose: the source's high watermark minus this "
             "broker's last stable offset, over the mirror's partitions.");
  for (const MirrorSample& m : s.mirrors) {
    out.sample("mirra_mirror_failover_loss_records", {{"mirror", m.name}},
               static_cast<double>(m.loss_records));
  }
  out.family("mirra_mirror_failover_loss_bytes", MetricType::gauge,
             "Bytes a failover now would lose, estimated from the mean size of the records the "
             "mirror has copied.");
  for (const MirrorSample& m : s.mirrors) {
    out.sample("mirra_mirror_failover_loss_bytes", {{"mirror", m.name}}, m.loss_bytes);
  }
}

}  // namespace metrics_text
}  // namespace mirra::server
