#include "server/broker_metrics.h"

#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "base/error_codes.h"
#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "metrics/prometheus_text.h"
#include "protocol/api_table.h"
#include "server/request_context.h"
#include "server/server.h"

namespace mirra::server {

using metrics::Labels;
using metrics::MetricType;
using metrics::PrometheusText;

void BrokerMetrics::record_request(int16_t api_key, int16_t version, int16_t error_code,
                                   double seconds) {
  if (api_key < 0 || static_cast<size_t>(api_key) >= kMaxApiKey) return;
  ApiMetrics& m = apis_[static_cast<size_t>(api_key)];
  ++m.requests_by_version[version];
  if (error_code != 0) ++m.errors_by_code[error_code];
  m.latency.observe(seconds);
}

void BrokerMetrics::record_error(int16_t api_key, int16_t error_code) {
  if (api_key < 0 || static_cast<size_t>(api_key) >= kMaxApiKey || error_code == 0) return;
  ++apis_[static_cast<size_t>(api_key)].errors_by_code[error_code];
}

void BrokerMetrics::record_produced(const std::string& topic, int64_t bytes, int64_t records) {
  auto it = topics_.find(topic);
  if (it == topics_.end()) it = topics_.emplace(topic, TopicTraffic{}).first;
  it->second.bytes_in += static_cast<uint64_t>(bytes);
  it->second.records_in += static_cast<uint64_t>(records);
}

void BrokerMetrics::record_fetched(const std::string& topic, int64_t bytes) {
  auto it = topics_.find(topic);
  if (it == topics_.end()) it = topics_.emplace(topic, TopicTraffic{}).first;
  it->second.bytes_out += static_cast<uint64_t>(bytes);
}

void collect_partitions(BrokerState& broker, const metadata::TopicInfo& topic,
                        std::vector<PartitionSample>& out) {
  for (size_t i = 0; i < topic.partitions.size(); ++i) {
    auto p = broker.partitions->find(topic.name, static_cast<int32_t>(i));
    if (!p) continue;
    out.push_back({topic.name, p->index, p->offsets.log_start, p->offsets.high_watermark,
                   p->offsets.last_stable, p->offsets.log_end, p->offsets.size_bytes, p->online()});
  }
}

MetricsSnapshot collect_metrics(BrokerState& broker, BrokerMetrics& metrics, const Server* server) {
  MetricsSnapshot s;
  for (size_t key = 0; key < BrokerMetrics::kMaxApiKey; ++key) {
    const ApiMetrics& m = metrics.apis()[key];
    if (m.latency.count() != 0) s.apis.emplace_back(static_cast<int16_t>(key), m);
  }
  const auto& topics = broker.metadata->image().topics();
  std::erase_if(metrics.topics(), [&](const auto& t) { return !topics.contains(t.first); });
  for (const auto& [name, traffic] : metrics.topics()) s.topics.emplace(name, traffic);
  if (server != nullptr) s.connections_by_listener = server->connections_by_listener();
  for (const auto& [name, topic] : topics) collect_partitions(broker, topic, s.partitions);
  collect_groups(broker, s);
  collect_mirrors(broker, s);
  return s;
}

namespace {

std::string api_name(int16_t key) {
  const protocol::ApiInfo* api = protocol::find_api(key);
  return api != nullptr ? std::string(api->name) : std::to_string(key);
}

std::string error_label(int16_t code) { return std::string(error_name(error_from_number(code))); }

void write_requests(PrometheusText& out, const MetricsSnapshot& s) {
  out.family("mirra_requests_total", MetricType::counter,
             "Requests answered, per API and version.");
  for (const auto& [key, m] : s.apis) {
    const std::string api = api_name(key);
    for (const auto& [version, n] : m.requests_by_version) {
      const std::string v = version < 0 ? "unsupported" : std::to_string(version);
      out.sample("mirra_requests_total", {{"api", api}, {"version", v}}, static_cast<double>(n));
    }
  }
  out.family("mirra_request_errors_total", MetricType::counter,
             "Errors in answers, per API and Kafka error (top-level, and each partition's in "
             "Produce and Fetch); UNKNOWN_SERVER_ERROR also counts requests that closed the "
             "connection.");
  for (const auto& [key, m] : s.apis) {
    const std::string api = api_name(key);
    for (const auto& [code, n] : m.errors_by_code) {
      out.sample("mirra_request_errors_total", {{"api", api}, {"error", error_label(code)}},
                 static_cast<double>(n));
    }
  }
  out.family("mirra_request_duration_seconds", MetricType::histogram,
             "Time from a request's dispatch to its answer, per API (long polls included).");
  for (const auto& [key, m] : s.apis) {
    out.histogram("mirra_request_duration_seconds", {{"api", api_name(key)}}, m.latency);
  }
}

void write_topics(PrometheusText& out, const MetricsSnapshot& s) {
  struct Counter {
    const char* name;
    const char* help;
    uint64_t TopicTraffic::*field;
  };
  for (const Counter& c : {
           Counter{"mirra_topic_bytes_in_total", "Record bytes appended by producers.",
                   &TopicTraffic::bytes_in},
           Counter{"mirra_topic_records_in_total", "Records appended by producers.",
                   &TopicTraffic::records_in},
           Counter{"mirra_topic_bytes_out_total", "Record bytes sent to fetchers.",
                   &TopicTraffic::bytes_out},
       }) {
    out.family(c.name, MetricType::counter, c.help);
    for (const auto& [topic, t] : s.topics) {
      out.sample(c.name, {{"topic", topic}}, static_cast<double>(t.*(c.field)));
    }
  }
}

void write_partitions(PrometheusText& out, const MetricsSnapshot& s) {
  out.family("mirra_partitions", MetricType::gauge, "Partitions this broker holds.");
  out.sample("mirra_partitions", {}, static_cast<double>(s.partitions.size()));
  struct Gauge {
    const char* name;
    const char* help;
    int64_t PartitionSample::*field;
  };
  for (const Gauge& g : {
           Gauge{"mirra_partition_log_start_offset", "First offset of the partition's log.",
                 &PartitionSample::log_start},
           Gauge{"mirra_partition_log_end_offset", "Offset the next record will get.",
                 &PartitionSample::log_end},
           Gauge{"mirra_partition_high_watermark", "High watermark.",
                 &PartitionSample::high_watermark},
           Gauge{"mirra_partition_last_stable_offset",
                 "Last stable offset (read_committed consumers read up to it).",
                 &PartitionSample::last_stable},
           Gauge{"mirra_partition_log_size_bytes", "Bytes of the partition's segment files.",
                 &PartitionSample::size_bytes},
       }) {
    out.family(g.name, MetricType::gauge, g.help);
    for (const PartitionSample& p : s.partitions) {
      const std::string partition = std::to_string(p.partition);
      out.sample(g.name, {{"topic", p.topic}, {"partition", partition}},
                 static_cast<double>(p.*(g.field)));
    }
  }
  out.family("mirra_partition_offline", MetricType::gauge,
             "1 while the partition is offline (a storage error), else 0.");
  for (const PartitionSample& p : s.partitions) {
    const std::string partition = std::to_string(p.partition);
    out.sample("mirra_partition_offline", {{"topic", p.topic}, {"partition", partition}},
               p.online ? 0 : 1);
  }
  out.family("mirra_partition_under_min_isr", MetricType::gauge,
             "1 while the partition has fewer in-sync replicas than min.insync.replicas: always "
             "0 on a single broker.");
  for (const PartitionSample& p : s.partitions) {
    const std::string partition = std::to_string(p.partition);
    out.sample("mirra_partition_under_min_isr", {{"topic", p.topic}, {"partition", partition}}, 0);
  }
}

void write_connections(PrometheusText& out, const MetricsSnapshot& s) {
  out.family("mirra_connections", MetricType::gauge, "Open client connections, per listener.");
  for (const auto& [listener, n] : s.connections_by_listener) {
    out.sample("mirra_connections", {{"listener", listener}}, static_cast<double>(n));
  }
}

// The process collector's families as every Prometheus client library names them, from
// /proc/self (proc(5)). A figure that cannot be read is left out.
void write_process(PrometheusText& out) {
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  std::ifstream stat_file("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)), {});
  // Fields after the command name, which is in parentheses and may hold spaces.
  const size_t close = stat.rfind(')');
  std::vector<std::string> f;
  if (close != std::string::npos) {
    std::istringstream in(stat.substr(close + 2));
    for (std::string w; in >> w;) f.push_back(w);
  }
  // f[0] is field 3 (state): utime 14, stime 15, starttime 22, vsize 23, rss 24.
  if (f.size() > 21) {
    out.family("process_cpu_seconds_total", MetricType::counter, "User and system CPU time.");
    out.sample("process_cpu_seconds_total", {}, (std::stod(f[11]) + std::stod(f[12])) / tick);
    out.family("process_virtual_memory_bytes", MetricType::gauge, "Virtual memory size.");
    out.sample("process_virtual_memory_bytes", {}, std::stod(f[20]));
    out.family("process_resident_memory_bytes", MetricType::gauge, "Resident memory size.");
    out.sample("process_resident_memory_bytes", {}, std::stod(f[21]) * page);
    // The boot time (btime in /proc/stat) is fixed, so the start time does not move between
    // scrapes (Prometheus users detect restarts by its changes).
    std::ifstream proc_stat("/proc/stat");
    for (std::string key; proc_stat >> key;) {
      if (key != "btime") continue;
      double boot = 0;
      if (proc_stat >> boot) {
        out.family("process_start_time_seconds", MetricType::gauge,
                   "Start time of the process since the Unix epoch.");
        out.sample("process_start_time_seconds", {}, boot + std::stod(f[19]) / tick);
      }
      break;
    }
  }
  std::error_code ec;
  size_t fds = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++fds;
  }
  if (!ec) {
    out.family("process_open_fds", MetricType::gauge, "Open file descriptors.");
    out.sample("process_open_fds", {}, static_cast<double>(fds));
  }
  const long max_fds = sysconf(_SC_OPEN_MAX);
  if (max_fds > 0) {
    out.family("process_max_fds", MetricType::gauge, "Limit on open file descriptors.");
    out.sample("process_max_fds", {}, static_cast<double>(max_fds));
  }
}

}  // namespace

std::string render_metrics(const MetricsSnapshot& snapshot) {
  PrometheusText out;
  write_requests(out, snapshot);
  write_topics(out, snapshot);
  write_connections(out, snapshot);
  write_partitions(out, snapshot);
  metrics_text::write_groups(out, snapshot);
  metrics_text::write_share_groups(out, snapshot);
  metrics_text::write_mirrors(out, snapshot);
  write_process(out);
  return out.take();
}

}  // namespace mirra::server
