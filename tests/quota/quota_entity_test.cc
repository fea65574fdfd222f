// quota/quota_entity.h: entities from the wire with Kafka's refusals, and the quota keys and
// their values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "quota/quota_entity.h"

namespace mirra::quota {
namespace {

TEST(QuotaEntity, WireComponentsMakeAnEntityAndBack) {
  auto e = entity_from_wire({{"user", "alice"}, {"client-id", std::nullopt}});
  ASSERT_TRUE(e.ok()) << e.status().to_string();
  ASSERT_TRUE(e->user && e->client_id);
  EXPECT_EQ(*e->user, EntityName::named("alice"));
  EXPECT_TRUE(e->client_id->is_default);
  EXPECT_EQ(e->to_string(), "user 'alice', client-id <default>");

  const auto wire = entity_to_wire(*e);
  ASSERT_EQ(wire.size(), 2u);
  EXPECT_EQ(wire[0].entity_type, "user");
  EXPECT_EQ(wire[0].name, "alice");
  EXPECT_EQ(wire[1].entity_type, "client-id");
  EXPECT_FALSE(wire[1].name.has_value());

  auto client_only = entity_from_wire({{"client-id", "c1"}});
  ASSERT_TRUE(client_only.ok());
  EXPECT_FALSE(client_only->user.has_value());
}

void expect_invalid(const std::vector<EntityComponent>& c, std::string_view words) {
  auto e = entity_from_wire(c);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), ErrorCode::INVALID_REQUEST);
  EXPECT_NE(e.status().message().find(words), std::string::npos) << e.status().message();
}

TEST(QuotaEntity, InvalidEntitiesAreInvalidRequests) {
  expect_invalid({}, "empty");
  expect_invalid({{"group", "g"}}, "group");
  expect_invalid({{"user", "a"}, {"user", "b"}}, "Duplicate user");
  expect_invalid({{"client-id", ""}}, "Empty client-id");
  expect_invalid({{"ip", "10.0.0.1"}, {"user", "a"}}, "combination");
  // ip alone is Kafka-valid but not supported here yet.
  expect_invalid({{"ip", "10.0.0.1"}}, "not supported");
}

TEST(QuotaEntity, QuotaKeysParseAndUnknownKeysAreNamed) {
  for (QuotaKey k : kAllQuotaKeys) {
    auto parsed = parse_quota_key(quota_key_name(k));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, k);
  }
  auto bad = parse_quota_key("producer_rate");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::INVALID_REQUEST);
  EXPECT_NE(bad.status().message().find("producer_rate"), std::string::npos);
  // The ip key is not a user/client-id key.
  EXPECT_FALSE(parse_quota_key("connection_creation_rate").ok());
}

TEST(QuotaEntity, ValuesMustBePositiveAndByteRatesWhole) {
  EXPECT_TRUE(validate_quota_value(QuotaKey::producer_byte_rate, 1048576).ok());
  EXPECT_TRUE(validate_quota_value(QuotaKey::consumer_byte_rate, 1).ok());
  EXPECT_TRUE(validate_quota_value(QuotaKey::request_percentage, 0.5).ok());
  EXPECT_TRUE(validate_quota_value(QuotaKey::controller_mutation_rate, 2.5).ok());

  for (auto [key, value] : std::vector<std::pair<QuotaKey, double>>{
           {QuotaKey::producer_byte_rate, 1.5},
           {QuotaKey::consumer_byte_rate, 0},
           {QuotaKey::producer_byte_rate, -1},
           {QuotaKey::consumer_byte_rate, 1e300},
           {QuotaKey::request_percentage, 0},
           {QuotaKey::controller_mutation_rate, -0.1},
           {QuotaKey::request_percentage, std::nan("")},
           {QuotaKey::request_percentage, std::numeric_limits<double>::infinity()},
           {QuotaKey::controller_mutation_rate, std::numeric_limits<double>::infinity()},
           {QuotaKey::producer_byte_rate, std::numeric_limits<double>::infinity()},
           {QuotaKey::consumer_byte_rate, -std::numeric_limits<double>::infinity()},
       }) {
    const Status s = validate_quota_value(key, value);
    EXPECT_EQ(s.code(), ErrorCode::INVALID_REQUEST) << quota_key_name(key) << "=" << value;
    EXPECT_NE(s.message().find(quota_key_name(key)), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace mirra::quota
