// Records inside a v2 batch: zero-copy views and an allocation-free iterator.
//
// Record layout (all lengths/deltas zig-zag varints; see docs/formats/record-batch.md):
//   length, attributes int8, timestampDelta varlong, offsetDelta varint,
//   keyLength + key (-1 = null), valueLength + value (-1 = null),
//   headerCount, then per header: keyLength + key, valueLength + value (-1 = null).
// Views point into the batch (uncompressed) or into the caller's scratch buffer (compressed);
// they stay valid while that memory does.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "protocol/records/compression.h"
#include "protocol/records/record_batch.h"

namespace mirra::records {

using Bytes = std::span<const uint8_t>;
using NullableBytes = std::optional<Bytes>;  // nullopt = null (length -1); empty span = ""

inline std::string_view as_string(Bytes b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

struct HeaderView {
  Bytes key;  // header keys are never null in Kafka
  NullableBytes value;
};

// Walks the headers of one record. The bytes were fully checked when the record was parsed,
// so next() cannot fail.
class HeaderIterator {
 public:
  HeaderIterator() = default;
  HeaderIterator(Bytes bytes, int32_t count) : bytes_(bytes), left_(count) {}
  bool next(HeaderView& out);

 private:
  Bytes bytes_;
  int32_t left_ = 0;
};

// A record's timestamp from its batch's base and its delta. Wraps like Java's long arithmetic
// (what Kafka computes), so that hostile deltas are not undefined behaviour.
inline int64_t record_timestamp(int64_t base_timestamp, int64_t timestamp_delta) {
  return static_cast<int64_t>(static_cast<uint64_t>(base_timestamp) +
                              static_cast<uint64_t>(timestamp_delta));
}

struct RecordView {
  int8_t attributes = 0;
  int64_t timestamp_delta = 0;
  int32_t offset_delta = 0;
  NullableBytes key;
  NullableBytes value;
  int32_t header_count = 0;
  Bytes header_bytes;  // the encoded headers, already validated

  HeaderIterator headers() const { return HeaderIterator(header_bytes, header_count); }
};

// Iterates `count` records laid out back to back in `records`. next() returns false at the end
// or on malformed input; status() tells which. Trailing bytes after the last record, a record
// that overruns its length, or fewer records than announced are CORRUPT_MESSAGE.
class RecordIterator {
 public:
  RecordIterator() = default;
  RecordIterator(Bytes records, int32_t count) : rest_(records), left_(count) {}

  bool next(RecordView& out);
  const Status& status() const { return status_; }
  int32_t remaining() const { return left_; }

 private:
  bool fail(std::string message);

  Bytes rest_;
  int32_t left_ = 0;
  int32_t index_ = 0;
  Status status_;
};

// Parses exactly one record occupying all of `body` (the bytes after its length prefix).
Status parse_record_body(Bytes body, RecordView& out);

// An iterator over the records of a batch. For a compressed batch the records are decompressed
// into `scratch` (cleared first, capacity reused) and bounded by `max_decompressed`; the views
// then point into `scratch`. The batch's CRC is not re-checked here: validate() first.
Result<RecordIterator> iterate_records(const BatchView& batch, std::vector<uint8_t>& scratch,
                                       size_t max_decompressed = kDefaultMaxDecompressedSize);

// Calls fn(const RecordView&) for every record; stops early if fn returns a failed Status.
template <typename Fn>
Status for_each_record(const BatchView& batch, std::vector<uint8_t>& scratch, Fn&& fn,
                       size_t max_decompressed = kDefaultMaxDecompressedSize) {
  auto it = iterate_records(batch, scratch, max_decompressed);
  if (!it) return it.status();
  RecordView rec;
  while (it->next(rec)) {
    if (Status st = fn(static_cast<const RecordView&>(rec)); !st) return st;
  }
  return it->status();
}

// ---- control records (transaction markers) -------------------------------------------------

enum class ControlType : int16_t { ABORT = 0, COMMIT = 1 };

struct ControlRecord {
  int16_t key_version = 0;
  int16_t type = 0;  // a ControlType for markers; other values exist (e.g. KRaft's)
  int16_t value_version = 0;
  int32_t coordinator_epoch = -1;  // only for ABORT/COMMIT
};

// Decodes the key (and, for ABORT/COMMIT, the value) of a record from a control batch.
Result<ControlRecord> parse_control_record(const RecordView& record);

}  // namespace mirra::records
