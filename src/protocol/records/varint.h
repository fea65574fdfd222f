// Zig-zag varints as used inside v2 records (lengths, deltas, header counts).
//
// These are NOT the unsigned varints of flexible-version compact lengths: a record's value -1
// (null) is encoded as zig-zag 1. Readers are bounds-checked and reject over-long encodings
// (more than 5 bytes for a varint, 10 for a varlong, or high bits set in the last byte), so a
// hostile buffer can never make them read past its end or produce a silently truncated value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace mirra::records {

inline constexpr size_t kMaxVarintBytes = 5;
inline constexpr size_t kMaxVarlongBytes = 10;

inline constexpr uint64_t zigzag_encode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline constexpr int64_t zigzag_decode(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

// Reads an unsigned base-128 value of at most `max_bytes` bytes whose total width is `bits`.
// Returns the number of bytes consumed, or 0 when truncated or malformed.
inline size_t read_uvarint_bits(std::span<const uint8_t> in, size_t max_bytes, unsigned bits,
                                uint64_t& out) {
  uint64_t value = 0;
  const size_t limit = in.size() < max_bytes ? in.size() : max_bytes;
  for (size_t i = 0; i < limit; ++i) {
    const uint64_t b = in[i];
    const unsigned shift = static_cast<unsigned>(7 * i);
    // The last permitted byte may only carry the bits that are left of the type's width.
    if (i + 1 == max_bytes && (b >> (bits - shift)) != 0) return 0;
    value |= (b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      out = value;
      return i + 1;
    }
  }
  return 0;
}

// Zig-zag int32. Returns bytes consumed, 0 on truncated/malformed input.
inline size_t read_varint(std::span<const uint8_t> in, int32_t& out) {
  uint64_t raw = 0;
  const size_t n = read_uvarint_bits(in, kMaxVarintBytes, 32, raw);
  if (n != 0) out = static_cast<int32_t>(zigzag_decode(raw));
  return n;
}

// Zig-zag int64. Returns bytes consumed, 0 on truncated/malformed input.
inline size_t read_varlong(std::span<const uint8_t> in, int64_t& out) {
  uint64_t raw = 0;
  const size_t n = read_uvarint_bits(in, kMaxVarlongBytes, 64, raw);
  if (n != 0) out = zigzag_decode(raw);
  return n;
}

inline size_t uvarint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
inline size_t varint_size(int32_t v) { return uvarint_size(zigzag_encode(v) & 0xffffffffu); }
inline size_t varlong_size(int64_t v) { return uvarint_size(zigzag_encode(v)); }

// Writes to `out`, which must have room for kMaxVarlongBytes. Returns bytes written.
inline size_t write_uvarint(uint8_t* out, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    out[n++] = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  out[n++] = static_cast<uint8_t>(v);
  return n;
}
// The int32 zig-zag value fits in 32 bits, so the mask keeps it at <= 5 bytes.
inline size_t write_varint(uint8_t* out, int32_t v) {
  return write_uvarint(out, zigzag_encode(v) & 0xffffffffu);
}
inline size_t write_varlong(uint8_t* out, int64_t v) {
  return write_uvarint(out, zigzag_encode(v));
}

inline void append_varint(std::vector<uint8_t>& out, int32_t v) {
  uint8_t tmp[kMaxVarintBytes];
  out.insert(out.end(), tmp, tmp + write_varint(tmp, v));
}
inline void append_varlong(std::vector<uint8_t>& out, int64_t v) {
  uint8_t tmp[kMaxVarlongBytes];
  out.insert(out.end(), tmp, tmp + write_varlong(tmp, v));
}

}  // namespace mirra::records
