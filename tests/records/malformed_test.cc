// Truncated, garbage and old-format inputs: every one must give a Status, never a crash.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "protocol/records/batch_builder.h"
#include "protocol/records/byte_order.h"
#include "protocol/records/crc32c.h"
#include "protocol/records/record.h"
#include "protocol/records/record_batch.h"

namespace mirra::records {
namespace {

std::vector<uint8_t> small_batch(Compression c = Compression::none) {
  BatchOptions o;
  o.compression = c;
  RecordInput r;
  r.key = as_bytes("key");
  r.value = as_bytes("value");
  const RecordInput rs[] = {r, r, r};
  return std::move(build_batch(o, rs)).value();
}

void fix_crc(std::vector<uint8_t>& b) {
  store_be32(b.data() + layout::kCrc,
             crc32c(b.data() + layout::kCrcStart, b.size() - layout::kCrcStart));
}

// Parses, validates and iterates; returns the first failure (or OK).
Status full_check(std::span<const uint8_t> bytes) {
  auto v = BatchView::parse(bytes);
  if (!v) return v.status();
  if (Status st = v->validate(); !st) return st;
  std::vector<uint8_t> scratch;
  return for_each_record(*v, scratch, [](const RecordView&) { return Status(); });
}

TEST(Malformed, EveryTruncationFails) {
  for (Compression c : {Compression::none, Compression::lz4}) {
    const auto wire = small_batch(c);
    ASSERT_TRUE(full_check(wire));
    for (size_t n = 0; n < wire.size(); ++n) {
      const Status st = full_check(std::span<const uint8_t>(wire).first(n));
      EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE) << n;
      EXPECT_FALSE(st.message().empty());
    }
  }
}

TEST(Malformed, OldMagicNamedClearly) {
  for (uint8_t magic : {0, 1}) {
    std::vector<uint8_t> v1(40, 0);  // a v0/v1 message is shorter than a v2 header
    v1[layout::kMagic] = magic;
    auto r = BatchView::parse(v1);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.status().code(), ErrorCode::UNSUPPORTED_VERSION);
    EXPECT_EQ(r.status().message(), "message format v0/v1 (magic " + std::to_string(magic) +
                                        ") is not supported; Mirra accepts record batch v2 only");
  }
  auto wire = small_batch();
  wire[layout::kMagic] = 3;
  EXPECT_EQ(BatchView::parse(wire).status().code(), ErrorCode::CORRUPT_MESSAGE);
}

TEST(Malformed, CrcMismatch) {
  auto wire = small_batch();
  wire[70] ^= 0x40;
  const Status st = full_check(wire);
  EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE);
  EXPECT_NE(st.message().find("CRC-32C mismatch"), std::string::npos) << st.message();
}

TEST(Malformed, LengthLies) {
  auto wire = small_batch();
  store_be32(wire.data() + layout::kBatchLength, 10);  // smaller than a header
  EXPECT_FALSE(BatchView::parse(wire));
  store_be32(wire.data() + layout::kBatchLength, 0x7fffffff);
  EXPECT_FALSE(BatchView::parse(wire));
  store_be32(wire.data() + layout::kBatchLength, 0xffffffff);  // negative
  EXPECT_FALSE(BatchView::parse(wire));
}

TEST(Malformed, HeaderFieldChecks) {
  const auto base = small_batch();
  auto w = base;
  store_be32(w.data() + layout::kRecordCount, 1000000);  // cannot fit
  store_be32(w.data() + layout::kLastOffsetDelta, 1000000);
  fix_crc(w);
  EXPECT_EQ(full_check(w).code(), ErrorCode::CORRUPT_MESSAGE);
  w = base;
  store_be32(w.data() + layout::kLastOffsetDelta, 0);  // 3 records need delta >= 2
  fix_crc(w);
  EXPECT_EQ(full_check(w).code(), ErrorCode::CORRUPT_MESSAGE);
  w = base;
  store_be32(w.data() + layout::kRecordCount, static_cast<uint32_t>(-1));
  fix_crc(w);
  EXPECT_EQ(full_check(w).code(), ErrorCode::CORRUPT_MESSAGE);
  w = base;
  store_be16(w.data() + layout::kAttributes, 6);  // codec 6 does not exist
  fix_crc(w);
  EXPECT_EQ(full_check(w).code(), ErrorCode::UNSUPPORTED_COMPRESSION_TYPE);
}

TEST(Malformed, RecordCountDisagreesWithRecords) {
  auto w = small_batch();
  store_be32(w.data() + layout::kRecordCount, 2);  // one record left over
  fix_crc(w);
  EXPECT_EQ(full_check(w).code(), ErrorCode::CORRUPT_MESSAGE);
  w = small_batch();
  store_be32(w.data() + layout::kRecordCount, 4);  // one record missing
  store_be32(w.data() + layout::kLastOffsetDelta, 3);
  fix_crc(w);
  EXPECT_EQ(full_check(w).code(), ErrorCode::CORRUPT_MESSAGE);
}

TEST(Malformed, RecordFieldLies) {
  const auto base = small_batch();
  // Byte 61 is the first record's length varint, 62 its attributes, 63 ts delta, 64 offset
  // delta, 65 key length (zig-zag 3 = 6).
  auto w = base;
  w[65] = 0x7e;  // key length 63: past the record
  fix_crc(w);
  EXPECT_EQ(full_check(w).code(), ErrorCode::CORRUPT_MESSAGE);
  w = base;
  w[65] = 0x03;  // key length -2
  fix_crc(w);
  EXPECT_EQ(full_check(w).code(), ErrorCode::CORRUPT_MESSAGE);
  w = base;
  w[61] = 0x7f;  // record length -64
  fix_crc(w);
  EXPECT_EQ(full_check(w).code(), ErrorCode::CORRUPT_MESSAGE);
}

TEST(Malformed, RandomGarbageNeverCrashes) {
  std::mt19937 rng(1);
  const auto base = small_batch(Compression::snappy);
  for (int round = 0; round < 3000; ++round) {
    auto w = base;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < flips; ++i) w[rng() % w.size()] = static_cast<uint8_t>(rng());
    if (rng() % 2) fix_crc(w);
    (void)full_check(w);  // only "does not crash or read out of bounds" is asserted (ASan)
  }
  std::vector<uint8_t> junk(200);
  for (auto& b : junk) b = static_cast<uint8_t>(rng());
  junk[layout::kMagic] = 2;
  EXPECT_FALSE(full_check(junk));
}

TEST(Malformed, CompressedPayloadGarbage) {
  auto w = small_batch(Compression::zstd);
  for (size_t i = layout::kHeaderSize; i < w.size(); ++i) w[i] = 0xAB;
  fix_crc(w);
  const Status st = full_check(w);
  EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE);
  EXPECT_NE(st.message().find("zstd"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace mirra::records
