#include "protocol/records/compression.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace mirra::records {
namespace {

const Compression kCodecs[] = {Compression::none, Compression::gzip, Compression::snappy,
                               Compression::lz4, Compression::zstd};

std::vector<uint8_t> sample(size_t n, bool compressible) {
  std::vector<uint8_t> v(n);
  std::mt19937 rng(7);
  for (size_t i = 0; i < n; ++i)
    v[i] = compressible ? static_cast<uint8_t>("abcabcabd"[i % 9]) : static_cast<uint8_t>(rng());
  return v;
}

void expect_round_trip(Compression c, const std::vector<uint8_t>& input, CompressOptions opt = {}) {
  std::vector<uint8_t> packed;
  ASSERT_TRUE(compress(c, input, packed, opt)) << compression_name(c);
  std::vector<uint8_t> unpacked = {9, 9};  // decompress appends
  const Status st = decompress(c, packed, unpacked);
  ASSERT_TRUE(st) << compression_name(c) << " " << st.to_string();
  ASSERT_EQ(unpacked.size(), input.size() + 2);
  EXPECT_TRUE(std::equal(input.begin(), input.end(), unpacked.begin() + 2)) << compression_name(c);
}

TEST(Compression, RoundTripEveryCodec) {
  for (Compression c : kCodecs) {
    SCOPED_TRACE(std::string(compression_name(c)));
    expect_round_trip(c, {});
    expect_round_trip(c, sample(1, false));
    expect_round_trip(c, sample(1000, true));
    expect_round_trip(c, sample(300 * 1024, false));  // several lz4 blocks / xerial chunks
    expect_round_trip(c, sample(300 * 1024, true));
  }
}

TEST(Compression, SnappyXerialRoundTrip) {
  CompressOptions opt;
  opt.snappy_xerial = true;
  for (size_t n : {size_t{0}, size_t{5}, size_t{32 * 1024}, size_t{100 * 1024 + 3}}) {
    std::vector<uint8_t> packed;
    ASSERT_TRUE(compress(Compression::snappy, sample(n, true), packed, opt));
    EXPECT_TRUE(is_xerial_snappy(packed));
    expect_round_trip(Compression::snappy, sample(n, true), opt);
  }
}

// A xerial stream assembled byte by byte: header, then two chunks of raw snappy that are each a
// single literal ("hello" and ", world"), as Java's snappy-java writes them.
TEST(Compression, SnappyXerialHandBuilt) {
  std::vector<uint8_t> x = {0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1};
  const auto chunk = [&x](const std::string& s) {
    const uint8_t raw_len = static_cast<uint8_t>(2 + s.size());
    x.insert(x.end(), {0, 0, 0, raw_len});
    x.push_back(static_cast<uint8_t>(s.size()));             // preamble: uncompressed length
    x.push_back(static_cast<uint8_t>((s.size() - 1) << 2));  // literal tag
    x.insert(x.end(), s.begin(), s.end());
  };
  chunk("hello");
  chunk(", world");
  ASSERT_TRUE(is_xerial_snappy(x));
  std::vector<uint8_t> out;
  ASSERT_TRUE(decompress(Compression::snappy, x, out));
  EXPECT_EQ(std::string(out.begin(), out.end()), "hello, world");

  x.pop_back();  // cut the last chunk short
  out.clear();
  EXPECT_EQ(decompress(Compression::snappy, x, out).code(), ErrorCode::CORRUPT_MESSAGE);
  EXPECT_TRUE(out.empty());
}

TEST(Compression, RawSnappyHandBuilt) {
  const std::vector<uint8_t> raw = {5, 4 << 2, 'h', 'e', 'l', 'l', 'o'};
  std::vector<uint8_t> out;
  ASSERT_TRUE(decompress(Compression::snappy, raw, out));
  EXPECT_EQ(std::string(out.begin(), out.end()), "hello");
}

TEST(Compression, BombIsBounded) {
  const std::vector<uint8_t> zeros(8 << 20, 0);  // 8 MiB of zeros compresses to almost nothing
  for (Compression c : kCodecs) {
    SCOPED_TRACE(std::string(compression_name(c)));
    std::vector<uint8_t> packed;
    ASSERT_TRUE(compress(c, zeros, packed));
    std::vector<uint8_t> out;
    const Status st = decompress(c, packed, out, 1 << 20);
    EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE);
    EXPECT_NE(st.message().find("exceeds the limit"), std::string::npos) << st.message();
    EXPECT_TRUE(out.empty());
    EXPECT_LE(out.capacity(), size_t{3} << 20) << "must not allocate far past the limit";
    // Exactly at the limit is fine.
    EXPECT_TRUE(decompress(c, packed, out, zeros.size()));
    EXPECT_EQ(out.size(), zeros.size());
  }
}

TEST(Compression, SnappyLyingPreambleRejectedBeforeAllocating) {
  // Preamble claims 200 MiB from a 6-byte input.
  const std::vector<uint8_t> lie = {0x80, 0x80, 0x80, 0x64, 0x00, 0x00};
  std::vector<uint8_t> out;
  EXPECT_EQ(decompress(Compression::snappy, lie, out).code(), ErrorCode::CORRUPT_MESSAGE);
  EXPECT_EQ(out.capacity(), 0u);
}

TEST(Compression, GarbageAndTruncationAreErrors) {
  const std::vector<uint8_t> input = sample(5000, false);
  for (Compression c : kCodecs) {
    if (c == Compression::none) continue;
    SCOPED_TRACE(std::string(compression_name(c)));
    std::vector<uint8_t> packed, out;
    ASSERT_TRUE(compress(c, input, packed));
    std::vector<uint8_t> cut(packed.begin(), packed.begin() + packed.size() / 2);
    EXPECT_EQ(decompress(c, cut, out).code(), ErrorCode::CORRUPT_MESSAGE);
    const std::vector<uint8_t> junk = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    EXPECT_EQ(decompress(c, junk, out).code(), ErrorCode::CORRUPT_MESSAGE);
    EXPECT_EQ(decompress(c, {}, out).code(), ErrorCode::CORRUPT_MESSAGE);
    EXPECT_TRUE(out.empty());
  }
}

TEST(Compression, CodecIds) {
  EXPECT_EQ(*compression_from_id(3), Compression::lz4);
  for (int id : {5, 6, 7, -1}) {
    auto r = compression_from_id(id);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.status().code(), ErrorCode::UNSUPPORTED_COMPRESSION_TYPE);
  }
  EXPECT_EQ(compression_name(Compression::zstd), "zstd");
}

}  // namespace
}  // namespace mirra::records
