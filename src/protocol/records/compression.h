// Compression codecs of record batch v2 (attributes bits 0-2).
//
// Everything a batch's records section can be compressed with: gzip (a gzip stream), snappy
// (raw, as librdkafka writes it, or Java's xerial framing; decompression accepts both), lz4 (the
// LZ4 frame format) and zstd (plain frames). Decompression never trusts a size declared inside
// the compressed data: output is grown step by step and capped at `max_output`, so a small
// "decompression bomb" cannot make the broker allocate gigabytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mirra::records {

enum class Compression : uint8_t { none = 0, gzip = 1, snappy = 2, lz4 = 3, zstd = 4 };

inline constexpr size_t kDefaultMaxDecompressedSize = size_t{256} << 20;  // 256 MiB

// "none", "gzip", "snappy", "lz4", "zstd"; "unknown" otherwise.
std::string_view compression_name(Compression c);

// The codec of the 3-bit attribute value; UNSUPPORTED_COMPRESSION_TYPE for 5..7.
Result<Compression> compression_from_id(int id);

struct CompressOptions {
  // Codec-specific level; 0 = the codec's default (gzip 6, lz4 fast, zstd 3).
  int level = 0;
  // Snappy only: write Java's xerial framing instead of raw snappy (librdkafka's choice).
  bool snappy_xerial = false;
};

// Appends the compressed form of `in` to `out`. Compression::none appends `in` unchanged.
Status compress(Compression codec, std::span<const uint8_t> in, std::vector<uint8_t>& out,
                const CompressOptions& options = {});

// Appends the decompressed form of `in` to `out`; fails with CORRUPT_MESSAGE if the data is
// malformed or would decompress to more than `max_output` bytes. `out` keeps its capacity, so a
// caller that reuses one buffer decompresses without allocating once it has grown.
Status decompress(Compression codec, std::span<const uint8_t> in, std::vector<uint8_t>& out,
                  size_t max_output = kDefaultMaxDecompressedSize);

// True when `in` starts with the xerial snappy stream header (magic 0x82 "SNAPPY" 0).
bool is_xerial_snappy(std::span<const uint8_t> in);

}  // namespace mirra::records
