// What the broker's metrics add to one request on its core thread, beside memcpy of the
// request's bytes (the machine's limit, measured in the same run). The counters are kept
// whether or not an HTTP listener is configured, so bench/observability/run.sh's "off" pays
// them too; this benchmark isolates them.
//
// A produce request pays record_produced (its topic's bytes and records), one steady_clock read
// for its latency and record_request (the count per API and version, the latency histogram),
// as server/handlers/produce.cc and server/dispatch.cc's count_request do; a fetch request
// record_fetched instead of record_produced. The argument is how many topics take turns (each
// has its own entry in the per-topic map).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "server/broker_metrics.h"

namespace {

using mirra::server::BrokerMetrics;

constexpr int64_t kBatchBytes = 16 * 1024;  // one produce batch of 16 records of 1 KiB
constexpr int64_t kBatchRecords = 16;

std::vector<std::string> topics(int64_t n) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < n; ++i) out.push_back("bench-topic-" + std::to_string(i));
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point started) {
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
  return took.count();
}

void requests(benchmark::State& state, bool fetch) {
  BrokerMetrics metrics;
  const std::vector<std::string> names = topics(state.range(0));
  for (const std::string& t : names) metrics.record_produced(t, 0, 0);  // as after a first write
  size_t i = 0;
  const auto started = std::chrono::steady_clock::now();
  for (auto _ : state) {
    const std::string& topic = names[i++ % names.size()];
    if (fetch) {
      metrics.record_fetched(topic, kBatchBytes);
      metrics.record_request(1, 13, 0, seconds_since(started));
    } else {
      metrics.record_produced(topic, kBatchBytes, kBatchRecords);
      metrics.record_request(0, 9, 0, seconds_since(started));
    }
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_ProduceRequestMetrics(benchmark::State& s) { requests(s, false); }
void BM_FetchRequestMetrics(benchmark::State& s) { requests(s, true); }
BENCHMARK(BM_ProduceRequestMetrics)->Arg(1)->Arg(1000);
BENCHMARK(BM_FetchRequestMetrics)->Arg(1)->Arg(1000);

// The limit: copying one batch's bytes once, which every produce request does at least.
void BM_MemcpyBatch(benchmark::State& state) {
  std::vector<char> src(kBatchBytes, 'x');
  std::vector<char> dst(kBatchBytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kBatchBytes);
}
BENCHMARK(BM_MemcpyBatch);

}  // namespace
