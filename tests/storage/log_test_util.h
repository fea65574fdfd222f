// Helpers for the partition-log tests: a fresh temporary directory per test, batch builders and
// a reader that turns FileSlices back into batches.
#pragma once

#include <unistd.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "protocol/records/batch_builder.h"
#include "protocol/records/record.h"
#include "protocol/records/record_set.h"
#include "storage/partition_log.h"
#include "storage/segment.h"

namespace mirra::storage::testing {

namespace fs = std::filesystem;

// A directory under the system temp dir, removed with everything in it at the end.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() /
            ("mirra-storage-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

struct BatchSpec {
  int records = 1;
  int64_t timestamp = 1000;  // of the first record; each next record +1
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
  bool transactional = false;
  int64_t base_offset = 0;
  int32_t leader_epoch = -1;
  size_t value_size = 16;
  std::string value_prefix = "v";
  records::Compression compression = records::Compression::none;
};

inline std::vector<uint8_t> make_batch(const BatchSpec& s) {
  records::BatchOptions o;
  o.base_offset = s.base_offset;
  o.partition_leader_epoch = s.leader_epoch;
  o.producer_id = s.producer_id;
  o.producer_epoch = s.producer_epoch;
  o.base_sequence = s.base_sequence;
  o.transactional = s.transactional;
  o.compression = s.compression;
  std::vector<std::string> values;
  for (int i = 0; i < s.records; ++i) {
    std::string v = s.value_prefix + std::to_string(i);
    if (v.size() < s.value_size) v.resize(s.value_size, 'x');
    values.push_back(std::move(v));
  }
  std::vector<records::RecordInput> recs(static_cast<size_t>(s.records));
  for (int i = 0; i < s.records; ++i) {
    recs[static_cast<size_t>(i)].value = records::as_bytes(values[static_cast<size_t>(i)]);
    recs[static_cast<size_t>(i)].timestamp = s.timestamp + i;
  }
  auto out = records::build_batch(o, recs);
  EXPECT_TRUE(out) << out.status().to_string();
  return std::move(out).value();
}

inline std::vector<uint8_t> make_marker(records::ControlType type, int64_t pid, int16_t epoch,
                                        int64_t offset = 0, int64_t timestamp = 5000,
                                        int32_t leader_epoch = -1) {
  auto out = records::build_control_batch(type, pid, epoch, /*coordinator_epoch=*/0, offset,
                                          timestamp, leader_epoch);
  EXPECT_TRUE(out) << out.status().to_string();
  return std::move(out).value();
}

inline std::vector<uint8_t> concat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// The bytes of a read, copied out of its slices.
inline std::vector<uint8_t> slurp(const ReadResult& r) {
  std::vector<uint8_t> out;
  for (const auto& s : r.slices) {
    std::vector<uint8_t> part(static_cast<size_t>(s.size));
    EXPECT_TRUE(s.file->read_at(s.position, part));
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

struct SeenBatch {
  int64_t base_offset;
  int64_t last_offset;
  int32_t leader_epoch;
  int64_t producer_id;
  bool control;
  bool operator==(const SeenBatch&) const = default;
};

inline std::vector<SeenBatch> batches_of(const std::vector<uint8_t>& bytes) {
  std::vector<SeenBatch> out;
  records::RecordSetIterator it(bytes, /*validate=*/true);
  records::BatchView b;
  records::RecordSetStep step;
  while ((step = it.next(b)) == records::RecordSetStep::batch)
    out.push_back({b.base_offset(), b.last_offset(), b.partition_leader_epoch(), b.producer_id(),
                   b.is_control()});
  EXPECT_EQ(step, records::RecordSetStep::end) << it.status().to_string();
  return out;
}

// Every batch from `from` to the bound, following the log across reads.
inline std::vector<SeenBatch> read_all(const PartitionLog& log, int64_t from = -1,
                                       ReadBound bound = ReadBound::log_end) {
  std::vector<SeenBatch> out;
  int64_t offset = from < 0 ? log.log_start_offset() : from;
  for (;;) {
    auto r = log.read(offset, 1 << 20, bound, true);
    EXPECT_TRUE(r) << r.status().to_string();
    if (!r || r->slices.empty()) break;
    auto got = batches_of(slurp(*r));
    out.insert(out.end(), got.begin(), got.end());
    offset = got.back().last_offset + 1;
  }
  return out;
}

// The record values of every batch read from the log start.
inline std::vector<std::string> read_values(const PartitionLog& log) {
  std::vector<std::string> out;
  int64_t offset = log.log_start_offset();
  std::vector<uint8_t> scratch;
  for (;;) {
    auto r = log.read(offset, 1 << 20, ReadBound::log_end, true);
    EXPECT_TRUE(r);
    if (!r || r->slices.empty()) break;
    auto bytes = slurp(*r);
    records::RecordSetIterator it(bytes, true);
    records::BatchView b;
    while (it.next(b) == records::RecordSetStep::batch) {
      EXPECT_TRUE(records::for_each_record(b, scratch, [&](const records::RecordView& rec) {
        out.emplace_back(records::as_string(rec.value.value_or(records::Bytes{})));
        return Status();
      }));
      offset = b.next_offset();
    }
  }
  return out;
}

inline LogConfig small_config() {
  LogConfig c;
  c.segment_bytes = 4096;
  c.index_interval_bytes = 256;
  return c;
}

inline std::unique_ptr<PartitionLog> open_log(const fs::path& dir, const LogConfig& c = {},
                                              LogOpenOptions o = {}) {
  auto log = PartitionLog::open(dir, c, o);
  EXPECT_TRUE(log) << log.status().to_string();
  return log ? std::move(log.value()) : nullptr;
}

inline AppendResult append(PartitionLog& log, std::vector<uint8_t> batch, int64_t now = 10000,
                           AppendOrigin origin = AppendOrigin::client, int32_t epoch = 0) {
  auto r = log.append_as_leader(batch, epoch, origin, now);
  EXPECT_TRUE(r) << r.status().to_string();
  return r ? *r : AppendResult{};
}

}  // namespace mirra::storage::testing
