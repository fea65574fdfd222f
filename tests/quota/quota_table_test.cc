// quota/quota_table.h: alter ops (validated as a whole), the version counter, Kafka's eight
// precedence levels with the sensor each one shares, and DescribeClientQuotas filters.
#include <gtest/gtest.h>

#include <algorithm>

#include "quota/quota_table.h"

namespace mirra::quota {
namespace {

EntityName n(std::string name) { return EntityName::named(std::move(name)); }
const EntityName kDefault = EntityName::default_entity();

QuotaEntity user(EntityName u) { return {u, std::nullopt}; }
QuotaEntity client(EntityName c) { return {std::nullopt, c}; }
QuotaEntity both(EntityName u, EntityName c) { return {u, c}; }

TEST(QuotaTable, AlterIsAllOrNothingAndMovesTheVersion) {
  QuotaTable t;
  const QuotaEntity alice = user(n("alice"));
  EXPECT_EQ(t.version(), 0u);

  Status bad = t.alter(alice, {{"producer_byte_rate", 100}, {"bogus_rate", 1}});
  EXPECT_EQ(bad.code(), ErrorCode::INVALID_REQUEST);
  EXPECT_NE(bad.message().find("bogus_rate"), std::string::npos);
  EXPECT_TRUE(t.entries().empty());
  EXPECT_EQ(t.version(), 0u);

  EXPECT_EQ(t.alter(alice, {{"producer_byte_rate", 100}, {"producer_byte_rate", 5}}).code(),
            ErrorCode::INVALID_REQUEST);

  ASSERT_TRUE(t.alter(alice, {{"producer_byte_rate", 100}, {"request_percentage", 50}}).ok());
  const uint64_t v = t.version();
  EXPECT_GT(v, 0u);
  // The same value again is no change.
  ASSERT_TRUE(t.alter(alice, {{"producer_byte_rate", 100}}).ok());
  EXPECT_EQ(t.version(), v);
  // Removing a key that is not set is not an error, and no change either.
  ASSERT_TRUE(t.alter(alice, {{"consumer_byte_rate", 0, true}}).ok());
  EXPECT_EQ(t.version(), v);

  ASSERT_TRUE(t.alter(alice, {{"producer_byte_rate", 0, true}}).ok());
  EXPECT_GT(t.version(), v);
  ASSERT_EQ(t.entries().size(), 1u);
  ASSERT_TRUE(t.alter(alice, {{"request_percentage", 0, true}}).ok());
  EXPECT_TRUE(t.entries().empty()) << "an entity without keys is gone";
}

TEST(QuotaTable, PrecedenceWalksKafkasEightLevels) {
  const QuotaKey k = QuotaKey::producer_byte_rate;
  // Most specific first; the value is the level's number.
  const std::vector<QuotaEntity> levels = {
      both(n("alice"), n("app")), both(n("alice"), kDefault), user(n("alice")),
      both(kDefault, n("app")),   both(kDefault, kDefault),   user(kDefault),
      client(n("app")),           client(kDefault),
  };
  // The sensor each level counts against: defaults stand for the connection's own names.
  const std::vector<SensorKey> sensors = {
      {"alice", "app"}, {"alice", "app"},        {"alice", std::nullopt}, {"alice", "app"},
      {"alice", "app"}, {"alice", std::nullopt}, {std::nullopt, "app"},   {std::nullopt, "app"},
  };
  QuotaTable t;
  for (size_t i = 0; i < levels.size(); ++i) t.set(levels[i], k, static_cast<double>(i + 1));
  // Another user's exact entries never apply to alice.
  t.set(both(n("bob"), n("app")), k, 99);
  t.set(user(n("bob")), k, 98);

  for (size_t i = 0; i < levels.size(); ++i) {
    auto r = t.resolve("alice", "app", k);
    ASSERT_TRUE(r.has_value()) << "level " << i + 1;
    EXPECT_EQ(r->limit, static_cast<double>(i + 1));
    EXPECT_EQ(r->entity, levels[i]) << r->entity.to_string();
    EXPECT_EQ(r->sensor, sensors[i]) << "level " << i + 1;
    t.remove(levels[i], k);
  }
  EXPECT_FALSE(t.resolve("alice", "app", k).has_value());
}

TEST(QuotaTable, PrecedenceIsPerKey) {
  QuotaTable t;
  t.set(both(n("alice"), n("app")), QuotaKey::producer_byte_rate, 10);
  t.set(client(kDefault), QuotaKey::consumer_byte_rate, 20);
  EXPECT_EQ(t.resolve("alice", "app", QuotaKey::producer_byte_rate)->limit, 10);
  auto fetch = t.resolve("alice", "app", QuotaKey::consumer_byte_rate);
  ASSERT_TRUE(fetch);
  EXPECT_EQ(fetch->limit, 20);
  EXPECT_EQ(fetch->entity, client(kDefault));
  EXPECT_FALSE(t.resolve("alice", "app", QuotaKey::request_percentage));
  EXPECT_FALSE(t.resolve("alice", "other", QuotaKey::producer_byte_rate));
}

class QuotaDescribe : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& e : all_) t_.set(e, QuotaKey::producer_byte_rate, 100);
    t_.set(user(n("alice")), QuotaKey::request_percentage, 25);
  }
  std::vector<QuotaEntity> describe(std::vector<FilterComponent> c, bool strict) {
    auto r = t_.describe({std::move(c), strict});
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    std::vector<QuotaEntity> out;
    if (r.ok()) {
      for (const auto& d : *r) out.push_back(d.entity);
    }
    return out;
  }
  Status describe_error(std::vector<FilterComponent> c) {
    return t_.describe({std::move(c), false}).status();
  }

  const std::vector<QuotaEntity> all_ = {
      user(n("alice")), both(n("alice"), n("c1")), user(kDefault),
      client(n("c1")),  client(kDefault),          both(kDefault, kDefault),
  };
  QuotaTable t_;
};

TEST_F(QuotaDescribe, ExactMatchesANameStrictExcludesOtherParts) {
  using V = std::vector<QuotaEntity>;
  EXPECT_EQ(describe({{"user", MatchType::exact, "alice"}}, false),
            (V{user(n("alice")), both(n("alice"), n("c1"))}));
  EXPECT_EQ(describe({{"user", MatchType::exact, "alice"}}, true), (V{user(n("alice"))}));
  EXPECT_EQ(
      describe({{"user", MatchType::exact, "alice"}, {"client-id", MatchType::exact, "c1"}}, true),
      (V{both(n("alice"), n("c1"))}));
  EXPECT_TRUE(describe({{"user", MatchType::exact, "nobody"}}, false).empty());
}

TEST_F(QuotaDescribe, DefaultMatchesOnlyTheDefaultEntity) {
  using V = std::vector<QuotaEntity>;
  const V defaults = {user(kDefault), both(kDefault, kDefault)};
  EXPECT_EQ(describe({{"user", MatchType::default_entity, std::nullopt}}, false), defaults);
  // An exact match with a null name is the default too (as Kafka reads it).
  EXPECT_EQ(describe({{"user", MatchType::exact, std::nullopt}}, false), defaults);
  EXPECT_EQ(describe({{"user", MatchType::default_entity, std::nullopt}}, true),
            (V{user(kDefault)}));
}

// Kafka's "specified" match takes every entity that has a part of the type, the default one
// included (its controller checks only that the type is present).
TEST_F(QuotaDescribe, AnyMatchesEveryEntityWithThatPartDefaultsIncluded) {
  using V = std::vector<QuotaEntity>;
  auto sorted = [](V v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(sorted(describe({{"user", MatchType::any, std::nullopt}}, false)),
            sorted(V{user(n("alice")), both(n("alice"), n("c1")), user(kDefault),
                     both(kDefault, kDefault)}));
  EXPECT_EQ(sorted(describe({{"client-id", MatchType::any, std::nullopt}}, true)),
            sorted(V{client(n("c1")), client(kDefault)}));
  EXPECT_EQ(describe({}, false).size(), all_.size());
  EXPECT_TRUE(describe({}, true).empty());
}

TEST_F(QuotaDescribe, EntriesCarryTheirValues) {
  auto r = t_.describe({{{"user", MatchType::exact, "alice"}}, true});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 1u);
  using P = std::pair<std::string, double>;
  EXPECT_EQ((*r)[0].values,
            (std::vector<P>{{"producer_byte_rate", 100}, {"request_percentage", 25}}));
}

TEST_F(QuotaDescribe, BadFiltersAreInvalidRequests) {
  EXPECT_EQ(
      describe_error({{"user", MatchType::any, std::nullopt}, {"user", MatchType::exact, "alice"}})
          .code(),
      ErrorCode::INVALID_REQUEST);
  EXPECT_EQ(describe_error({{"group", MatchType::any, std::nullopt}}).code(),
            ErrorCode::INVALID_REQUEST);
  EXPECT_EQ(
      describe_error({{"ip", MatchType::any, std::nullopt}, {"user", MatchType::any, std::nullopt}})
          .code(),
      ErrorCode::INVALID_REQUEST);
  EXPECT_EQ(describe_error({{"user", static_cast<MatchType>(7), std::nullopt}}).code(),
            ErrorCode::INVALID_REQUEST);
  // No ip entities are stored, so ip alone selects nothing.
  EXPECT_TRUE(describe({{"ip", MatchType::any, std::nullopt}}, false).empty());
}

}  // namespace
}  // namespace mirra::quota
