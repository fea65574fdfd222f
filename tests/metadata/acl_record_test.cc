// ACL records (docs/formats/metadata.md): their encoding, the image's rules, and snapshots.
#include <gtest/gtest.h>

#include "metadata/image.h"
#include "metadata/records.h"
#include "metadata/snapshot.h"
#include "metadata_test_util.h"

namespace mirra::metadata {
namespace {

using testing::apply_all;

Uuid acl_id(uint64_t n) { return Uuid::from_bits(0xac1, n); }

AccessControlEntryRecord acl(uint64_t n, std::string name = "orders") {
  return AccessControlEntryRecord{acl_id(n), 2, std::move(name), 3, "User:alice", "*", 3, 3, ""};
}

TEST(AclRecords, RoundTripWithKafkasTypeNumbers) {
  const AccessControlEntryRecord a{
      acl_id(1), 4, "kafka-cluster", 4, "User:CN=x,O=y", "10.0.0.1", 12, 2, ""};
  const auto bytes = encode_record(a);
  ASSERT_GE(bytes.size(), 4u);
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[1], 6);  // AccessControlEntryRecord
  EXPECT_EQ(bytes[3], 0);  // version 0
  auto back = decode_record(bytes);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(std::get<AccessControlEntryRecord>(*back), a);
  EXPECT_EQ(record_type_name(*back), "AccessControlEntryRecord");

  const RemoveAccessControlEntryRecord r{acl_id(1)};
  const auto rbytes = encode_record(r);
  EXPECT_EQ(rbytes[1], 7);
  EXPECT_EQ(rbytes.size(), 4u + 16u);
  auto rback = decode_record(rbytes);
  ASSERT_TRUE(rback.ok()) << rback.status().to_string();
  EXPECT_EQ(std::get<RemoveAccessControlEntryRecord>(*rback), r);
}

TEST(AclRecords, AMirrorsAclIsVersionOneAndAnEmptyMirrorIsRefused) {
  AccessControlEntryRecord a = acl(1);
  a.mirror = "dr";
  const auto bytes = encode_record(a);
  EXPECT_EQ(bytes[3], 1);  // version 1: the mirror that made it
  auto back = decode_record(bytes);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(std::get<AccessControlEntryRecord>(*back).mirror, "dr");
  for (size_t n = 4; n < bytes.size(); ++n) {
    EXPECT_FALSE(decode_record(std::span(bytes).first(n)).ok()) << n;
  }
  // Version 1 with an empty mirror: never written, refused rather than read as a local ACL.
  auto plain = encode_record(acl(1));
  plain[3] = 1;
  plain.push_back(1);  // compact string of length 0
  EXPECT_EQ(decode_record(plain).status().code(), ErrorCode::CORRUPT_MESSAGE);
  // Version 2 is unknown.
  auto newer = bytes;
  newer[3] = 2;
  EXPECT_EQ(decode_record(newer).status().code(), ErrorCode::CORRUPT_MESSAGE);
}

TEST(AclRecords, TruncationAndTrailingBytesRefused) {
  const auto bytes = encode_record(acl(1));
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(decode_record(std::span(bytes).first(n)).ok()) << n;
  }
  auto longer = bytes;
  longer.push_back(0);
  EXPECT_EQ(decode_record(longer).status().code(), ErrorCode::CORRUPT_MESSAGE);
}

TEST(AclRecords, ImageAddsAndRemovesByIdAndCountsChanges) {
  MetadataImage image;
  EXPECT_EQ(image.acl_changes(), 0u);
  ASSERT_TRUE(apply_all(image, {acl(1), acl(2, "payments")}).ok());
  EXPECT_EQ(image.acls().size(), 2u);
  EXPECT_EQ(image.acls().at(acl_id(2)).resource_name, "payments");
  EXPECT_EQ(image.acl_changes(), 2u);
  ASSERT_TRUE(apply_all(image, {RemoveAccessControlEntryRecord{acl_id(1)}}).ok());
  EXPECT_EQ(image.acls().size(), 1u);
  EXPECT_EQ(image.acl_changes(), 3u);
}

TEST(AclRecords, ImageRefusesWhatContradictsIt) {
  MetadataImage image;
  ASSERT_TRUE(apply_all(image, {acl(1)}).ok());
  auto refused = [&](const MetadataRecord& r) {
    const auto before = image.acl_changes();
    Status st = apply_all(image, {r});
    EXPECT_EQ(image.acl_changes(), before);
    return st.code() == ErrorCode::CORRUPT_MESSAGE;
  };
  EXPECT_TRUE(refused(acl(1, "other")));  // id in use
  EXPECT_TRUE(refused(AccessControlEntryRecord{Uuid{}, 2, "x", 3, "User:a", "*", 3, 3, ""}));
  EXPECT_TRUE(refused(acl(3, "")));
  EXPECT_TRUE(refused(AccessControlEntryRecord{acl_id(4), 2, "x", 3, "", "*", 3, 3, ""}));
  EXPECT_TRUE(refused(AccessControlEntryRecord{acl_id(5), 2, "x", 3, "User:a", "", 3, 3, ""}));
  EXPECT_TRUE(refused(RemoveAccessControlEntryRecord{acl_id(9)}));
  EXPECT_EQ(image.acls().size(), 1u);
}

TEST(AclRecords, SnapshotKeepsTheAcls) {
  MetadataImage image;
  ASSERT_TRUE(apply_all(image, testing::create_topic("orders", 1, 1)).ok());
  ASSERT_TRUE(apply_all(image, {acl(2), acl(1, "p"), RemoveAccessControlEntryRecord{acl_id(2)},
                                acl(3, "q")})
                  .ok());
  auto loaded = decode_snapshot(encode_snapshot(image), image.last_offset() + 1);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  EXPECT_EQ(loaded->acls(), image.acls());
  EXPECT_EQ(loaded->acls().size(), 2u);
  auto records = image_records(image);
  EXPECT_EQ(std::get<AccessControlEntryRecord>(records.back()), acl(3, "q"));  // by id, last
}

}  // namespace
}  // namespace mirra::metadata
