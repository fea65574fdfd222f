#include "metadata/snapshot.h"

#include <gtest/gtest.h>

#include "metadata_test_util.h"
#include "protocol/records/byte_order.h"
#include "protocol/records/crc32c.h"

namespace mirra::metadata {
namespace {

using testing::apply_all;
using testing::create_topic;
using testing::expect_same_image;
using testing::tid;

MetadataImage sample_image() {
  MetadataImage image;
  EXPECT_TRUE(apply_all(image, create_topic("orders", 1, 3)).ok());
  EXPECT_TRUE(apply_all(image, create_topic("users", 2, 1)).ok());
  EXPECT_TRUE(apply_all(image, {ConfigRecord{kTopicResource, "users", "cleanup.policy", "compact"},
                                ConfigRecord{kBrokerResource, "", "num.partitions", "6"}})
                  .ok());
  return image;
}

// Recomputes the CRC after a deliberate edit, so that the check behind it is reached.
void fix_crc(std::vector<uint8_t>& bytes) {
  records::store_be32(bytes.data() + 2,
                      records::crc32c(std::span<const uint8_t>(bytes).subspan(6)));
}

std::string decode_error(const std::vector<uint8_t>& bytes, int64_t end) {
  auto r = decode_snapshot(bytes, end);
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), ErrorCode::CORRUPT_MESSAGE);
  return r.status().message();
}

TEST(MetadataSnapshot, FileNames) {
  EXPECT_EQ(snapshot_file_name(0), "00000000000000000000.checkpoint");
  EXPECT_EQ(snapshot_file_name(1234), "00000000000000001234.checkpoint");
  EXPECT_EQ(parse_snapshot_file_name("00000000000000001234.checkpoint"), 1234);
  EXPECT_EQ(parse_snapshot_file_name("00000000000000001234.checkpoint.tmp"), std::nullopt);
  EXPECT_EQ(parse_snapshot_file_name("00000000000000001234.snapshot"), std::nullopt);
  EXPECT_EQ(parse_snapshot_file_name("0000000000000000123x.checkpoint"), std::nullopt);
  EXPECT_EQ(parse_snapshot_file_name("1234.checkpoint"), std::nullopt);
  EXPECT_EQ(parse_snapshot_file_name("99999999999999999999.checkpoint"), std::nullopt);
}

TEST(MetadataSnapshot, RoundTrip) {
  const MetadataImage image = sample_image();
  auto bytes = encode_snapshot(image);
  auto back = decode_snapshot(bytes, image.last_offset() + 1);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  expect_same_image(*back, image);

  MetadataImage empty;
  auto none = decode_snapshot(encode_snapshot(empty), 0);
  ASSERT_TRUE(none.ok()) << none.status().to_string();
  EXPECT_EQ(none->last_offset(), -1);
}

TEST(MetadataSnapshot, EveryTruncationRefused) {
  const MetadataImage image = sample_image();
  const auto bytes = encode_snapshot(image);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(cut));
    EXPECT_FALSE(decode_snapshot(prefix, image.last_offset() + 1).ok()) << "cut " << cut;
  }
}

TEST(MetadataSnapshot, EveryFlippedByteRefused) {
  const MetadataImage image = sample_image();
  const auto bytes = encode_snapshot(image);
  for (size_t at = 0; at < bytes.size(); ++at) {
    auto copy = bytes;
    copy[at] ^= 0x01;
    EXPECT_FALSE(decode_snapshot(copy, image.last_offset() + 1).ok()) << "byte " << at;
  }
}

TEST(MetadataSnapshot, SaysWhatIsWrong) {
  const MetadataImage image = sample_image();
  const int64_t end = image.last_offset() + 1;
  const auto good = encode_snapshot(image);

  EXPECT_NE(decode_error({1, 2, 3}, end).find("shorter than the 18-byte header"),
            std::string::npos);

  auto version = good;
  version[1] = 2;
  EXPECT_NE(decode_error(version, end).find("version 2 (expected 1)"), std::string::npos);

  auto crc = good;
  crc.back() ^= 0xff;
  EXPECT_NE(decode_error(crc, end).find("CRC mismatch"), std::string::npos);

  EXPECT_NE(decode_error(good, end + 1).find("the name says up to"), std::string::npos);

  auto trailing = good;
  trailing.push_back(0);
  fix_crc(trailing);
  EXPECT_NE(decode_error(trailing, end).find("1 trailing bytes"), std::string::npos);

  auto count = good;
  records::store_be32(count.data() + 14, 0x7fffffff);
  fix_crc(count);
  EXPECT_NE(decode_error(count, end).find("does not fit the file"), std::string::npos);

  // A record whose type is unknown: the first record starts at 18 + 4 (its length).
  auto type = good;
  type[18 + 4 + 1] = 77;
  fix_crc(type);
  const std::string msg = decode_error(type, end);
  EXPECT_NE(msg.find("record 0: metadata record: unknown record type 77"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find(snapshot_file_name(end)), std::string::npos) << msg;
}

TEST(MetadataSnapshot, RecordsThatContradictEachOtherRefused) {
  MetadataImage image;
  ASSERT_TRUE(image.apply(TopicRecord{"a", tid(1)}, 0).ok());
  auto bytes = encode_snapshot(image);
  // Duplicate the one record and bump the count: the second TopicRecord "a" must not apply.
  const std::vector<uint8_t> record(bytes.begin() + 18, bytes.end());
  bytes.insert(bytes.end(), record.begin(), record.end());
  records::store_be32(bytes.data() + 14, 2);
  fix_crc(bytes);
  EXPECT_NE(decode_error(bytes, 1).find("topic a already exists"), std::string::npos);
}

}  // namespace
}  // namespace mirra::metadata
