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

// Everything one scrape shows, copied on the core thread.
struct MetricsSnapshot {
  std::vector<std::pair<int16_t, ApiMetrics>> apis;  // only APIs that saw requests
  std::map<std::string, TopicTraffic> topics;
  std::map<std::string, uint64_t> connections_by_listener;
  std::vector<PartitionSample> partitions;
};

// On the core thread. Drops the traffic counters of topics that no longer exist.
MetricsSnapshot collect_metrics(BrokerState& broker, BrokerMetrics& metrics, const Server* server);

// The Prometheus text of a snapshot, with the process's own figures (CPU, memory, open files,
// read from /proc/self when rendering). Any thread.
std::string render_metrics(const MetricsSnapshot& snapshot);

}  // namespace mirra::server
