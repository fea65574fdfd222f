#include "protocol/records/crc32c.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>

#if defined(__x86_64__)
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

// CRC-32C is linear over GF(2): feeding bytes through the register is a 32x32 bit matrix.
using Gf2Matrix = std::array<uint32_t, 32>;  // column i = image of bit i

constexpr uint32_t gf2_times(const Gf2Matrix& m, uint32_t v) {
  uint32_t sum = 0;
  for (size_t i = 0; v != 0; ++i, v >>= 1)
    if (v & 1) sum ^= m[i];
  return sum;
}

constexpr Gf2Matrix gf2_square(const Gf2Matrix& m) {
  Gf2Matrix sq{};
  for (size_t i = 0; i < 32; ++i) sq[i] = gf2_times(m, m[i]);
  return sq;
}

// kZeroPowers[k] feeds 2^k zero bytes through the register: any count of zero bytes is a
// product of at most one of each (crc32c_patch).
constexpr size_t kZeroPowerCount = 48;
using ZeroPowers = std::array<Gf2Matrix, kZeroPowerCount>;
constexpr ZeroPowers make_zero_powers() {
  Gf2Matrix one_bit{};  // one zero bit: shift right, fold the polynomial in when bit 0 was set
  one_bit[0] = kPoly;
  for (size_t i = 1; i < 32; ++i) one_bit[i] = uint32_t{1} << (i - 1);
  ZeroPowers powers{};
  powers[0] = gf2_square(gf2_square(gf2_square(one_bit)));  // 8 bits = one byte
  for (size_t k = 1; k < kZeroPowerCount; ++k) powers[k] = gf2_square(powers[k - 1]);
  return powers;
}
constexpr ZeroPowers kZeroPowers = make_zero_powers();

// The register `reg` carried through `n` zero bytes.
uint32_t feed_zeros(uint32_t reg, uint64_t n) {
  for (size_t k = 0; n != 0 && k < kZeroPowerCount; ++k, n >>= 1)
    if (n & 1) reg = gf2_times(kZeroPowers[k], reg);
  return reg;
}

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
namespace {

// The crc32 instruction has a latency of 3 cycles but a throughput of 1 per cycle, so one
// dependent chain uses a third of it. The hardware path therefore runs three chains over three
// adjacent blocks and merges them: the CRC register after A||B equals (register after A, carried
// through |B| zero bytes) xor (CRC of B from a zero register). "Carry through n zero bytes" is a
// linear map on 32 bits, precomputed below as four byte-indexed tables per block size.

constexpr size_t kLongBlockLog2 = 13;
constexpr size_t kShortBlockLog2 = 8;
constexpr size_t kLongBlock = size_t{1} << kLongBlockLog2;    // 8192
constexpr size_t kShortBlock = size_t{1} << kShortBlockLog2;  // 256

using ShiftTables = std::array<std::array<uint32_t, 256>, 4>;

// `op` feeds a block's worth of zero bytes through the register (kZeroPowers).
constexpr ShiftTables make_shift_tables(const Gf2Matrix& op) {
  ShiftTables t{};
  for (uint32_t b = 0; b < 256; ++b)
    for (size_t k = 0; k < 4; ++k) t[k][b] = gf2_times(op, b << (8 * k));
  return t;
}

constexpr ShiftTables kShiftLong = make_shift_tables(kZeroPowers[kLongBlockLog2]);
constexpr ShiftTables kShiftShort = make_shift_tables(kZeroPowers[kShortBlockLog2]);

inline uint32_t shift(const ShiftTables& t, uint32_t crc) {
  return t[0][crc & 0xff] ^ t[1][(crc >> 8) & 0xff] ^ t[2][(crc >> 16) & 0xff] ^ t[3][crc >> 24];
}

// Three interleaved chains over 3 * block bytes starting at p; returns the merged register.
template <size_t Block>
__attribute__((target("sse4.2"))) inline uint32_t crc_three_way(uint32_t crc, const uint8_t* p,
                                                                const ShiftTables& t) {
  uint64_t c0 = crc, c1 = 0, c2 = 0;
  for (size_t i = 0; i < Block; i += 8) {
    uint64_t a, b, c;
    std::memcpy(&a, p + i, 8);
    std::memcpy(&b, p + Block + i, 8);
    std::memcpy(&c, p + 2 * Block + i, 8);
    c0 = _mm_crc32_u64(c0, a);
    c1 = _mm_crc32_u64(c1, b);
    c2 = _mm_crc32_u64(c2, c);
  }
  uint32_t merged = shift(t, static_cast<uint32_t>(c0)) ^ static_cast<uint32_t>(c1);
  return shift(t, merged) ^ static_cast<uint32_t>(c2);
}

}  // namespace

__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(const void* data, size_t n, uint32_t seed) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t crc = ~seed;
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    crc = _mm_crc32_u8(crc, *p++);
    --n;
  }
#if defined(__x86_64__)
  for (; n >= 3 * kLongBlock; p += 3 * kLongBlock, n -= 3 * kLongBlock)
    crc = crc_three_way<kLongBlock>(crc, p, kShiftLong);
  for (; n >= 3 * kShortBlock; p += 3 * kShortBlock, n -= 3 * kShortBlock)
    crc = crc_three_way<kShortBlock>(crc, p, kShiftShort);
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

uint32_t crc32c_patch(uint32_t crc, size_t length, size_t at, std::span<const uint8_t> before,
                      std::span<const uint8_t> after) {
  // With a zero register and no final inversion, the CRC of old xor new bytes (zeros elsewhere:
  // leading zeros leave a zero register as it is) is exactly the difference of the two CRCs.
  uint8_t delta[64];
  uint32_t reg = 0;
  for (size_t done = 0; done < before.size(); done += sizeof delta) {
    const size_t n = std::min(sizeof delta, before.size() - done);
    for (size_t i = 0; i < n; ++i) delta[i] = before[done + i] ^ after[done + i];
    reg = ~crc32c(delta, n, ~reg);  // crc32c() inverts on the way in and out
  }
  return crc ^ feed_zeros(reg, length - at - before.size());
}

uint32_t crc32c(const void* data, size_t n, uint32_t seed) {
  if (crc32c_hardware_available() && !g_force_portable.load(std::memory_order_relaxed))
    return crc32c_sse42(data, n, seed);
  return crc32c_portable(data, n, seed);
}

}  // namespace mirra::records
