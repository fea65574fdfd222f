// Codec micro-benchmarks (issue: foundation, point 7). Each figure is printed as bytes/s next
// to a memcpy of the same size measured in the same run, so results compare across machines.
#include <benchmark/benchmark.h>

#include <cstring>

#include "protocol/frame.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/produce.h"

namespace mirra::protocol {
namespace {

constexpr size_t kMiB = 1 << 20;

Bytes filler(size_t n) {
  Bytes b(n);
  for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(i * 131 + 7);
  return b;
}

void BM_Memcpy1MiB(benchmark::State& state) {
  Bytes src = filler(kMiB), dst(kMiB);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kMiB);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kMiB));
}
BENCHMARK(BM_Memcpy1MiB);

// A Produce request (v9, flexible) carrying 1 MiB of records in 8 partitions: decode only.
// Records are views, so this measures the structure walk, not a copy.
void BM_DecodeProduceRequest1MiB(benchmark::State& state) {
  Bytes records = filler(kMiB / 8);
  ProduceRequest req;
  req.acks = -1;
  req.timeout_ms = 30000;
  auto& topic = req.topic_data.emplace_back();
  topic.name = "bench";
  for (int p = 0; p < 8; ++p) {
    auto& part = topic.partition_data.emplace_back();
    part.index = p;
    part.records = RecordsView{records.data(), records.size()};
  }
  const int16_t version = 9;
  Bytes wire;
  append_message(wire, req, version);
  for (auto _ : state) {
    ProduceRequest decoded;
    Reader r(wire.data(), wire.size());
    Status s = decoded.decode(r, version);
    benchmark::DoNotOptimize(s);
    benchmark::DoNotOptimize(decoded);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * wire.size()));
}
BENCHMARK(BM_DecodeProduceRequest1MiB);

// A Fetch response (v12) with 1 MiB of records over 16 partitions, encoded into a frame: the
// records are copied into the output, so memcpy of 1 MiB is the bound.
void BM_EncodeFetchResponse1MiB(benchmark::State& state) {
  Bytes records = filler(kMiB / 16);
  FetchResponse resp;
  auto& topic = resp.responses.emplace_back();
  topic.topic = "bench";
  for (int p = 0; p < 16; ++p) {
    auto& part = topic.partitions.emplace_back();
    part.partition_index = p;
    part.high_watermark = 1000000;
    part.last_stable_offset = 1000000;
    part.records = RecordsView{records.data(), records.size()};
  }
  size_t bytes = 0;
  for (auto _ : state) {
    Bytes frame = encode_response_frame(42, 12, resp);
    bytes = frame.size();
    benchmark::DoNotOptimize(frame.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_EncodeFetchResponse1MiB);

}  // namespace
}  // namespace mirra::protocol
