#include "protocol/records/batch_builder.h"

#include <algorithm>
#include <climits>
#include <string>

#include "protocol/records/byte_order.h"
#include "protocol/records/crc32c.h"
#include "protocol/records/varint.h"

namespace mirra::records {
namespace {

Status invalid(std::string msg) { return Status(ErrorCode::INVALID_REQUEST, std::move(msg)); }

constexpr size_t kMaxField = INT32_MAX;

size_t nullable_size(const NullableBytes& b) {
  return b ? varint_size(static_cast<int32_t>(b->size())) + b->size() : varint_size(-1);
}

void append_nullable(std::vector<uint8_t>& out, const NullableBytes& b) {
  if (!b) {
    append_varint(out, -1);
    return;
  }
  append_varint(out, static_cast<int32_t>(b->size()));
  out.insert(out.end(), b->begin(), b->end());
}

bool fits(const NullableBytes& b) { return !b || b->size() <= kMaxField; }

// Size of the record after its length prefix; computed first so the prefix can be written
// before the fields without a second pass or a temporary buffer.
size_t body_size(const RecordInput& r, int64_t ts_delta, int32_t offset_delta) {
  size_t n = 1 + varlong_size(ts_delta) + varint_size(offset_delta) + nullable_size(r.key) +
             nullable_size(r.value) + varint_size(static_cast<int32_t>(r.headers.size()));
  for (const HeaderInput& h : r.headers)
    n += nullable_size(as_bytes(h.key)) + nullable_size(h.value);
  return n;
}

Status check_sizes(const RecordInput& r) {
  if (!fits(r.key) || !fits(r.value) || r.headers.size() > kMaxField)
    return invalid("record key, value or header count too large for a batch");
  for (const HeaderInput& h : r.headers)
    if (h.key.size() > kMaxField || !fits(h.value)) return invalid("record header too large");
  return Status();
}

}  // namespace

BatchBuilder::BatchBuilder(const BatchOptions& options) : options_(options) {
  out_.resize(layout::kHeaderSize);  // filled in by finish()
}

std::span<const uint8_t> BatchBuilder::records() const {
  if (staged()) return staging_;
  return std::span<const uint8_t>(out_).subspan(layout::kHeaderSize);
}

Status BatchBuilder::append(const RecordInput& r) {
  if (finished_) return invalid("BatchBuilder::append after finish()");
  const int32_t delta = r.offset_delta.value_or(last_offset_delta_ + 1);
  if (delta <= last_offset_delta_ || delta < 0)
    return invalid("offset delta " + std::to_string(delta) + " does not increase (previous " +
                   std::to_string(last_offset_delta_) + ")");
  if (count_ == INT32_MAX) return invalid("too many records for one batch");
  if (Status st = check_sizes(r); !st) return st;
  if (count_ == 0) base_timestamp_ = r.timestamp;
  // Wrapping, as Java's long arithmetic: record_timestamp(base, delta) gives r.timestamp back.
  const int64_t ts_delta = static_cast<int64_t>(static_cast<uint64_t>(r.timestamp) -
                                                static_cast<uint64_t>(base_timestamp_));
  const size_t body = body_size(r, ts_delta, delta);
  if (body > kMaxField || records_size() + body > kMaxField)
    return invalid("batch would exceed 2 GiB");

  std::vector<uint8_t>& out = records_buffer();
  append_varint(out, static_cast<int32_t>(body));
  out.push_back(0);  // record attributes: unused in v2
  append_varlong(out, ts_delta);
  append_varint(out, delta);
  append_nullable(out, r.key);
  append_nullable(out, r.value);
  append_varint(out, static_cast<int32_t>(r.headers.size()));
  for (const HeaderInput& h : r.headers) {
    append_nullable(out, as_bytes(h.key));
    append_nullable(out, h.value);
  }
  last_offset_delta_ = delta;
  max_timestamp_ = count_ == 0 ? r.timestamp : std::max(max_timestamp_, r.timestamp);
  ++count_;
  return Status();
}

void BatchBuilder::write_header(int16_t attributes) {
  uint8_t* h = out_.data();
  const int64_t max_ts = options_.timestamp_type == TimestampType::log_append_time
                             ? options_.log_append_time
                             : max_timestamp_;
  store_be64(h + layout::kBaseOffset, static_cast<uint64_t>(options_.base_offset));
  store_be32(h + layout::kBatchLength, static_cast<uint32_t>(out_.size() - layout::kLogOverhead));
  store_be32(h + layout::kPartitionLeaderEpoch,
             static_cast<uint32_t>(options_.partition_leader_epoch));
  h[layout::kMagic] = static_cast<uint8_t>(kMagicV2);
  store_be16(h + layout::kAttributes, static_cast<uint16_t>(attributes));
  store_be32(h + layout::kLastOffsetDelta, static_cast<uint32_t>(last_offset_delta_));
  store_be64(h + layout::kBaseTimestamp, static_cast<uint64_t>(base_timestamp_));
  store_be64(h + layout::kMaxTimestamp, static_cast<uint64_t>(max_ts));
  store_be64(h + layout::kProducerId, static_cast<uint64_t>(options_.producer_id));
  store_be16(h + layout::kProducerEpoch, static_cast<uint16_t>(options_.producer_epoch));
  store_be32(h + layout::kBaseSequence, static_cast<uint32_t>(options_.base_sequence));
  store_be32(h + layout::kRecordCount, static_cast<uint32_t>(count_));
  // Last: the CRC covers every header field after itself.
  store_be32(h + layout::kCrc, crc32c(h + layout::kCrcStart, out_.size() - layout::kCrcStart));
}

Result<std::vector<uint8_t>> BatchBuilder::finish() {
  if (finished_) return invalid("BatchBuilder::finish called twice");
  if (count_ == 0) return invalid("a record batch needs at least one record");
  finished_ = true;
  if (staged()) {
    if (Status st = compress(options_.compression, staging_, out_, options_.compress_options); !st)
      return st;
  }
  if (out_.size() - layout::kLogOverhead > kMaxField) return invalid("batch exceeds 2 GiB");
  int16_t attributes = static_cast<int16_t>(options_.compression);
  if (options_.timestamp_type == TimestampType::log_append_time) attributes |= attr::kLogAppendTime;
  if (options_.transactional) attributes |= attr::kTransactional;
  if (options_.control) attributes |= attr::kControl;
  write_header(attributes);
  return std::move(out_);
}

Result<std::vector<uint8_t>> build_batch(const BatchOptions& options,
                                         std::span<const RecordInput> records) {
  BatchBuilder builder(options);
  for (const RecordInput& r : records)
    if (Status st = builder.append(r); !st) return st;
  return builder.finish();
}

Result<std::vector<uint8_t>> build_control_batch(ControlType type, int64_t producer_id,
                                                 int16_t producer_epoch, int32_t coordinator_epoch,
                                                 int64_t offset, int64_t timestamp,
                                                 int32_t partition_leader_epoch) {
  uint8_t key[4];
  store_be16(key, 0);  // control record key version
  store_be16(key + 2, static_cast<uint16_t>(type));
  uint8_t value[6];
  store_be16(value, 0);  // end-transaction-marker version
  store_be32(value + 2, static_cast<uint32_t>(coordinator_epoch));

  BatchOptions options;
  options.base_offset = offset;
  options.partition_leader_epoch = partition_leader_epoch;
  options.producer_id = producer_id;
  options.producer_epoch = producer_epoch;
  options.transactional = true;  // markers are always transactional control batches
  options.control = true;
  RecordInput marker;
  marker.key = Bytes(key);
  marker.value = Bytes(value);
  marker.timestamp = timestamp;
  const RecordInput records[] = {marker};
  return build_batch(options, records);
}

}  // namespace mirra::records
