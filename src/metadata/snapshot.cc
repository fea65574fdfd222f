// Metadata snapshot files. Layout (all integers big-endian): docs/formats/metadata.md.
#include "metadata/snapshot.h"

#include <fmt/format.h>

#include "protocol/records/byte_order.h"
#include "protocol/records/crc32c.h"
#include "protocol/wire.h"
#include "storage/segment.h"

namespace mirra::metadata {
namespace {

constexpr int16_t kSnapshotVersion = 1;
// version int16 + crc uint32; the CRC covers every byte after it.
constexpr size_t kCrcAt = 2;
constexpr size_t kBodyAt = 6;
// last offset int64 + record count int32.
constexpr size_t kHeaderSize = kBodyAt + 12;
// Each record is an int32 length and at least a type and a version.
constexpr size_t kMinRecordSize = 4 + 4;

Status corrupt(int64_t end_offset, std::string message) {
  return Status(ErrorCode::CORRUPT_MESSAGE,
                fmt::format("metadata snapshot {}: {}", snapshot_file_name(end_offset), message));
}

}  // namespace

// Named like segment files ("<20 digits><suffix>"), so storage's name helpers serve.
std::string snapshot_file_name(int64_t end_offset) {
  return storage::segment_path({}, end_offset, kSnapshotSuffix).string();
}

std::optional<int64_t> parse_snapshot_file_name(std::string_view name) {
  return storage::parse_segment_name(std::filesystem::path(name), kSnapshotSuffix);
}

std::vector<uint8_t> encode_snapshot(const MetadataImage& image) {
  const std::vector<MetadataRecord> records = image_records(image);
  std::vector<uint8_t> out;
  protocol::Writer w(out);
  w.write_int16(kSnapshotVersion);
  w.write_uint32(0);  // the CRC, filled in below
  w.write_int64(image.last_offset());
  w.write_int32(static_cast<int32_t>(records.size()));
  for (const MetadataRecord& r : records) w.write_bytes(false, encode_record(r));
  const uint32_t crc = records::crc32c(std::span<const uint8_t>(out).subspan(kBodyAt));
  records::store_be32(out.data() + kCrcAt, crc);
  return out;
}

Result<MetadataImage> decode_snapshot(std::span<const uint8_t> bytes, int64_t end_offset) {
  if (bytes.size() < kHeaderSize)
    return corrupt(end_offset, fmt::format("{} bytes, shorter than the {}-byte header",
                                           bytes.size(), kHeaderSize));
  protocol::Reader r(bytes);
  const int16_t version = r.read_int16();
  if (version != kSnapshotVersion)
    return corrupt(end_offset, fmt::format("version {} (expected {})", version, kSnapshotVersion));
  const uint32_t crc = r.read_uint32();
  const uint32_t actual = records::crc32c(bytes.subspan(kBodyAt));
  if (crc != actual)
    return corrupt(end_offset,
                   fmt::format("CRC mismatch (stored {:08x}, computed {:08x})", crc, actual));
  const int64_t last_offset = r.read_int64();
  if (last_offset + 1 != end_offset)
    return corrupt(end_offset, fmt::format("holds offsets up to {}, the name says up to {}",
                                           last_offset, end_offset - 1));
  const int32_t count = r.read_int32();
  if (count < 0 || static_cast<size_t>(count) > r.remaining() / kMinRecordSize)
    return corrupt(end_offset, fmt::format("record count {} does not fit the file", count));
  std::vector<MetadataRecord> records;
  records.reserve(static_cast<size_t>(count));
  protocol::Bytes encoded;
  for (int32_t i = 0; i < count; ++i) {
    r.read_bytes(false, encoded);
    if (r.failed())
      return r.status(
          fmt::format("metadata snapshot {} record {}", snapshot_file_name(end_offset), i));
    auto record = decode_record(encoded);
    if (!record)
      return corrupt(end_offset, fmt::format("record {}: {}", i, record.status().message()));
    records.push_back(std::move(record).value());
  }
  if (r.remaining() != 0)
    return corrupt(end_offset,
                   fmt::format("{} trailing bytes after {} records", r.remaining(), count));
  auto image = image_from_records(records, last_offset);
  if (!image) return corrupt(end_offset, image.status().message());
  return image;
}

}  // namespace mirra::metadata
