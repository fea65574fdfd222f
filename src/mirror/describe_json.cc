#include "mirror/describe_json.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <vector>

#include "base/error_codes.h"
#include "base/json.h"
#include "mirror/mirror_admin.h"
#include "mirror/mirror_sync.h"

namespace mirra::mirror {
namespace {

std::string json_error(const Status& s) { return s.ok() ? "null" : json_string(s.message()); }

std::string state_name(int8_t state) { return std::string(mirror_state_name(state)); }

}  // namespace

std::string sync_kind_name(int8_t kind) {
  for (SyncKind k : kSyncKinds) {
    if (static_cast<int8_t>(k) == kind) return std::string(to_string(k));
  }
  return std::to_string(kind);
}

std::string partition_json(const client::MirrorDescription& m,
                           const client::MirrorTopicDescription& t,
                           const client::MirrorPartitionDescription& p) {
  return fmt::format(
      "{{\"mirror\":{},\"topic\":{},\"topicId\":{},\"partition\":{},\"state\":{},"
      "\"sourceLogStartOffset\":{},\"sourceHighWatermark\":{},"
      "\"destinationLogEndOffset\":{},\"lag\":{},\"lagMs\":{},\"lastMirroredOffset\":{},"
      "\"retries\":{},\"bytesPerSecond\":{},\"recordsPerSecond\":{},"
      "\"fetchLatencyMs\":{},\"lastError\":{}}}",
      json_string(m.name), json_string(t.name), json_string(t.id.to_string()), p.partition,
      json_string(state_name(p.state)), p.source_log_start, p.source_high_watermark,
      p.destination_log_end, p.lag, p.lag_ms, p.last_mirrored_offset, p.retries, p.bytes_per_second,
      p.records_per_second, p.fetch_latency_ms, json_error(p.last_error));
}

std::string throttle_json(const client::MirrorDescription& m) {
  return fmt::format(
      "{{\"type\":\"throttle\",\"mirror\":{},\"throttledRate\":{},"
      "\"destinationThrottledMs\":{},\"sourceThrottledMs\":{}}}",
      json_string(m.name), m.throttled_rate, m.destination_throttled_ms, m.source_throttled_ms);
}

std::string sync_kind_json(const client::MirrorDescription& m,
                           const client::MirrorSyncKindDescription& k) {
  return fmt::format(
      "{{\"type\":\"sync\",\"mirror\":{},\"kind\":{},\"runs\":{},\"failures\":{},"
      "\"lastRunMs\":{},\"lastSuccessMs\":{},\"lastErrorMs\":{},\"lastDurationUs\":{},"
      "\"lookedAt\":{},\"changed\":{},\"changedTotal\":{},\"lastErrorCode\":{},"
      "\"lastError\":{}}}",
      json_string(m.name), json_string(sync_kind_name(k.kind)), k.runs, k.failures, k.last_run_ms,
      k.last_success_ms, k.last_error_ms, k.last_duration_us, k.looked_at, k.changed,
      k.changed_total, error_number(k.last_error.code()), json_error(k.last_error));
}

std::string sync_group_json(const client::MirrorDescription& m,
                            const client::MirrorSyncGroupDescription& g) {
  return fmt::format(
      "{{\"type\":\"syncGroup\",\"mirror\":{},\"group\":{},\"kind\":{},"
      "\"activeOnDestination\":{},\"lastSyncedMs\":{},\"offsetsCommitted\":{},\"errorCode\":{},"
      "\"error\":{}}}",
      json_string(m.name), json_string(g.group_id), json_string(sync_kind_name(g.kind)),
      g.active_on_destination, g.last_synced_ms, g.offsets_committed, error_number(g.error.code()),
      json_error(g.error));
}

std::string mirror_json(const client::MirrorDescription& m) {
  std::vector<std::string> partitions;
  std::map<std::string, int64_t> by_state;
  for (const auto& t : m.topics) {
    for (const auto& p : t.partitions) {
      partitions.push_back(partition_json(m, t, p));
      ++by_state[state_name(p.state)];
    }
  }
  std::vector<std::string> counts;
  for (const auto& [state, n] : by_state)
    counts.push_back(fmt::format("{}:{}", json_string(state), n));
  std::vector<std::string> sync;
  for (const auto& k : m.sync_kinds) sync.push_back(sync_kind_json(m, k));
  std::vector<std::string> groups;
  for (const auto& g : m.sync_groups) groups.push_back(sync_group_json(m, g));
  return fmt::format(
      "{{\"name\":{},\"error\":{},\"sourceBootstrapServers\":{},\"sourceClusterId\":{},"
      "\"throttledRate\":{},\"destinationThrottledMs\":{},\"sourceThrottledMs\":{},"
      "\"partitionsByState\":{{{}}},\"partitions\":[{}],\"sync\":[{}],\"syncGroups\":[{}]}}",
      json_string(m.name), json_error(m.status), json_string(m.source_bootstrap_servers),
      m.source_cluster_id ? json_string(*m.source_cluster_id) : "null", m.throttled_rate,
      m.destination_throttled_ms, m.source_throttled_ms, fmt::join(counts, ","),
      fmt::join(partitions, ","), fmt::join(sync, ","), fmt::join(groups, ","));
}

}  // namespace mirra::mirror
