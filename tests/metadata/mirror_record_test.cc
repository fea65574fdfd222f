// MirrorRecord's versions (docs/formats/metadata.md): version 1 carries the mirror's remembered
// topic patterns; a version 0 record (written before them) reads as a mirror without patterns.
#include <gtest/gtest.h>

#include "metadata/image.h"
#include "metadata/records.h"
#include "metadata_test_util.h"

namespace mirra::metadata {
namespace {

using testing::apply_all;

// A version 0 MirrorRecord as builds before topic patterns wrote it: type, version, name,
// one config.
std::vector<uint8_t> version0_bytes() {
  return {0x03, 0xe8,              // type 1000
          0x00, 0x00,              // version 0
          0x03, 'd',  'r',         // name: compact string "dr"
          0x02,                    // one config
          0x02, 'k',  0x02, 'v'};  // "k" = "v"
}

TEST(MirrorRecord, Version0ReadsAsNoPatterns) {
  auto back = decode_record(version0_bytes());
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  const MirrorRecord want{"dr", {{"k", "v"}}, {}};
  EXPECT_EQ(std::get<MirrorRecord>(*back), want);
  // And a record without patterns is still written as version 0, byte for byte.
  EXPECT_EQ(encode_record(want), version0_bytes());
}

TEST(MirrorRecord, Version1RoundTripsThePatterns) {
  const MirrorRecord r{"dr", {{"k", "v"}}, {"orders-.*", "a{1,3}"}};
  const auto bytes = encode_record(r);
  ASSERT_GE(bytes.size(), 4u);
  EXPECT_EQ(bytes[3], kMirrorRecordVersion);
  auto back = decode_record(bytes);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(std::get<MirrorRecord>(*back), r);
  // The version 0 prefix followed by the pattern list.
  std::vector<uint8_t> expected = version0_bytes();
  expected[3] = 1;
  const std::string patterns =
      "\x03\x0aorders-.*\x07"
      "a{1,3}";  // two, then each compact
  expected.insert(expected.end(), patterns.begin(), patterns.end());
  EXPECT_EQ(bytes, expected);
}

TEST(MirrorRecord, NewerVersionRefused) {
  auto bytes = encode_record(MirrorRecord{"dr", {}, {"x"}});
  bytes[3] = 2;
  Status st = decode_record(bytes).status();
  EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE);
  EXPECT_NE(st.message().find("MirrorRecord version 2"), std::string::npos) << st.message();
}

TEST(MirrorRecord, ImageAndSnapshotKeepThePatterns) {
  MetadataImage image;
  ASSERT_TRUE(apply_all(image, {MirrorRecord{"dr", {{"k", "v"}}, {"a.*"}}}).ok());
  EXPECT_EQ(image.mirror("dr")->topic_patterns, std::vector<std::string>{"a.*"});
  ASSERT_TRUE(apply_all(image, {MirrorRecord{"dr", {{"k", "v"}}, {"a.*", "b"}}}).ok());
  auto loaded = image_from_records(image_records(image), 1);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  EXPECT_EQ(loaded->mirror("dr")->topic_patterns, (std::vector<std::string>{"a.*", "b"}));
  // A record without patterns replaces them too (every field of the mirror is in the record).
  ASSERT_TRUE(apply_all(image, {MirrorRecord{"dr", {{"k", "v"}}}}).ok());
  EXPECT_TRUE(image.mirror("dr")->topic_patterns.empty());
}

TEST(MirrorRecord, MalformedPatternsRefused) {
  for (const MirrorRecord& bad :
       {MirrorRecord{"dr", {}, {""}}, MirrorRecord{"dr", {}, {"a", "a"}}}) {
    MetadataImage image;
    EXPECT_EQ(apply_all(image, {bad}).code(), ErrorCode::CORRUPT_MESSAGE);
  }
}

}  // namespace
}  // namespace mirra::metadata
