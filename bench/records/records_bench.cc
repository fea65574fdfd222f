// Micro-benchmarks for the record-batch hot paths: CRC-32C (hardware vs table vs memcpy on the
// same 1 MiB buffer, to show how close the checksum gets to memory bandwidth) and record
// iteration over a 1 MiB batch of 1 KiB records, uncompressed and lz4.
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <vector>

#include "protocol/records/batch_builder.h"
#include "protocol/records/crc32c.h"
#include "protocol/records/record.h"

namespace mr = mirra::records;

namespace {

constexpr size_t kBufferSize = 1 << 20;

const std::vector<uint8_t>& random_buffer() {
  static const std::vector<uint8_t> buf = [] {
    std::vector<uint8_t> v(kBufferSize);
    std::mt19937 rng(1);
    for (auto& b : v) b = static_cast<uint8_t>(rng());
    return v;
  }();
  return buf;
}

void BM_Crc32cSse42(benchmark::State& state) {
  if (!mr::crc32c_hardware_available()) {
    state.SkipWithError("no SSE4.2");
    return;
  }
  const auto& buf = random_buffer();
  for (auto _ : state) benchmark::DoNotOptimize(mr::crc32c_sse42(buf.data(), buf.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * buf.size()));
}
BENCHMARK(BM_Crc32cSse42);

void BM_Crc32cPortable(benchmark::State& state) {
  const auto& buf = random_buffer();
  for (auto _ : state) benchmark::DoNotOptimize(mr::crc32c_portable(buf.data(), buf.size()));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * buf.size()));
}
BENCHMARK(BM_Crc32cPortable);

void BM_Memcpy(benchmark::State& state) {
  const auto& buf = random_buffer();
  std::vector<uint8_t> dst(buf.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), buf.data(), buf.size());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * buf.size()));
}
BENCHMARK(BM_Memcpy);

// ~1 MiB of 1 KiB values with short keys; values are semi-compressible text-like bytes, so lz4
// has something to do without the batch collapsing to nothing.
std::vector<uint8_t> make_batch(mr::Compression c) {
  mr::BatchOptions o;
  o.compression = c;
  mr::BatchBuilder b(o);
  std::mt19937 rng(3);
  std::vector<uint8_t> value(1024);
  for (int i = 0; i < 1024; ++i) {
    for (auto& x : value) x = static_cast<uint8_t>('a' + rng() % 16);
    const std::string key = "key-" + std::to_string(i);
    mr::RecordInput r;
    r.key = mr::as_bytes(key);
    r.value = mr::Bytes(value);
    r.timestamp = 1700000000000 + i;
    if (!b.append(r)) std::abort();
  }
  return std::move(b.finish()).value();
}

void iterate(benchmark::State& state, mr::Compression c) {
  const std::vector<uint8_t> wire = make_batch(c);
  auto view = mr::BatchView::parse(wire);
  if (!view || !view->validate()) {
    state.SkipWithError("bad batch");
    return;
  }
  std::vector<uint8_t> scratch;
  int64_t records = 0;
  for (auto _ : state) {
    auto it = mr::iterate_records(*view, scratch);
    mr::RecordView rec;
    size_t bytes = 0;
    while (it->next(rec)) bytes += rec.value->size();
    benchmark::DoNotOptimize(bytes);
    records += view->record_count();
  }
  state.SetItemsProcessed(records);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 1024 * 1024);
  state.counters["batch_bytes"] = static_cast<double>(wire.size());
}

void BM_IterateUncompressed(benchmark::State& state) { iterate(state, mr::Compression::none); }
BENCHMARK(BM_IterateUncompressed);

void BM_IterateLz4(benchmark::State& state) { iterate(state, mr::Compression::lz4); }
BENCHMARK(BM_IterateLz4);

// Validation (the per-append cost on the produce path): dominated by the CRC.
void BM_ValidateBatch(benchmark::State& state) {
  const std::vector<uint8_t> wire = make_batch(mr::Compression::none);
  for (auto _ : state) {
    auto view = mr::BatchView::parse(wire);
    benchmark::DoNotOptimize(view->validate().ok());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * wire.size()));
}
BENCHMARK(BM_ValidateBatch);

}  // namespace
