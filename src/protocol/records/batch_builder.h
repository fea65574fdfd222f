// Building v2 batches: data batches from records, and transaction-marker control batches.
//
// Used by the producer path of Mirra's own client, by the transaction coordinator (markers) and
// by tests. Records are encoded straight into the output buffer when the batch is uncompressed;
// compressed batches encode into a staging buffer first and compress once at finish().
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "protocol/records/compression.h"
#include "protocol/records/record.h"
#include "protocol/records/record_batch.h"

namespace mirra::records {

struct BatchOptions {
  int64_t base_offset = 0;              // clients send 0; the leader assigns
  int32_t partition_leader_epoch = -1;  // -1 = not stamped yet
  int64_t producer_id = -1;             // -1 = not idempotent
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
  bool transactional = false;
  bool control = false;  // set by build_control_batch; not for data batches
  TimestampType timestamp_type = TimestampType::create_time;
  int64_t log_append_time = -1;  // becomes maxTimestamp when timestamp_type is log_append_time
  Compression compression = Compression::none;
  CompressOptions compress_options;
};

struct HeaderInput {
  std::string_view key;
  NullableBytes value;
};

struct RecordInput {
  NullableBytes key;
  NullableBytes value;
  int64_t timestamp = 0;                // absolute; stored as a delta from the first record
  std::optional<int32_t> offset_delta;  // default: the record's position in the batch
  std::span<const HeaderInput> headers;
};

inline Bytes as_bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

class BatchBuilder {
 public:
  explicit BatchBuilder(const BatchOptions& options);

  // Encodes one record. Fails (INVALID_REQUEST) on offset deltas that do not increase, on
  // fields too large for int32 lengths, or after finish().
  Status append(const RecordInput& record);

  int32_t record_count() const { return count_; }
  // Uncompressed size of the records appended so far.
  size_t records_size() const { return records().size(); }

  // Compresses (if asked), fills the header and CRC, and hands out the batch bytes. The builder
  // is spent afterwards. A batch needs at least one record.
  Result<std::vector<uint8_t>> finish();

 private:
  std::vector<uint8_t>& records_buffer() { return staged() ? staging_ : out_; }
  std::span<const uint8_t> records() const;
  bool staged() const { return options_.compression != Compression::none; }
  void write_header(int16_t attributes);

  BatchOptions options_;
  std::vector<uint8_t> out_;      // header room + records (uncompressed) or blob (compressed)
  std::vector<uint8_t> staging_;  // records before compression
  int32_t count_ = 0;
  int32_t last_offset_delta_ = -1;
  int64_t base_timestamp_ = 0;
  int64_t max_timestamp_ = -1;
  bool finished_ = false;
};

// Convenience: one batch from a list of records.
Result<std::vector<uint8_t>> build_batch(const BatchOptions& options,
                                         std::span<const RecordInput> records);

// A transaction marker: a control batch (transactional + control attributes) holding one record
// whose key is version 0 + type and whose value is version 0 + coordinator epoch.
Result<std::vector<uint8_t>> build_control_batch(ControlType type, int64_t producer_id,
                                                 int16_t producer_epoch, int32_t coordinator_epoch,
                                                 int64_t offset, int64_t timestamp,
                                                 int32_t partition_leader_epoch = -1);

}  // namespace mirra::records
