// ClientQuotaRecord (docs/formats/metadata.md): its encoding, the image's rules, and snapshots.
#include <gtest/gtest.h>

#include "metadata/image.h"
#include "metadata/records.h"
#include "metadata/snapshot.h"
#include "metadata_test_util.h"

namespace mirra::metadata {
namespace {

using testing::apply_all;

ClientQuotaRecord set_quota(std::vector<QuotaEntityPart> entity, std::string key, double value) {
  return ClientQuotaRecord{std::move(entity), std::move(key), value, false};
}
ClientQuotaRecord remove_quota(std::vector<QuotaEntityPart> entity, std::string key) {
  return ClientQuotaRecord{std::move(entity), std::move(key), 0, true};
}
const QuotaEntityPart kAlice{"user", "alice"};
const QuotaEntityPart kDefaultClient{"client-id", std::nullopt};

quota::QuotaEntity alice_default_client() {
  return {quota::EntityName::named("alice"), quota::EntityName::default_entity()};
}

TEST(QuotaRecords, RoundTripWithKafkasTypeNumber) {
  const ClientQuotaRecord r = set_quota({kAlice, kDefaultClient}, "producer_byte_rate", 1048576);
  const auto bytes = encode_record(r);
  EXPECT_EQ(bytes[0], 0);
  EXPECT_EQ(bytes[1], 14);  // Kafka's ClientQuotaRecord
  EXPECT_EQ(bytes[3], 0);   // version 0
  auto back = decode_record(bytes);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(std::get<ClientQuotaRecord>(*back), r);
  EXPECT_EQ(record_type_name(*back), "ClientQuotaRecord");
  const ClientQuotaRecord rm = remove_quota({kDefaultClient}, "request_percentage");
  auto rm_back = decode_record(encode_record(rm));
  ASSERT_TRUE(rm_back.ok());
  EXPECT_EQ(std::get<ClientQuotaRecord>(*rm_back), rm);
}

TEST(QuotaRecords, TruncationTrailingBytesAndNewerVersionsRefused) {
  const auto bytes = encode_record(set_quota({kAlice}, "consumer_byte_rate", 5000));
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(decode_record(std::span(bytes).first(n)).ok()) << n;
  }
  auto longer = bytes;
  longer.push_back(0);
  EXPECT_EQ(decode_record(longer).status().code(), ErrorCode::CORRUPT_MESSAGE);
  auto newer = bytes;
  newer[3] = 1;
  EXPECT_EQ(decode_record(newer).status().code(), ErrorCode::CORRUPT_MESSAGE);
  // A null entity array (compact length 0) is never written.
  auto null_entity = encode_record(set_quota({}, "consumer_byte_rate", 5000));
  null_entity[4] = 0;
  EXPECT_EQ(decode_record(null_entity).status().code(), ErrorCode::CORRUPT_MESSAGE);
}

TEST(QuotaRecords, ImageSetsReplacesAndRemovesAndMovesTheVersion) {
  MetadataImage image;
  const uint64_t v0 = image.client_quotas().version();
  ASSERT_TRUE(apply_all(image, {set_quota({kAlice, kDefaultClient}, "producer_byte_rate", 1000),
                                set_quota({kAlice, kDefaultClient}, "producer_byte_rate", 2000)})
                  .ok());
  const auto& entries = image.client_quotas().entries();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries.at(alice_default_client()).at(quota::QuotaKey::producer_byte_rate), 2000);
  EXPECT_GT(image.client_quotas().version(), v0);
  auto resolved =
      image.client_quotas().resolve("alice", "any-app", quota::QuotaKey::producer_byte_rate);
  ASSERT_TRUE(resolved.has_value());
  EXPECT_EQ(resolved->limit, 2000);
  ASSERT_TRUE(
      apply_all(image, {remove_quota({kAlice, kDefaultClient}, "producer_byte_rate")}).ok());
  EXPECT_TRUE(image.client_quotas().entries().empty());
  // Removing a key that is not set is fine, as in AlterClientQuotas.
  EXPECT_TRUE(apply_all(image, {remove_quota({kAlice}, "consumer_byte_rate")}).ok());
}

TEST(QuotaRecords, ImageRefusesInvalidEntitiesKeysAndValues) {
  MetadataImage image;
  auto refused = [&](const ClientQuotaRecord& r) {
    return apply_all(image, {r}).code() == ErrorCode::CORRUPT_MESSAGE;
  };
  EXPECT_TRUE(refused(set_quota({}, "producer_byte_rate", 10)));
  EXPECT_TRUE(refused(set_quota({{"group", "g"}}, "producer_byte_rate", 10)));
  EXPECT_TRUE(refused(set_quota({kAlice, {"user", "bob"}}, "producer_byte_rate", 10)));
  EXPECT_TRUE(refused(set_quota({{"user", ""}}, "producer_byte_rate", 10)));
  EXPECT_TRUE(refused(set_quota({{"ip", "1.2.3.4"}}, "connection_creation_rate", 10)));
  EXPECT_TRUE(refused(set_quota({kAlice}, "fetch_rate", 10)));
  EXPECT_TRUE(refused(set_quota({kAlice}, "producer_byte_rate", 0)));
  EXPECT_TRUE(refused(set_quota({kAlice}, "producer_byte_rate", 10.5)));
  EXPECT_TRUE(refused(set_quota({kAlice}, "request_percentage", -1)));
  EXPECT_TRUE(refused(remove_quota({kAlice}, "fetch_rate")));
  EXPECT_TRUE(image.client_quotas().entries().empty());
  EXPECT_EQ(image.last_offset(), -1);
}

TEST(QuotaRecords, SnapshotKeepsTheQuotas) {
  MetadataImage image;
  ASSERT_TRUE(apply_all(image, {set_quota({kAlice}, "consumer_byte_rate", 4096),
                                set_quota({kDefaultClient}, "request_percentage", 12.5),
                                set_quota({kAlice, kDefaultClient}, "producer_byte_rate", 1000)})
                  .ok());
  auto loaded = decode_snapshot(encode_snapshot(image), image.last_offset() + 1);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  EXPECT_EQ(loaded->client_quotas().entries(), image.client_quotas().entries());
  EXPECT_EQ(loaded->client_quotas().entries().size(), 3u);
}

}  // namespace
}  // namespace mirra::metadata
