#include "protocol/records/record_batch.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "protocol/records/crc32c.h"

namespace mirra::records {
namespace {

Status corrupt(std::string msg) { return Status(ErrorCode::CORRUPT_MESSAGE, std::move(msg)); }

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// Shared by the patch functions: enough bytes for a v2 header, and magic 2, so that a patch
// never scribbles over something that is not a v2 batch.
Status check_patchable(std::span<const uint8_t> batch) {
  if (batch.size() < layout::kHeaderSize)
    return corrupt("record batch too short to patch: " + std::to_string(batch.size()) +
                   " bytes, the v2 header alone is 61");
  const int magic = static_cast<int8_t>(batch[layout::kMagic]);
  if (magic != kMagicV2) return unsupported_magic_status(magic);
  return Status();
}

}  // namespace

Status unsupported_magic_status(int magic) {
  if (magic == 0 || magic == 1)
    return Status(ErrorCode::UNSUPPORTED_VERSION,
                  "message format v0/v1 (magic " + std::to_string(magic) +
                      ") is not supported; Mirra accepts record batch v2 only");
  return corrupt("unknown record batch magic " + std::to_string(magic) + " (expected 2)");
}

Result<BatchView> BatchView::parse(std::span<const uint8_t> bytes) {
  // v0/v1 messages keep the magic byte at offset 16 too, so an old client's data is recognised
  // by name even when it is shorter than a v2 header.
  if (bytes.size() > layout::kMagic) {
    const int magic = static_cast<int8_t>(bytes[layout::kMagic]);
    if (magic != kMagicV2) return unsupported_magic_status(magic);
  }
  if (bytes.size() < layout::kHeaderSize)
    return corrupt("record batch truncated: " + std::to_string(bytes.size()) +
                   " bytes, the v2 header alone is 61");
  const auto length = static_cast<int32_t>(load_be32(bytes.data() + layout::kBatchLength));
  if (length < layout::kMinBatchLength)
    return corrupt("record batch length " + std::to_string(length) +
                   " is smaller than the v2 header (49)");
  const size_t total = layout::kLogOverhead + static_cast<size_t>(length);
  if (total > bytes.size())
    return corrupt("record batch truncated: batchLength says " + std::to_string(total) +
                   " bytes, only " + std::to_string(bytes.size()) + " present");
  return BatchView(bytes.first(total));
}

uint32_t BatchView::compute_crc() const { return crc32c(bytes_.subspan(layout::kCrcStart)); }

Status BatchView::validate() const {
  const uint32_t computed = compute_crc();
  if (computed != crc())
    return corrupt("record batch at offset " + std::to_string(base_offset()) +
                   ": CRC-32C mismatch (stored " + hex32(crc()) + ", computed " + hex32(computed) +
                   ")");
  if (auto c = compression_from_id(compression_id()); !c) return c.status();
  const int32_t count = record_count();
  const int32_t last_delta = last_offset_delta();
  if (count < 0) return corrupt("negative record count " + std::to_string(count));
  if (last_delta < 0) return corrupt("negative lastOffsetDelta " + std::to_string(last_delta));
  // Compaction may remove records but never renumbers them, so count <= lastOffsetDelta + 1.
  if (count > 0 && last_delta < count - 1)
    return corrupt("lastOffsetDelta " + std::to_string(last_delta) + " is too small for " +
                   std::to_string(count) + " records");
  // An uncompressed record takes at least 7 bytes (six 1-byte fields plus its length), so a
  // larger count is a lie that iteration would otherwise discover only at the end.
  constexpr size_t kMinRecordSize = 7;
  if (compression_id() == 0 && static_cast<size_t>(count) * kMinRecordSize > payload().size())
    return corrupt("record count " + std::to_string(count) + " cannot fit in " +
                   std::to_string(payload().size()) + " bytes of records");
  return Status();
}

Status patch_base_offset(std::span<uint8_t> batch, int64_t base_offset) {
  if (Status st = check_patchable(batch); !st) return st;
  store_be64(batch.data() + layout::kBaseOffset, static_cast<uint64_t>(base_offset));
  return Status();
}

Status patch_leader_epoch(std::span<uint8_t> batch, int32_t epoch) {
  if (Status st = check_patchable(batch); !st) return st;
  store_be32(batch.data() + layout::kPartitionLeaderEpoch, static_cast<uint32_t>(epoch));
  return Status();
}

Status rewrite_producer_id(std::span<uint8_t> batch) {
  auto view = BatchView::parse(batch);
  if (!view) return view.status();
  const int64_t p = view->producer_id();
  if (p == INT64_MAX) return corrupt("producer id " + std::to_string(p) + " has no mirrored form");
  const int64_t rewritten = mirrored_producer_id(p);
  if (rewritten == p) return Status();  // -1 or already mirrored: bytes stay identical
  uint8_t* base = batch.data();
  uint8_t before[8];
  std::memcpy(before, base + layout::kProducerId, sizeof before);
  store_be64(base + layout::kProducerId, static_cast<uint64_t>(rewritten));
  const uint32_t crc = crc32c_patch(view->crc(), view->size() - layout::kCrcStart,
                                    layout::kProducerId - layout::kCrcStart, before,
                                    {base + layout::kProducerId, sizeof before});
  store_be32(base + layout::kCrc, crc);
  return Status();
}

}  // namespace mirra::records
