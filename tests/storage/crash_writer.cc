// The writer half of the crash test (crash_test.cc): opens (and so recovers) the log in argv[1]
// with flush.messages=1, then appends batches forever. Record values are their own offsets
// ("17"), so the test can check every record is where it belongs. After each append returns
// (fsynced) it prints "<last offset>\n" and flushes stdout: a printed offset is acknowledged.
// The test kills it with SIGKILL at a random moment.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "base/log.h"
#include "protocol/records/batch_builder.h"
#include "storage/partition_log.h"

using namespace mirra;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <partition dir> <seed>\n", argv[0]);
    return 2;
  }
  log::set_level(log::Level::kError);
  storage::LogConfig config;
  config.flush_messages = 1;
  config.segment_bytes = 16 * 1024;  // rolls happen under the knife too
  config.index_interval_bytes = 512;
  auto opened = storage::PartitionLog::open(argv[1], config);
  if (!opened) {
    std::fprintf(stderr, "open: %s\n", opened.status().to_string().c_str());
    return 1;
  }
  auto& log = *opened.value();
  std::mt19937_64 rng(std::stoull(argv[2]));
  for (;;) {
    const int64_t next = log.log_end_offset();
    const int count = 1 + static_cast<int>(rng() % 5);
    std::vector<std::string> values;
    std::vector<records::RecordInput> recs(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      std::string v = std::to_string(next + i);
      v.resize(v.size() + rng() % 1500, ' ');  // varying sizes, so cuts land anywhere
      values.push_back(std::move(v));
    }
    for (int i = 0; i < count; ++i) {
      recs[static_cast<size_t>(i)].value = records::as_bytes(values[static_cast<size_t>(i)]);
      recs[static_cast<size_t>(i)].timestamp = 1000 + next + i;
    }
    auto batch = records::build_batch({}, recs);
    if (!batch) return 1;
    auto r = log.append_as_leader(batch.value(), 0, storage::AppendOrigin::client, 1000 + next);
    if (!r) {
      std::fprintf(stderr, "append: %s\n", r.status().to_string().c_str());
      return 1;
    }
    std::printf("%lld\n", static_cast<long long>(r->last_offset));
    std::fflush(stdout);
  }
}
