// Partition-log benchmarks: append throughput of 1 KiB records in 16 KiB and 1 MiB batches,
// without fsync and with fsync per append (flush.messages=1); sequential read throughput; and
// recovery (open with recovery point 0: every batch read and CRC32C-checked) reported as
// seconds per GiB. run.sh prints them beside dd's sequential write limits of the same disk.
//
// Logs live under $MIRRA_BENCH_DIR (default /var/tmp): a real disk, not tmpfs, or fsync is free.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "base/log.h"
#include "protocol/records/batch_builder.h"
#include "storage/partition_log.h"
#include "storage/segment.h"

namespace fs = std::filesystem;
using namespace mirra;

namespace {

fs::path bench_dir(const std::string& name) {
  const char* env = std::getenv("MIRRA_BENCH_DIR");
  fs::path p = fs::path(env ? env : "/var/tmp") / ("mirra-storage-bench-" + name);
  fs::remove_all(p);
  return p;
}

// A batch of `bytes / 1 KiB` records of 1 KiB each.
std::vector<uint8_t> batch_of(size_t bytes) {
  const std::string value(1024, 'm');
  std::vector<records::RecordInput> recs(bytes / 1024);
  for (auto& r : recs) {
    r.value = records::as_bytes(value);
    r.timestamp = 1700000000000;
  }
  return records::build_batch({}, recs).value();
}

storage::LogConfig bench_config(bool fsync) {
  storage::LogConfig c;
  c.segment_bytes = 256 << 20;
  c.max_message_bytes = 2 << 20;
  c.retention_ms = -1;
  c.retention_bytes = 512 << 20;  // keeps the disk footprint bounded in long runs
  if (fsync) c.flush_messages = 1;
  return c;
}

void BM_Append(benchmark::State& state) {
  log::set_level(log::Level::kWarn);
  const auto batch_bytes = static_cast<size_t>(state.range(0));
  const bool fsync = state.range(1) != 0;
  const auto dir = bench_dir("append");
  auto log = storage::PartitionLog::open(dir, bench_config(fsync)).value();
  auto batch = batch_of(batch_bytes);
  int64_t appended = 0;
  for (auto _ : state) {
    // The offsets are patched in place each time, so the same buffer is reused.
    auto r = log->append_as_leader(batch, 0, storage::AppendOrigin::client, 1);
    if (!r) state.SkipWithError(r.status().to_string().c_str());
    appended += static_cast<int64_t>(batch.size());
    if ((appended & ((256 << 20) - 1)) < static_cast<int64_t>(batch.size()))
      (void)log->apply_retention(2);
  }
  state.SetBytesProcessed(appended);
  state.counters["records/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * (batch_bytes / 1024)), benchmark::Counter::kIsRate);
  log.reset();
  fs::remove_all(dir);
}
BENCHMARK(BM_Append)
    ->ArgsProduct({{16 << 10, 1 << 20}, {0, 1}})
    ->ArgNames({"batch", "fsync"})
    ->UseRealTime()
    ->MinTime(1.0);

// A log of `mib` MiB of 16 KiB batches, closed without a clean recovery point.
fs::path write_log(const std::string& name, int mib) {
  const auto dir = bench_dir(name);
  auto log = storage::PartitionLog::open(dir, bench_config(false)).value();
  log->update_config([] {
    auto c = bench_config(false);
    c.retention_bytes = -1;
    return c;
  }());
  auto batch = batch_of(16 << 10);
  for (int64_t n = 0; n < (int64_t{mib} << 20); n += static_cast<int64_t>(batch.size()))
    (void)log->append_as_leader(batch, 0, storage::AppendOrigin::client, 1);
  (void)log->close();
  return dir;
}

void BM_SequentialRead(benchmark::State& state) {
  log::set_level(log::Level::kWarn);
  const auto dir = write_log("read", 256);
  auto log =
      storage::PartitionLog::open(dir, bench_config(false), {.recovery_point = INT64_MAX}).value();
  std::vector<uint8_t> buf(1 << 20);
  const auto batch_size = static_cast<int64_t>(batch_of(16 << 10).size());
  int64_t offset = 0, bytes = 0;
  for (auto _ : state) {
    auto r = log->read(offset, 1 << 20, storage::ReadBound::high_watermark, true);
    if (!r || r->slices.empty()) {
      offset = 0;
      continue;
    }
    for (const auto& s : r->slices) {
      (void)s.file->read_at(s.position,
                            std::span<uint8_t>(buf.data(), static_cast<size_t>(s.size)));
      bytes += s.size;
    }
    // The next offset: 16 records per batch, whole batches returned.
    offset += r->total_bytes() / batch_size * 16;
  }
  state.SetBytesProcessed(bytes);
  log.reset();
  fs::remove_all(dir);
}
BENCHMARK(BM_SequentialRead)->UseRealTime()->MinTime(1.0);

// Recovery of a 256 MiB log from recovery point 0 (page cache warm: the CPU cost of scanning
// and CRC-checking; a cold disk adds its read time, which run.sh shows beside it).
void BM_Recovery(benchmark::State& state) {
  log::set_level(log::Level::kWarn);
  constexpr int kMiB = 256;
  const auto dir = write_log("recovery", kMiB);
  for (auto _ : state) {
    auto log = storage::PartitionLog::open(dir, bench_config(false), {.recovery_point = 0});
    if (!log) state.SkipWithError(log.status().to_string().c_str());
    benchmark::DoNotOptimize(log);
  }
  state.SetBytesProcessed(state.iterations() * (int64_t{kMiB} << 20));
  state.counters["s_per_GiB"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 1024.0 / kMiB,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  fs::remove_all(dir);
}
BENCHMARK(BM_Recovery)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
