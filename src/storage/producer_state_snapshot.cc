// Producer-state snapshot files: "<20-digit offset>.snapshot" in the partition directory.
// Layout (all integers big-endian): docs/formats/producer-snapshot.md.
#include <algorithm>
#include <cstdint>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "base/log.h"
#include "protocol/records/byte_order.h"
#include "protocol/records/crc32c.h"
#include "storage/durable_file.h"
#include "storage/producer_state.h"

namespace mirra::storage {

namespace {

constexpr int16_t kSnapshotVersion = 1;
constexpr std::string_view kSnapshotSuffix = ".snapshot";
constexpr size_t kOffsetDigits = 20;
// version int16 + crc uint32; the CRC covers every byte after it.
constexpr size_t kCrcAt = 2;
constexpr size_t kBodyAt = 6;
// Fixed part of a producer entry: pid 8, epoch 2, coordinator epoch 4, last timestamp 8,
// last update 8, txn first offset 8, batch count 1.
constexpr size_t kEntryFixedSize = 39;
constexpr size_t kBatchSize = 32;  // first seq 4, last seq 4, first offset 8, last offset 8, ts 8
constexpr int64_t kNoTxn = -1;

std::string snapshot_name(int64_t offset) {
  return fmt::format("{:0{}d}{}", offset, kOffsetDigits, kSnapshotSuffix);
}

// "<20 digits>.snapshot" -> offset; anything else (temp files, other files) -> nullopt.
std::optional<int64_t> parse_snapshot_name(const std::string& name) {
  if (name.size() != kOffsetDigits + kSnapshotSuffix.size() ||
      name.compare(kOffsetDigits, std::string::npos, kSnapshotSuffix) != 0) {
    return std::nullopt;
  }
  int64_t offset = 0;
  for (size_t i = 0; i < kOffsetDigits; ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
    if (offset > (INT64_MAX - 9) / 10) return std::nullopt;
    offset = offset * 10 + (name[i] - '0');
  }
  return offset;
}

class Writer {
 public:
  void i8(uint8_t v) { out_.push_back(v); }
  void i16(int16_t v) { put<2>(static_cast<uint64_t>(static_cast<uint16_t>(v))); }
  void i32(int32_t v) { put<4>(static_cast<uint64_t>(static_cast<uint32_t>(v))); }
  void i64(int64_t v) { put<8>(static_cast<uint64_t>(v)); }
  std::vector<uint8_t>& bytes() { return out_; }

 private:
  template <size_t N>
  void put(uint64_t v) {
    for (size_t i = 0; i < N; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * (N - 1 - i))));
  }
  std::vector<uint8_t> out_;
};

// Bounds-checked reads; after any overrun ok() stays false and values read as 0.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  uint8_t i8() { return need(1) ? bytes_[pos_++] : 0; }
  int16_t i16() { return static_cast<int16_t>(take(2, records::load_be16)); }
  int32_t i32() { return static_cast<int32_t>(take(4, records::load_be32)); }
  int64_t i64() { return static_cast<int64_t>(take(8, records::load_be64)); }
  bool ok() const { return ok_; }
  bool at_end() const { return pos_ == bytes_.size(); }

 private:
  bool need(size_t n) {
    if (!ok_ || bytes_.size() - pos_ < n) ok_ = false;
    return ok_;
  }
  template <typename Load>
  uint64_t take(size_t n, Load load) {
    if (!need(n)) return 0;
    uint64_t v = load(bytes_.data() + pos_);
    pos_ += n;
    return v;
  }
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
};

std::vector<uint8_t> encode_snapshot(int64_t offset,
                                     const std::map<int64_t, ProducerEntry>& producers) {
  Writer w;
  size_t size = kBodyAt + 12;
  for (const auto& [pid, e] : producers) size += kEntryFixedSize + kBatchSize * e.batches.size();
  w.bytes().reserve(size);
  w.i16(kSnapshotVersion);
  w.i32(0);  // CRC, filled in below
  w.i64(offset);
  w.i32(static_cast<int32_t>(producers.size()));
  for (const auto& [pid, e] : producers) {
    w.i64(pid);
    w.i16(e.epoch);
    w.i32(e.coordinator_epoch);
    w.i64(e.last_timestamp);
    w.i64(e.last_update_ms);
    w.i64(e.current_txn_first_offset.value_or(kNoTxn));
    w.i8(static_cast<uint8_t>(e.batches.size()));
    for (const BatchMetadata& b : e.batches) {
      w.i32(b.first_seq);
      w.i32(b.last_seq);
      w.i64(b.first_offset);
      w.i64(b.last_offset);
      w.i64(b.max_timestamp);
    }
  }
  std::vector<uint8_t>& out = w.bytes();
  uint32_t crc = records::crc32c(std::span<const uint8_t>(out).subspan(kBodyAt));
  records::store_be32(out.data() + kCrcAt, crc);
  return std::move(out);
}

Status corrupt(std::string why) { return Status(ErrorCode::CORRUPT_MESSAGE, std::move(why)); }

Result<ProducerEntry> decode_entry(Reader& r) {
  ProducerEntry e;
  e.producer_id = r.i64();
  e.epoch = r.i16();
  e.coordinator_epoch = r.i32();
  e.last_timestamp = r.i64();
  e.last_update_ms = r.i64();
  int64_t txn_first = r.i64();
  if (txn_first != kNoTxn) e.current_txn_first_offset = txn_first;
  size_t batches = r.i8();
  if (!r.ok()) return corrupt("truncated producer entry");
  if (e.producer_id == kNoProducerId || batches > kCachedBatchesPerProducer) {
    return corrupt("bad producer entry for id " + std::to_string(e.producer_id));
  }
  for (size_t i = 0; i < batches; ++i) {
    BatchMetadata b;
    b.first_seq = r.i32();
    b.last_seq = r.i32();
    b.first_offset = r.i64();
    b.last_offset = r.i64();
    b.max_timestamp = r.i64();
    e.batches.push_back(b);
  }
  if (!r.ok()) return corrupt("truncated batch list of producer " + std::to_string(e.producer_id));
  return e;
}

// Decodes and checks a whole snapshot; CORRUPT_MESSAGE for anything unexpected.
Result<std::map<int64_t, ProducerEntry>> decode_snapshot(std::span<const uint8_t> data,
                                                         int64_t expected_offset) {
  if (data.size() < kBodyAt) return corrupt("shorter than its header");
  int16_t version = static_cast<int16_t>(records::load_be16(data.data()));
  if (version != kSnapshotVersion) return corrupt("unknown version " + std::to_string(version));
  if (records::load_be32(data.data() + kCrcAt) != records::crc32c(data.subspan(kBodyAt))) {
    return corrupt("CRC32C mismatch");
  }
  Reader r(data.subspan(kBodyAt));
  int64_t offset = r.i64();
  int32_t count = r.i32();
  if (!r.ok() || offset != expected_offset || count < 0) return corrupt("bad snapshot header");
  // Cheap bound before the loop: every entry takes at least its fixed part.
  if (static_cast<uint64_t>(count) > (data.size() - kBodyAt) / kEntryFixedSize) {
    return corrupt("producer count " + std::to_string(count) + " does not fit in the file");
  }
  std::map<int64_t, ProducerEntry> producers;
  for (int32_t i = 0; i < count; ++i) {
    auto e = decode_entry(r);
    if (!e) return e.status();
    int64_t pid = e->producer_id;
    if (!producers.emplace(pid, std::move(e).value()).second) {
      return corrupt("producer " + std::to_string(pid) + " appears twice");
    }
  }
  if (!r.at_end()) return corrupt("trailing bytes after the last producer");
  return producers;
}

}  // namespace

Status ProducerStateManager::take_snapshot() {
  std::vector<uint8_t> bytes = encode_snapshot(map_end_offset_, producers_);
  return durable::write_file_atomically(dir_ / snapshot_name(map_end_offset_), bytes);
}

// KAFKA_STORAGE_ERROR when the file cannot be read, CORRUPT_MESSAGE when its content is bad;
// the state is replaced only on success.
Status ProducerStateManager::load_snapshot(int64_t offset) {
  auto bytes = durable::read_file(dir_ / snapshot_name(offset));
  if (!bytes) return bytes.status();
  if (!bytes->has_value()) return corrupt("file vanished");
  auto producers = decode_snapshot(**bytes, offset);
  if (!producers) return producers.status();
  producers_ = std::move(producers).value();
  ongoing_txns_.clear();
  for (const auto& [pid, e] : producers_) {
    if (e.current_txn_first_offset) ongoing_txns_.insert({*e.current_txn_first_offset, pid});
  }
  return Status::OK();
}

Result<int64_t> ProducerStateManager::reload_from_snapshot(int64_t offset, int64_t log_start) {
  clear();
  std::vector<int64_t> offsets = snapshot_offsets();
  for (auto it = offsets.rbegin(); it != offsets.rend(); ++it) {
    if (*it > offset) continue;
    if (*it < log_start) break;  // its state refers to data that is gone
    Status st = load_snapshot(*it);
    if (st) {
      map_end_offset_ = *it;
      return *it;
    }
    if (st.code() != ErrorCode::CORRUPT_MESSAGE) return st;
    std::filesystem::path path = dir_ / snapshot_name(*it);
    MIRRA_CLOG_WARN("storage",
                    "producer snapshot {} is corrupt ({}); deleting it and using an older one",
                    path.string(), st.message());
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
  map_end_offset_ = log_start;
  return log_start;
}

std::vector<int64_t> ProducerStateManager::snapshot_offsets() const {
  std::vector<int64_t> offsets;
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(dir_, ec)) {
    if (auto o = parse_snapshot_name(f.path().filename().string())) offsets.push_back(*o);
  }
  std::sort(offsets.begin(), offsets.end());
  return offsets;
}

namespace {

template <typename Pred>
void delete_snapshots_if(const std::filesystem::path& dir, const std::vector<int64_t>& offsets,
                         Pred pred) {
  bool deleted = false;
  for (int64_t o : offsets) {
    if (!pred(o)) continue;
    std::error_code ec;
    std::filesystem::remove(dir / snapshot_name(o), ec);
    if (ec) {
      MIRRA_CLOG_WARN("storage", "cannot delete producer snapshot {}: {}",
                      (dir / snapshot_name(o)).string(), ec.message());
    }
    deleted = true;
  }
  // A stale snapshot above a truncation point must not come back after a crash.
  if (deleted) {
    if (Status st = durable::fsync_dir(dir); !st) MIRRA_CLOG_WARN("storage", "{}", st.message());
  }
}

}  // namespace

void ProducerStateManager::delete_snapshots_above(int64_t offset) {
  delete_snapshots_if(dir_, snapshot_offsets(), [&](int64_t o) { return o > offset; });
}

void ProducerStateManager::delete_snapshots_below(int64_t offset) {
  delete_snapshots_if(dir_, snapshot_offsets(), [&](int64_t o) { return o < offset; });
}

}  // namespace mirra::storage
