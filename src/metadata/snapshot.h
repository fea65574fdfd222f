// Metadata snapshot files: the whole image at one offset, so that opening the metadata log
// replays only the records after it. Layout: docs/formats/metadata.md.
//
// A file is named "<20-digit end offset>.checkpoint" (in the metadata log's partition
// directory): the end offset is image.last_offset() + 1, where replay resumes. The suffix
// differs from the producer-state ".snapshot" files that storage keeps in the same directory.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "metadata/image.h"

namespace mirra::metadata {

inline constexpr std::string_view kSnapshotSuffix = ".checkpoint";

std::string snapshot_file_name(int64_t end_offset);
// "<20 digits>.checkpoint" -> its end offset; anything else (temp files included) -> nullopt.
std::optional<int64_t> parse_snapshot_file_name(std::string_view name);

std::vector<uint8_t> encode_snapshot(const MetadataImage& image);
// Refuses (CORRUPT_MESSAGE, saying what is wrong) a short file, an unknown version, a CRC
// mismatch, an end offset other than `end_offset` (the file name's), a record that does not
// decode or apply, and trailing bytes.
Result<MetadataImage> decode_snapshot(std::span<const uint8_t> bytes, int64_t end_offset);

}  // namespace mirra::metadata
