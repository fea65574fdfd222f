// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): the checksum of record batch v2.
//
// Two implementations behind one entry point: the SSE4.2 `crc32` instruction, picked at run time
// when the CPU has it (over 10x faster; three interleaved chains), and a portable slicing-by-8
// table walk for other CPUs.
// Both give identical results; tests and benchmarks can force the portable one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace mirra::records {

// CRC-32C of `n` bytes. `seed` is a previous result to continue from, so
// crc32c(b, nb, crc32c(a, na)) == crc32c(a||b). Start with 0.
uint32_t crc32c(const void* data, size_t n, uint32_t seed = 0);
inline uint32_t crc32c(std::span<const uint8_t> bytes, uint32_t seed = 0) {
  return crc32c(bytes.data(), bytes.size(), seed);
}

// The CRC-32C of a buffer of `length` bytes after the bytes at [at, at + before.size()) changed
// from `before` to `after` (same sizes), given `crc`, its CRC before the change. CRC-32C is
// linear, so the new CRC depends only on the old one, the xor of old and new bytes, and how many
// bytes follow them: O(changed bytes + log length) instead of a pass over the whole buffer. A
// `crc` that did not match the old bytes misses the new ones by the same difference, so a
// corrupt buffer stays detectably corrupt.
uint32_t crc32c_patch(uint32_t crc, size_t length, size_t at, std::span<const uint8_t> before,
                      std::span<const uint8_t> after);

// The two implementations, callable directly (benchmarks, agreement tests).
// crc32c_sse42 must only be called when crc32c_hardware_available() is true.
uint32_t crc32c_portable(const void* data, size_t n, uint32_t seed = 0);
uint32_t crc32c_sse42(const void* data, size_t n, uint32_t seed = 0);
bool crc32c_hardware_available();

// Makes crc32c() use the portable path even on SSE4.2 CPUs (process-wide; for tests and
// benchmarks only). Returns the previous setting.
bool crc32c_force_portable(bool force);

}  // namespace mirra::records
