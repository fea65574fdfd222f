#include "protocol/records/varint.h"

#include <gtest/gtest.h>

#include <climits>
#include <vector>

namespace mirra::records {
namespace {

TEST(Varint, ZigZagValues) {
  EXPECT_EQ(zigzag_encode(0), 0u);
  EXPECT_EQ(zigzag_encode(-1), 1u);
  EXPECT_EQ(zigzag_encode(1), 2u);
  EXPECT_EQ(zigzag_encode(-2), 3u);
  EXPECT_EQ(zigzag_decode(1), -1);
}

TEST(Varint, RoundTripInt32Extremes) {
  for (int32_t v : {0, 1, -1, 63, -64, 64, 300, -300, INT32_MAX, INT32_MIN}) {
    std::vector<uint8_t> buf;
    append_varint(buf, v);
    EXPECT_EQ(buf.size(), varint_size(v));
    EXPECT_LE(buf.size(), kMaxVarintBytes);
    int32_t got = 0;
    EXPECT_EQ(read_varint(buf, got), buf.size());
    EXPECT_EQ(got, v);
  }
}

TEST(Varint, RoundTripInt64Extremes) {
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1} << 40, INT64_MAX, INT64_MIN}) {
    std::vector<uint8_t> buf;
    append_varlong(buf, v);
    EXPECT_EQ(buf.size(), varlong_size(v));
    int64_t got = 0;
    EXPECT_EQ(read_varlong(buf, got), buf.size());
    EXPECT_EQ(got, v);
  }
}

TEST(Varint, KnownEncodings) {
  std::vector<uint8_t> buf;
  append_varint(buf, -1);
  EXPECT_EQ(buf, (std::vector<uint8_t>{0x01}));
  buf.clear();
  append_varint(buf, 150);  // zig-zag 300 = 0xAC 0x02
  EXPECT_EQ(buf, (std::vector<uint8_t>{0xAC, 0x02}));
}

TEST(Varint, RejectsTruncatedAndOverlong) {
  int32_t v = 0;
  int64_t l = 0;
  const std::vector<uint8_t> empty;
  EXPECT_EQ(read_varint(empty, v), 0u);
  const std::vector<uint8_t> cut = {0x80, 0x80};
  EXPECT_EQ(read_varint(cut, v), 0u);
  const std::vector<uint8_t> six = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  EXPECT_EQ(read_varint(six, v), 0u);
  const std::vector<uint8_t> high_bits = {0xFF, 0xFF, 0xFF, 0xFF, 0x1F};  // 35 bits
  EXPECT_EQ(read_varint(high_bits, v), 0u);
  const std::vector<uint8_t> max32 = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F};
  EXPECT_EQ(read_varint(max32, v), 5u);
  EXPECT_EQ(v, INT32_MIN);
  std::vector<uint8_t> eleven(10, 0x80);
  eleven.push_back(0x01);
  EXPECT_EQ(read_varlong(eleven, l), 0u);
  std::vector<uint8_t> ten_high(9, 0xFF);
  ten_high.push_back(0x02);
  EXPECT_EQ(read_varlong(ten_high, l), 0u);
}

}  // namespace
}  // namespace mirra::records
