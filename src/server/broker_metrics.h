// BrokerMetrics: the counters the broker keeps for its /metrics endpoint (requests, errors and
// latency per API; bytes and records in and out per topic), and the collection of everything
// a scrape shows into a MetricsSnapshot, written as Prometheus text by render_metrics().
// docs/observability.md lists each family with its meaning and unit.
//
// A scrape must not stall the data path: collect_metrics() runs on the core thread and only
// copies numbers the core thread already holds (the partitions' offsets and sizes as of their
// last operation, the counters); the text is written from the copy on the HTTP thread.
//
// Threading: BrokerMetrics and collect_metrics() belong to the core thread; a MetricsSnapshot
// is a plain value that any thread may render.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "metrics/histogram.h"

namespace mirra::metadata {
struct TopicInfo;
}  // namespace mirra::metadata
namespace mirra::metrics {
class PrometheusText;
}  // namespace mirra::metrics

namespace mirra::server {

struct BrokerState;
class Server;

struct ApiMetrics {
  std::map<int16_t, uint64_t> requests_by_version;
  std::map<int16_t, uint64_t> errors_by_code;  // Kafka error codes; -1 also for closed
  metrics::Histogram latency;
};

struct TopicTraffic {
  uint64_t bytes_in = 0;
  uint64_t records_in = 0;
  uint64_t bytes_out = 0;
};

class BrokerMetrics {
 public:
  static constexpr size_t kMaxApiKey = 128;  // above every key Mirra serves

  // A request answered (or failed: error -1 when it closed the connection).
  void record_request(int16_t api_key, int16_t version, int16_t error_code, double seconds);
  // An error inside an answer whose top-level error is none (a partition's in Produce/Fetch).
  void record_error(int16_t api_key, int16_t error_code);
  void record_produced(const std::string& topic, int64_t bytes, int64_t records);
  void record_fetched(const std::string& topic, int64_t bytes);

  const std::array<ApiMetrics, kMaxApiKey>& apis() const { return apis_; }
  std::map<std::string, TopicTraffic, std::less<>>& topics() { return topics_; }

 private:
  std::array<ApiMetrics, kMaxApiKey> apis_;
  std::map<std::string, TopicTraffic, std::less<>> topics_;
};

struct PartitionSample {
  std::string topic;
  int32_t partition = 0;
  int64_t log_start = 0;
  int64_t high_watermark = 0;
  int64_t last_stable = 0;
  int64_t log_end = 0;
  int64_t size_bytes = 0;
  bool online = true;
};

// A consumer group (Burrow's and kafka-lag-exporter's figures).
struct GroupSample {
  std::string group;
  std::string state;  // "Stable", "Empty", ...
  uint64_t members = 0;
};
// A share group's partitions take GroupOffsetSample with the share-partition start offset as
// `committed` and the records it has still to finish as `lag` (server/share_admin.h).
struct GroupOffsetSample {
  std::string group;
  std::string topic;
  int32_t partition = 0;
  int64_t committed = 0;
  int64_t lag = -1;  // the partition's high watermark minus the committed offset; -1 unknown
};

// A mirror partition (docs/mirroring-design.md §12).
struct MirrorPartitionSample {
  std::string mirror;
  std::string topic;
  int32_t partition = 0;
  std::string state;    // PREPARING, MIRRORING, ...
  int64_t lag = -1;     // offsets; -1 unknown
  int64_t lag_ms = -1;  // -1 unknown
  int64_t retries = 0;
  int64_t bytes = 0;  // mirrored since the runner started
  int64_t records = 0;
  int64_t last_fetch_ms = -1;  // wall clock of the last successful fetch
  int64_t loss_records = 0;    // source high watermark minus our last stable offset
  metrics::Histogram fetch_latency;
};
struct MirrorSyncSample {
  std::string kind;  // topics, configs, partitions, groups, acls
  int64_t runs = 0;
  int64_t failures = 0;
};
struct MirrorSample {
  std::string name;
  std::map<std::string, uint64_t> partitions_by_state;
  int64_t destination_throttled_ms = 0;
  int64_t source_throttled_ms = 0;
  std::vector<MirrorSyncSample> sync;
  int64_t loss_records = 0;
  double loss_bytes = 0;  // estimated from the mean size of the records the mirror copied
};

// Everything one scrape shows, copied on the core thread.
struct MetricsSnapshot {
  std::vector<std::pair<int16_t, ApiMetrics>> apis;  // only APIs that saw requests
  std::map<std::string, TopicTraffic> topics;
  std::map<std::string, uint64_t> connections_by_listener;
  std::vector<PartitionSample> partitions;
  std::vector<GroupSample> groups;
  std::vector<GroupOffsetSample> group_offsets;
  std::vector<GroupSample> share_groups;
  std::vector<GroupOffsetSample> share_group_offsets;
  std::vector<MirrorSample> mirrors;
  std::vector<MirrorPartitionSample> mirror_partitions;
};

// The offsets and sizes of a topic's partitions hosted here, appended to `out`.
void collect_partitions(BrokerState& broker, const metadata::TopicInfo& topic,
                        std::vector<PartitionSample>& out);
// The groups' and mirrors' parts (server/broker_metrics_groups.cc), for collect_metrics() and
// render_metrics().
void collect_groups(BrokerState& broker, MetricsSnapshot& s);
void collect_mirrors(BrokerState& broker, MetricsSnapshot& s);
namespace metrics_text {
void write_groups(metrics::PrometheusText& out, const MetricsSnapshot& s);
void write_share_groups(metrics::PrometheusText& out, const MetricsSnapshot& s);
void write_mirrors(metrics::PrometheusText& out, const MetricsSnapshot& s);
}  // namespace metrics_text

// On the core thread. Drops the traffic counters of topics that no longer exist.
MetricsSnapshot collect_metrics(BrokerState& broker, BrokerMetrics& metrics, const Server* server);

// The Prometheus text of a snapshot, with the process's own figures (CPU, memory, open files,
// read from /proc/self when rendering). Any thread.
std::string render_metrics(const MetricsSnapshot& snapshot);

}  // namespace mirra::server
