#include "metadata/records.h"

#include <gtest/gtest.h>

#include "metadata_test_util.h"

namespace mirra::metadata {
namespace {

using testing::tid;

std::vector<MetadataRecord> samples() {
  return {
      TopicRecord{"orders", tid(1)},
      TopicRecord{std::string(249, 'x'), Uuid::random()},
      PartitionRecord{tid(1), 0, {1}, 1, 0},
      PartitionRecord{tid(2), 7, {3, 1, 2}, -1, 42},
      PartitionRecord{tid(3), 1, {}, -1, 0},
      ConfigRecord{kTopicResource, "orders", "retention.ms", "1000"},
      ConfigRecord{kTopicResource, "orders", "retention.ms", std::nullopt},
      ConfigRecord{kBrokerResource, "", "log.retention.ms", ""},
      ConfigRecord{kBrokerResource, "", "ssl.truststore.certificates", std::string(70000, 'c')},
      RemoveTopicRecord{tid(9)},
      ProducerIdsRecord{1, 1000},
      ProducerIdsRecord{-1, kMaxNextProducerId},
      MirrorRecord{"dr", {{"bootstrap.servers", "a:9092,b:9092"}, {"sasl.password", "s3cret"}}},
      MirrorRecord{"empty", {}},
      MirrorRecord{"patterns", {{"bootstrap.servers", "a:9092"}}, {"orders-.*", "a{1,3}"}},
      RemoveMirrorRecord{"dr"},
  };
}

Status decode_status(const std::vector<uint8_t>& bytes) { return decode_record(bytes).status(); }

TEST(MetadataRecords, RoundTripEveryType) {
  for (const MetadataRecord& r : samples()) {
    auto bytes = encode_record(r);
    auto back = decode_record(bytes);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(*back, r) << record_type_name(r);
  }
}

TEST(MetadataRecords, HeaderIsTypeThenVersion) {
  auto bytes = encode_record(TopicRecord{"t", tid(1)});
  ASSERT_GE(bytes.size(), 4u);
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[1], kTopicRecordType);
  EXPECT_EQ(bytes[2], 0);
  EXPECT_EQ(bytes[3], kRecordVersion);
  // name: compact string (length + 1), then the 16 id bytes.
  ASSERT_EQ(bytes.size(), 4u + 1 + 1 + 16);
  EXPECT_EQ(bytes[4], 2);
  EXPECT_EQ(bytes[5], 't');
  EXPECT_EQ(encode_record(RemoveTopicRecord{tid(1)})[1], kRemoveTopicRecordType);
  EXPECT_EQ(encode_record(ConfigRecord{})[1], kConfigRecordType);
  EXPECT_EQ(encode_record(PartitionRecord{})[1], kPartitionRecordType);
  // ProducerIdsRecord: broker id int32, next producer id int64.
  const auto ids = encode_record(ProducerIdsRecord{1, 0x0102030405060708});
  ASSERT_EQ(ids.size(), 4u + 4 + 8);
  EXPECT_EQ(ids[1], kProducerIdsRecordType);
  EXPECT_EQ(ids[7], 1);
  EXPECT_EQ(ids[8], 1);
  EXPECT_EQ(ids[15], 8);
}

TEST(MetadataRecords, UnknownTypeRefused) {
  for (int16_t type : {0, 1, 5, 8, 10, 20, -1, 300}) {
    auto bytes = encode_record(RemoveTopicRecord{tid(1)});
    bytes[0] = static_cast<uint8_t>(static_cast<uint16_t>(type) >> 8);
    bytes[1] = static_cast<uint8_t>(type);
    Status st = decode_status(bytes);
    EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE);
    EXPECT_NE(st.message().find("unknown record type " + std::to_string(type)), std::string::npos)
        << st.message();
  }
}

TEST(MetadataRecords, NewerAndNegativeVersionsRefused) {
  for (int16_t version : {1, 2, 0x7fff, -1}) {
    auto bytes = encode_record(TopicRecord{"t", tid(1)});
    bytes[2] = static_cast<uint8_t>(static_cast<uint16_t>(version) >> 8);
    bytes[3] = static_cast<uint8_t>(version);
    Status st = decode_status(bytes);
    EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE);
    EXPECT_NE(st.message().find("TopicRecord version " + std::to_string(version)),
              std::string::npos)
        << st.message();
  }
}

TEST(MetadataRecords, EveryTruncationRefused) {
  for (const MetadataRecord& r : samples()) {
    auto bytes = encode_record(r);
    for (size_t cut = 0; cut < bytes.size(); ++cut) {
      std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(cut));
      Status st = decode_status(prefix);
      ASSERT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE)
          << record_type_name(r) << " cut at " << cut << " of " << bytes.size();
      if (cut < 4) {
        EXPECT_NE(st.message().find("shorter than the 4-byte type and version"), std::string::npos)
            << st.message();
      } else {
        EXPECT_NE(st.message().find(std::string(record_type_name(r))), std::string::npos)
            << st.message();
      }
    }
  }
}

TEST(MetadataRecords, TrailingBytesRefused) {
  for (const MetadataRecord& r : samples()) {
    auto bytes = encode_record(r);
    bytes.push_back(0);
    Status st = decode_status(bytes);
    EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE);
    EXPECT_NE(st.message().find("1 trailing bytes"), std::string::npos) << st.message();
  }
}

TEST(MetadataRecords, NullsWhereValuesAreRequiredRefused) {
  // TopicRecord with a null name: compact length 0.
  std::vector<uint8_t> topic = {0, 2, 0, 0, 0};
  topic.resize(topic.size() + 16, 0);
  Status st = decode_status(topic);
  EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE);
  EXPECT_NE(st.message().find("null where a string is required"), std::string::npos)
      << st.message();

  // PartitionRecord with a null replica list.
  auto part = encode_record(PartitionRecord{tid(1), 0, {}, -1, 0});
  part[4 + 16 + 4] = 0;  // the compact array length (1 = empty) becomes 0 = null
  st = decode_status(part);
  EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE);
  EXPECT_NE(st.message().find("null replica list"), std::string::npos) << st.message();
}

TEST(MetadataRecords, HugeLengthsRefusedWithoutAllocating) {
  auto part = encode_record(PartitionRecord{tid(1), 0, {5}, 5, 0});
  // Replace the replica count (compact 2) with a varint claiming ~2^28 elements.
  const size_t at = 4 + 16 + 4;
  std::vector<uint8_t> bad(part.begin(), part.begin() + static_cast<ptrdiff_t>(at));
  for (uint8_t b : {0xff, 0xff, 0xff, 0x7f}) bad.push_back(b);
  bad.insert(bad.end(), part.begin() + static_cast<ptrdiff_t>(at) + 1, part.end());
  Status st = decode_status(bad);
  EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE);
  EXPECT_NE(st.message().find("exceeds the bytes that remain"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace mirra::metadata
