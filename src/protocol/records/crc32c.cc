#include "protocol/records/crc32c.h"

#include <array>
#include <atomic>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define MIRRA_CRC32C_X86 1
#else
#define MIRRA_CRC32C_X86 0
#endif

namespace mirra::records {
namespace {

constexpr uint32_t kPoly = 0x82F63B78u;  // Castagnoli, bit-reversed

// tables[k][b] = CRC of byte b followed by k zero bytes; lets the loop fold 8 bytes per step
// with 8 independent lookups instead of 8 dependent ones.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables make_tables() {
  Tables t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int i = 0; i < 8; ++i) c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
    t[0][b] = c;
  }
  for (size_t k = 1; k < 8; ++k)
    for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
  return t;
}

constexpr Tables kTables = make_tables();

std::atomic<bool> g_force_portable{false};

bool detect_sse42() {
#if MIRRA_CRC32C_X86
  return __builtin_cpu_supports("sse4.2");
#else
  return false;
#endif
}

}  // namespace

uint32_t crc32c_portable(const void* data, size_t n, uint32_t seed) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t crc = ~seed;
  // Byte steps until 8-byte aligned, so the wide loads below are aligned (cheaper on old CPUs).
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    crc = (crc >> 8) ^ kTables[0][(crc ^ *p++) & 0xff];
    --n;
  }
  while (n >= 8) {
    uint32_t lo;
    uint32_t hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    lo ^= crc;  // little-endian host: byte 0 of the block meets the low byte of crc
    crc = kTables[7][lo & 0xff] ^ kTables[6][(lo >> 8) & 0xff] ^ kTables[5][(lo >> 16) & 0xff] ^
          kTables[4][lo >> 24] ^ kTables[3][hi & 0xff] ^ kTables[2][(hi >> 8) & 0xff] ^
          kTables[1][(hi >> 16) & 0xff] ^ kTables[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) crc = (crc >> 8) ^ kTables[0][(crc ^ *p++) & 0xff];
  return ~crc;
}

#if MIRRA_CRC32C_X86
__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(const void* data, size_t n,
                                                         uint32_t seed) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t crc = ~seed;
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    crc = _mm_crc32_u8(crc, *p++);
    --n;
  }
#if defined(__x86_64__)
  uint64_t crc64 = crc;
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    crc64 = _mm_crc32_u64(crc64, v);
    p += 8;
    n -= 8;
  }
  crc = static_cast<uint32_t>(crc64);
#endif
  while (n >= 4) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    crc = _mm_crc32_u32(crc, v);
    p += 4;
    n -= 4;
  }
  while (n-- > 0) crc = _mm_crc32_u8(crc, *p++);
  return ~crc;
}
#else
uint32_t crc32c_sse42(const void* data, size_t n, uint32_t seed) {
  return crc32c_portable(data, n, seed);  // no such instruction here; keep the symbol linkable
}
#endif

bool crc32c_hardware_available() {
  static const bool available = detect_sse42();
  return available;
}

bool crc32c_force_portable(bool force) { return g_force_portable.exchange(force); }

uint32_t crc32c(const void* data, size_t n, uint32_t seed) {
  if (crc32c_hardware_available() && !g_force_portable.load(std::memory_order_relaxed))
    return crc32c_sse42(data, n, seed);
  return crc32c_portable(data, n, seed);
}

}  // namespace mirra::records
