// Record batch v2: a zero-copy view over the wire bytes, validation, in-place patches.
//
// Mirra keeps batches as the exact bytes the producer (or the mirrored source) sent, so almost
// everything here reads or patches fields at fixed offsets inside a span it does not own.
// Only record iteration over a compressed batch needs memory, and that goes into a buffer the
// caller owns and reuses.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <span>

#include "base/status.h"
#include "protocol/records/byte_order.h"
#include "protocol/records/compression.h"

namespace mirra::records {

// Byte offsets of the v2 batch header (all integers big-endian). The CRC covers everything from
// kAttributes to the end of the batch; baseOffset, batchLength and partitionLeaderEpoch lie
// before it, which is why the broker can assign offsets and stamp epochs without re-checksumming.
namespace layout {
inline constexpr size_t kBaseOffset = 0;             // int64, assigned by the leader
inline constexpr size_t kBatchLength = 8;            // int32, bytes after this field
inline constexpr size_t kPartitionLeaderEpoch = 12;  // int32, stamped by the leader
inline constexpr size_t kMagic = 16;                 // int8, 2 (same offset in v0/v1 messages)
inline constexpr size_t kCrc = 17;                   // uint32, CRC-32C of [kAttributes, end)
inline constexpr size_t kAttributes = 21;            // int16, see attr:: below
inline constexpr size_t kLastOffsetDelta = 23;       // int32
inline constexpr size_t kBaseTimestamp = 27;         // int64
inline constexpr size_t kMaxTimestamp = 35;          // int64
inline constexpr size_t kProducerId = 43;            // int64, -1 = none
inline constexpr size_t kProducerEpoch = 51;         // int16
inline constexpr size_t kBaseSequence = 53;          // int32
inline constexpr size_t kRecordCount = 57;           // int32
inline constexpr size_t kHeaderSize = 61;            // records (or one compressed blob) follow
inline constexpr size_t kLogOverhead = 12;           // baseOffset + batchLength
inline constexpr size_t kCrcStart = kAttributes;
// The smallest legal batchLength: a header with no records.
inline constexpr int32_t kMinBatchLength = static_cast<int32_t>(kHeaderSize - kLogOverhead);
}  // namespace layout

namespace attr {
inline constexpr int16_t kCompressionMask = 0x07;
inline constexpr int16_t kLogAppendTime = 0x08;
inline constexpr int16_t kTransactional = 0x10;
inline constexpr int16_t kControl = 0x20;
inline constexpr int16_t kDeleteHorizon = 0x40;
}  // namespace attr

inline constexpr int8_t kMagicV2 = 2;

enum class TimestampType : uint8_t { create_time = 0, log_append_time = 1 };

// The status for a v0/v1 message set: clear enough that an operator knows what to change.
Status unsupported_magic_status(int magic);

// A read-only view of one v2 batch. Cheap to copy; valid while the underlying bytes live.
class BatchView {
 public:
  BatchView() = default;

  // Checks what is needed to read the header safely: enough bytes for the header, magic 2, a
  // batchLength that is at least a header and fits inside `bytes`. The view covers exactly
  // 12 + batchLength bytes (trailing bytes are the caller's business). The CRC is not checked
  // here: call validate().
  static Result<BatchView> parse(std::span<const uint8_t> bytes);

  // CRC-32C, record count vs lastOffsetDelta, codec id, and a record count that could fit.
  Status validate() const;

  int64_t base_offset() const { return i64(layout::kBaseOffset); }
  int32_t batch_length() const { return i32(layout::kBatchLength); }
  int32_t partition_leader_epoch() const { return i32(layout::kPartitionLeaderEpoch); }
  int8_t magic() const { return static_cast<int8_t>(bytes_[layout::kMagic]); }
  uint32_t crc() const { return load_be32(bytes_.data() + layout::kCrc); }
  int16_t attributes() const {
    return static_cast<int16_t>(load_be16(bytes_.data() + layout::kAttributes));
  }
  int32_t last_offset_delta() const { return i32(layout::kLastOffsetDelta); }
  int64_t base_timestamp() const { return i64(layout::kBaseTimestamp); }
  int64_t max_timestamp() const { return i64(layout::kMaxTimestamp); }
  int64_t producer_id() const { return i64(layout::kProducerId); }
  int16_t producer_epoch() const {
    return static_cast<int16_t>(load_be16(bytes_.data() + layout::kProducerEpoch));
  }
  int32_t base_sequence() const { return i32(layout::kBaseSequence); }
  int32_t record_count() const { return i32(layout::kRecordCount); }

  int compression_id() const { return attributes() & attr::kCompressionMask; }
  // Meaningful after validate() succeeded (which rejects ids 5..7).
  Compression compression() const { return static_cast<Compression>(compression_id()); }
  TimestampType timestamp_type() const {
    return (attributes() & attr::kLogAppendTime) ? TimestampType::log_append_time
                                                 : TimestampType::create_time;
  }
  bool is_transactional() const { return (attributes() & attr::kTransactional) != 0; }
  bool is_control() const { return (attributes() & attr::kControl) != 0; }
  bool has_delete_horizon() const { return (attributes() & attr::kDeleteHorizon) != 0; }

  int64_t last_offset() const { return base_offset() + last_offset_delta(); }
  int64_t next_offset() const { return last_offset() + 1; }
  // The CRC the header should hold, computed over [kCrcStart, end).
  uint32_t compute_crc() const;

  std::span<const uint8_t> bytes() const { return bytes_; }
  size_t size() const { return bytes_.size(); }
  // The records section: records as-is, or the single compressed blob.
  std::span<const uint8_t> payload() const { return bytes_.subspan(layout::kHeaderSize); }

 private:
  explicit BatchView(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  int32_t i32(size_t at) const { return static_cast<int32_t>(load_be32(bytes_.data() + at)); }
  int64_t i64(size_t at) const { return static_cast<int64_t>(load_be64(bytes_.data() + at)); }

  std::span<const uint8_t> bytes_;
};

// In-place patches of fields outside the CRC (offset assignment on append, epoch stamping).
// `batch` must hold at least a v2 header; fails with CORRUPT_MESSAGE otherwise.
Status patch_base_offset(std::span<uint8_t> batch, int64_t base_offset);
Status patch_leader_epoch(std::span<uint8_t> batch, int32_t epoch);

// docs/mirroring-design.md §2: the producer id of a mirrored batch. p >= 0 becomes -(p + 2) (so -2,
// -3, ..., never colliding with the destination's own ids or with -1); -1 stays -1; other negatives
// (already mirrored) stay as they are. INT64_MAX has no image (rewrite_producer_id refuses it).
constexpr int64_t mirrored_producer_id(int64_t p) { return p >= 0 && p < INT64_MAX ? -p - 2 : p; }

// Rewrites the producer id as above and patches the CRC (crc32c_patch: no pass over the
// records); every other byte stays identical. The CRC is patched, never recomputed, so a batch
// that was corrupt stays corrupt and BatchView::validate() (which every append runs) still
// refuses it. The whole batch must be in `batch` (exactly 12 + batchLength bytes or more).
Status rewrite_producer_id(std::span<uint8_t> batch);

}  // namespace mirra::records
