#include "protocol/records/crc32c.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace mirra::records {
namespace {

// Runs a check with the dispatching crc32c() on the portable path, restoring the setting after.
struct ForcePortable {
  ForcePortable() : previous(crc32c_force_portable(true)) {}
  ~ForcePortable() { crc32c_force_portable(previous); }
  bool previous;
};

uint32_t crc_of(const std::vector<uint8_t>& v) { return crc32c(v.data(), v.size()); }

TEST(Crc32c, CheckValue) {
  const std::string s = "123456789";
  EXPECT_EQ(crc32c(s.data(), s.size()), 0xE3069283u);
  EXPECT_EQ(crc32c_portable(s.data(), s.size()), 0xE3069283u);
}

TEST(Crc32c, EmptyIsZero) {
  EXPECT_EQ(crc32c(nullptr, 0), 0u);
  EXPECT_EQ(crc32c_portable(nullptr, 0), 0u);
}

// RFC 3720 appendix B.4 (iSCSI) vectors.
TEST(Crc32c, IscsiVectors) {
  std::vector<uint8_t> zeros(32, 0x00), ones(32, 0xFF), inc(32), dec(32);
  for (int i = 0; i < 32; ++i) {
    inc[i] = static_cast<uint8_t>(i);
    dec[i] = static_cast<uint8_t>(31 - i);
  }
  const std::vector<uint8_t> pdu = {0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
                                    0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
                                    0x00, 0x18, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  for (bool portable : {false, true}) {
    ForcePortable* force = portable ? new ForcePortable : nullptr;
    EXPECT_EQ(crc_of(zeros), 0x8A9136AAu) << portable;
    EXPECT_EQ(crc_of(ones), 0x62A8AB43u) << portable;
    EXPECT_EQ(crc_of(inc), 0x46DD794Eu) << portable;
    EXPECT_EQ(crc_of(dec), 0x113FDB5Cu) << portable;
    EXPECT_EQ(crc_of(pdu), 0xD9963A56u) << portable;
    delete force;
  }
}

TEST(Crc32c, SeedChainsLikeConcatenation) {
  const std::string a = "hello, ", b = "record batches";
  const std::string ab = a + b;
  EXPECT_EQ(crc32c(b.data(), b.size(), crc32c(a.data(), a.size())), crc32c(ab.data(), ab.size()));
  EXPECT_EQ(crc32c_portable(b.data(), b.size(), crc32c_portable(a.data(), a.size())),
            crc32c(ab.data(), ab.size()));
}

TEST(Crc32c, ForcePortableSwitches) {
  const bool before = crc32c_force_portable(true);
  EXPECT_TRUE(crc32c_force_portable(before));
}

// Every length 0..300 at every start alignment 0..7, with chaining seeds as well.
TEST(Crc32c, HardwareAndPortableAgree) {
  if (!crc32c_hardware_available()) GTEST_SKIP() << "no SSE4.2 on this CPU";
  std::mt19937 rng(42);
  std::vector<uint8_t> buf(320);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  for (size_t start = 0; start < 8; ++start) {
    for (size_t len = 0; len <= 300; ++len) {
      const uint8_t* p = buf.data() + start;
      const uint32_t seed = static_cast<uint32_t>(rng());
      ASSERT_EQ(crc32c_sse42(p, len), crc32c_portable(p, len)) << start << " " << len;
      ASSERT_EQ(crc32c_sse42(p, len, seed), crc32c_portable(p, len, seed)) << start << " " << len;
    }
  }
}

// Long inputs go through the three-way interleaved blocks (3 x 256 and 3 x 8192 bytes); check
// the block edges and random lengths against the table walk.
TEST(Crc32c, HardwareAndPortableAgreeOnLongInputs) {
  if (!crc32c_hardware_available()) GTEST_SKIP() << "no SSE4.2 on this CPU";
  std::mt19937 rng(9);
  std::vector<uint8_t> buf(200 * 1024 + 16);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  std::vector<size_t> lengths;
  for (size_t edge : {size_t{768}, size_t{24576}, size_t{24576 + 768}, size_t{2 * 24576}})
    for (size_t d : {size_t{0}, size_t{1}, size_t{7}, size_t{8}})
      lengths.insert(lengths.end(), {edge - d, edge + d});
  for (int i = 0; i < 200; ++i) lengths.push_back(rng() % (200 * 1024));
  for (size_t len : lengths) {
    const size_t start = rng() % 16;
    const uint32_t seed = static_cast<uint32_t>(rng());
    ASSERT_EQ(crc32c_sse42(buf.data() + start, len, seed),
              crc32c_portable(buf.data() + start, len, seed))
        << start << " " << len;
  }
}

// crc32c_patch gives what a full recomputation gives, for changes anywhere in buffers of many
// sizes (across the powers of two the zero-byte operators are built from), and keeps a wrong CRC
// wrong by the same difference.
TEST(Crc32c, PatchEqualsRecomputation) {
  std::mt19937 random(7);
  for (size_t length : {1u, 8u, 61u, 255u, 4096u, 70001u, 1u << 20}) {
    std::vector<uint8_t> buf(length);
    for (auto& b : buf) b = static_cast<uint8_t>(random());
    for (int trial = 0; trial < 8; ++trial) {
      const size_t n = std::min<size_t>(length, 1 + random() % 100);
      const size_t at = random() % (length - n + 1);
      const uint32_t crc = crc_of(buf);
      std::vector<uint8_t> before(buf.begin() + at, buf.begin() + at + n);
      for (size_t i = 0; i < n; ++i) buf[at + i] = static_cast<uint8_t>(random());
      std::span<const uint8_t> after(buf.data() + at, n);
      ASSERT_EQ(crc32c_patch(crc, length, at, before, after), crc_of(buf))
          << "length " << length << " at " << at << " n " << n;
      ASSERT_EQ(crc32c_patch(crc ^ 0x10u, length, at, before, after), crc_of(buf) ^ 0x10u);
    }
  }
}

}  // namespace
}  // namespace mirra::records
