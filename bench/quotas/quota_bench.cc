// What client quotas add to one request on the broker's core thread, beside memcpy of the
// request's bytes (the machine's limit, measured in the same run). The end-to-end benchmark
// (bench/quotas/run.sh) shows the same thing through real clients, but on a small shared machine
// its run-to-run noise is far wider than the 3% it looks for; this one isolates the quota work.
//
// A produce request pays: record_produce (its bytes), one steady_clock read and
// record_request_time (request_percentage), as server/client_quotas.cc calls them. A fetch
// request also asks fetch_max_bytes first. "off": no quota configured at all; "on": quotas
// configured as bench/quotas/quotas.sh sets them, far from reached (client id `bench`:
// producer, consumer byte rates and request_percentage; the default user: producer byte rate).
// The argument is how many client ids take turns, as connections of different clients would
// (each has its own cache entry and sensor).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "quota/quota_table.h"
#include "server/client_quotas.h"

namespace {

using mirra::quota::EntityName;
using mirra::quota::QuotaEntity;
using mirra::quota::QuotaKey;
using mirra::quota::QuotaTable;
using mirra::server::ClientQuotas;
using mirra::server::QuotaClient;

constexpr int64_t kBatchBytes = 16 * 1024;  // one produce batch of 16 records of 1 KiB
constexpr int64_t kBusyNanos = 50'000;      // what the handler is said to have taken

// Client ids bench, bench-1, bench-2, ...: the first has the client-id quotas, all fall under
// the default user's.
std::vector<std::string> client_ids(int64_t n) {
  std::vector<std::string> ids{"bench"};
  for (int64_t i = 1; i < n; ++i) ids.push_back("bench-" + std::to_string(i));
  return ids;
}

void configure(QuotaTable& table) {
  const QuotaEntity bench{std::nullopt, EntityName::named("bench")};
  table.set(bench, QuotaKey::producer_byte_rate, 1e11);
  table.set(bench, QuotaKey::consumer_byte_rate, 1e11);
  table.set(bench, QuotaKey::request_percentage, 1e5);
  table.set(QuotaEntity{EntityName::default_entity(), std::nullopt}, QuotaKey::producer_byte_rate,
            1e11);
}

int64_t busy_nanos(std::chrono::steady_clock::time_point started) {
  const auto busy = std::chrono::steady_clock::now() - started;
  return std::chrono::duration_cast<std::chrono::nanoseconds>(busy).count() + kBusyNanos;
}

// One request's quota work: produce records its bytes; fetch first asks its size cap, then
// records what it sends. Both then record the request's time.
void requests(benchmark::State& state, bool on, bool fetch) {
  QuotaTable table;
  if (on) configure(table);
  ClientQuotas quotas(table, {}, {});
  const std::vector<std::string> ids = client_ids(state.range(0));
  size_t i = 0;
  for (auto _ : state) {
    const auto started = std::chrono::steady_clock::now();
    const QuotaClient c{"ANONYMOUS", ids[i++ % ids.size()]};
    int64_t throttle = 0;
    if (fetch) {
      benchmark::DoNotOptimize(quotas.fetch_max_bytes(c));
      throttle = quotas.record_fetch(c, kBatchBytes);
    } else {
      throttle = quotas.record_produce(c, kBatchBytes);
    }
    if (quotas.active()) throttle += quotas.record_request_time(c, busy_nanos(started));
    benchmark::DoNotOptimize(throttle);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_ProduceRequestQuotasOff(benchmark::State& s) { requests(s, false, false); }
void BM_ProduceRequestQuotasOn(benchmark::State& s) { requests(s, true, false); }
void BM_FetchRequestQuotasOff(benchmark::State& s) { requests(s, false, true); }
void BM_FetchRequestQuotasOn(benchmark::State& s) { requests(s, true, true); }
BENCHMARK(BM_ProduceRequestQuotasOff)->Arg(1);
BENCHMARK(BM_ProduceRequestQuotasOn)->Arg(1)->Arg(1000);
BENCHMARK(BM_FetchRequestQuotasOff)->Arg(1);
BENCHMARK(BM_FetchRequestQuotasOn)->Arg(1)->Arg(1000);

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
