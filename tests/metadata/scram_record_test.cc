// SCRAM credentials in the metadata log (docs/formats/metadata.md): the two records' encoding,
// the image's rules for them, and their way through a snapshot.
#include <gtest/gtest.h>

#include "metadata/image.h"
#include "metadata/records.h"
#include "metadata/snapshot.h"
#include "metadata_test_util.h"

namespace mirra::metadata {
namespace {

using testing::apply_all;
using testing::create_topic;
using testing::expect_same_image;

// Binary salt and keys, with zero bytes in them (they are raw bytes, not text).
UserScramCredentialRecord alice256() {
  return {"alice",
          kScramSha256,
          std::string("s\0alt", 5),
          std::string(32, '\x01'),
          std::string(32, '\x02'),
          8192};
}

UserScramCredentialRecord alice512() {
  return {"alice", kScramSha512, "salt2", std::string(64, '\x03'), std::string(64, '\0'), 4096};
}

TEST(ScramRecords, RoundTripAndLayout) {
  for (const MetadataRecord& r : std::vector<MetadataRecord>{
           alice256(), alice512(), RemoveUserScramCredentialRecord{"alice", kScramSha512}}) {
    auto back = decode_record(encode_record(r));
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(*back, r) << record_type_name(r);
  }
  const UserScramCredentialRecord small{"u", kScramSha256, "s", "k", "v", 0x1000};
  const std::vector<uint8_t> want{0x00, 0x0b, 0x00, 0x00,   // type 11, version 0
                                  0x02, 'u',                // name
                                  0x01,                     // mechanism
                                  0x02, 's',  0x02, 'k',    // salt, stored key
                                  0x02, 'v',                // server key
                                  0x00, 0x00, 0x10, 0x00};  // iterations
  EXPECT_EQ(encode_record(small), want);
  const std::vector<uint8_t> remove{0x00, 0x16, 0x00, 0x00, 0x02, 'u', 0x02};  // type 22
  EXPECT_EQ(encode_record(RemoveUserScramCredentialRecord{"u", kScramSha512}), remove);
  EXPECT_EQ(record_type_name(small), "UserScramCredentialRecord");
}

TEST(ScramRecords, TruncationAndTrailingBytesRefused) {
  const auto bytes = encode_record(alice256());
  for (size_t n = 4; n < bytes.size(); ++n) {
    EXPECT_FALSE(decode_record(std::span(bytes).first(n)).ok()) << n;
  }
  auto longer = bytes;
  longer.push_back(0);
  EXPECT_FALSE(decode_record(longer).ok());
}

TEST(ScramImage, AddReplaceAndRemove) {
  MetadataImage image;
  ASSERT_TRUE(apply_all(image, {alice256(), alice512()}).ok());
  const ScramCredentialInfo* c = image.scram_credential("alice", kScramSha256);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->iterations, 8192);
  EXPECT_EQ(c->salt, std::string("s\0alt", 5));
  EXPECT_EQ(image.scram_credential("bob", kScramSha256), nullptr);

  auto replaced = alice256();
  replaced.iterations = 10000;
  ASSERT_TRUE(apply_all(image, {replaced}).ok());
  EXPECT_EQ(image.scram_credential("alice", kScramSha256)->iterations, 10000);

  // Removing one mechanism keeps the other; removing the last forgets the user.
  ASSERT_TRUE(apply_all(image, {RemoveUserScramCredentialRecord{"alice", kScramSha256}}).ok());
  EXPECT_EQ(image.scram_credential("alice", kScramSha256), nullptr);
  EXPECT_NE(image.scram_credential("alice", kScramSha512), nullptr);
  ASSERT_TRUE(apply_all(image, {RemoveUserScramCredentialRecord{"alice", kScramSha512}}).ok());
  EXPECT_TRUE(image.scram_users().empty());
}

TEST(ScramImage, ContradictionsRefusedWithoutChange) {
  MetadataImage image;
  ASSERT_TRUE(apply_all(image, {alice256()}).ok());
  auto empty_name = alice256();
  empty_name.name = "";
  auto bad_mechanism = alice256();
  bad_mechanism.mechanism = 3;
  auto no_iterations = alice256();
  no_iterations.iterations = 0;
  auto no_salt = alice256();
  no_salt.salt = "";
  for (const MetadataRecord& r :
       std::vector<MetadataRecord>{empty_name, bad_mechanism, no_iterations, no_salt,
                                   RemoveUserScramCredentialRecord{"alice", kScramSha512},
                                   RemoveUserScramCredentialRecord{"bob", kScramSha256}}) {
    Status st = image.apply(r, image.last_offset() + 1);
    EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE) << record_type_name(r);
    // The message never carries the salt or the keys.
    EXPECT_EQ(st.message().find(std::string("s\0alt", 5)), std::string::npos);
  }
  ASSERT_EQ(image.scram_users().size(), 1u);
  EXPECT_EQ(image.scram_credential("alice", kScramSha256)->iterations, 8192);
}

TEST(ScramImage, SnapshotRoundTrip) {
  MetadataImage image;
  ASSERT_TRUE(apply_all(image, create_topic("orders", 1, 1)).ok());
  auto bob = alice512();
  bob.name = "bob";
  ASSERT_TRUE(apply_all(image, {alice512(), bob, alice256(),
                                RemoveUserScramCredentialRecord{"bob", kScramSha512}})
                  .ok());
  const auto records = image_records(image);
  // The user's credentials follow everything else, by user then mechanism.
  ASSERT_GE(records.size(), 2u);
  EXPECT_EQ(records[records.size() - 2], MetadataRecord(alice256()));
  EXPECT_EQ(records.back(), MetadataRecord(alice512()));

  auto back = decode_snapshot(encode_snapshot(image), image.last_offset() + 1);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  expect_same_image(image, *back);
  EXPECT_EQ(back->scram_credential("bob", kScramSha512), nullptr);
  ASSERT_NE(back->scram_credential("alice", kScramSha256), nullptr);
  EXPECT_EQ(back->scram_credential("alice", kScramSha256)->stored_key, std::string(32, '\x01'));
}

}  // namespace
}  // namespace mirra::metadata
