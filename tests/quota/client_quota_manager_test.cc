// quota/client_quota_manager.h: throttle times from recorded usage, sensors shared as Kafka
// shares them, unrecord, quota changes taking effect at once, idle sensor expiry, the
// request_percentage cap, the fetch size cap and controller mutations.
#include <gtest/gtest.h>

#include "quota/client_quota_manager.h"

namespace mirra::quota {
namespace {

const EntityName kDefault = EntityName::default_entity();
QuotaEntity user(std::string u) { return {EntityName::named(std::move(u)), std::nullopt}; }
QuotaEntity client(std::string c) { return {std::nullopt, EntityName::named(std::move(c))}; }

TEST(ClientQuotaManager, NoQuotaNoThrottleNoSensor) {
  QuotaTable t;
  ClientQuotaManager m(QuotaType::produce, t);
  EXPECT_EQ(m.record("alice", "app", 1e9, 0), 0);
  EXPECT_EQ(m.sensor_count(), 0u);
  // A quota of another type does not apply either.
  t.set(user("alice"), QuotaKey::consumer_byte_rate, 1);
  EXPECT_EQ(m.record("alice", "app", 1e9, 0), 0);
  EXPECT_EQ(m.sensor_count(), 0u);
}

TEST(ClientQuotaManager, ThrottleTimeFromTheRecordedRate) {
  QuotaTable t;
  t.set(user("alice"), QuotaKey::producer_byte_rate, 100);
  ClientQuotaManager m(QuotaType::produce, t);
  // 1000 bytes over the padded 10 s is exactly the limit: not over it.
  EXPECT_EQ(m.record("alice", "app", 1000, 0), 0);
  // 1500 bytes: 150 B/s, (150 - 100) / 100 * 10 s.
  EXPECT_EQ(m.record("alice", "app", 500, 0), 5000);
  EXPECT_EQ(m.throttle_time_ms("alice", "app", 0), 5000);
}

TEST(ClientQuotaManager, ClientsOfOneUserQuotaShareItsSensor) {
  QuotaTable t;
  t.set(user("alice"), QuotaKey::producer_byte_rate, 100);
  ClientQuotaManager m(QuotaType::produce, t);
  EXPECT_EQ(m.record("alice", "c1", 500, 0), 0);
  // Alone, c2's 1000 bytes would be within the quota; together with c1's they are 150 B/s.
  EXPECT_EQ(m.record("alice", "c2", 1000, 0), 5000);
  EXPECT_EQ(m.sensor_count(), 1u);
}

TEST(ClientQuotaManager, ADefaultQuotaIsPerUser) {
  QuotaTable t;
  t.set({kDefault, std::nullopt}, QuotaKey::producer_byte_rate, 100);
  ClientQuotaManager m(QuotaType::produce, t);
  EXPECT_EQ(m.record("bob", "app", 1000, 0), 0);
  EXPECT_EQ(m.record("carol", "app", 1000, 0), 0);
  EXPECT_EQ(m.sensor_count(), 2u);
  EXPECT_EQ(m.record("carol", "app", 500, 0), 5000);
}

TEST(ClientQuotaManager, UnrecordTakesAThrottledFetchBack) {
  QuotaTable t;
  t.set(client("consumer"), QuotaKey::consumer_byte_rate, 100);
  ClientQuotaManager m(QuotaType::fetch, t);
  EXPECT_EQ(m.record("ANONYMOUS", "consumer", 1500, 0), 5000);
  m.unrecord("ANONYMOUS", "consumer", 1500, 0);
  EXPECT_EQ(m.throttle_time_ms("ANONYMOUS", "consumer", 0), 0);
  EXPECT_EQ(m.record("ANONYMOUS", "consumer", 1000, 10), 0);
}

TEST(ClientQuotaManager, AChangedOrRemovedQuotaHoldsAtOnce) {
  QuotaTable t;
  t.set(user("alice"), QuotaKey::producer_byte_rate, 100);
  ClientQuotaManager m(QuotaType::produce, t);
  EXPECT_EQ(m.record("alice", "app", 1500, 0), 5000);
  // Raised: 150 B/s is within 300.
  t.set(user("alice"), QuotaKey::producer_byte_rate, 300);
  EXPECT_EQ(m.throttle_time_ms("alice", "app", 0), 0);
  // Lowered: (150 - 50) / 50 * 10 s; the recorded bytes stayed with the sensor.
  t.set(user("alice"), QuotaKey::producer_byte_rate, 50);
  EXPECT_EQ(m.throttle_time_ms("alice", "app", 0), 20'000);
  // A more specific quota counts on its own sensor (tagged alice and app), which starts empty.
  t.set({EntityName::named("alice"), EntityName::named("app")}, QuotaKey::producer_byte_rate, 75);
  EXPECT_EQ(m.throttle_time_ms("alice", "app", 0), 0);
  EXPECT_EQ(m.record("alice", "app", 1500, 0), 10'000);  // (150 - 75) / 75 * 10 s
  EXPECT_EQ(m.sensor_count(), 2u);
  // Removed: nothing applies.
  t.remove({EntityName::named("alice"), EntityName::named("app")}, QuotaKey::producer_byte_rate);
  t.remove(user("alice"), QuotaKey::producer_byte_rate);
  EXPECT_EQ(m.record("alice", "app", 1e9, 0), 0);
}

TEST(ClientQuotaManager, IdleSensorsExpireAfterAnHour) {
  QuotaTable t;
  t.set(client("a"), QuotaKey::producer_byte_rate, 100);
  t.set(client("b"), QuotaKey::producer_byte_rate, 100);
  ClientQuotaManager m(QuotaType::produce, t);
  m.record("u", "a", 1, 0);
  m.record("u", "b", 1, 600'000);
  EXPECT_EQ(m.sensor_count(), 2u);
  m.expire_idle(kInactiveSensorExpiryMs);
  EXPECT_EQ(m.sensor_count(), 2u) << "exactly an hour idle is not yet expired";
  m.expire_idle(kInactiveSensorExpiryMs + 1);
  EXPECT_EQ(m.sensor_count(), 1u);
  // record() sweeps by itself: a recording with no quota at all, much later, drops b's sensor.
  m.record("u", "none", 1, 600'000 + kInactiveSensorExpiryMs + 60'000);
  EXPECT_EQ(m.sensor_count(), 0u);
}

TEST(ClientQuotaManager, RequestPercentageThrottleIsCappedAtOneWindow) {
  QuotaTable t;
  t.set(client("flood"), QuotaKey::request_percentage, 10);
  t.set(client("flood"), QuotaKey::producer_byte_rate, 10);
  const double used = nanos_to_percentage(5'000'000'000);  // 5 s of thread time
  EXPECT_DOUBLE_EQ(used, 500.0);
  // 500 percent-seconds over 10 s is 50%: (50 - 10) / 10 * 10 s = 40 s, capped to 1 s.
  ClientQuotaManager request(QuotaType::request, t);
  EXPECT_EQ(request.record("u", "flood", used, 0), 1000);
  // The same numbers on a byte quota are not capped.
  ClientQuotaManager produce(QuotaType::produce, t);
  EXPECT_EQ(produce.record("u", "flood", used, 0), 40'000);
}

TEST(ClientQuotaManager, FetchCapIsTheQuotaOverTheUnpaddedWindows) {
  QuotaTable t;
  t.set(user("alice"), QuotaKey::consumer_byte_rate, 1000);
  ClientQuotaManager m(QuotaType::fetch, t, {11, 1000});
  EXPECT_EQ(m.fetch_max_bytes_cap("alice", "app"), 10'000);
  EXPECT_EQ(m.fetch_max_bytes_cap("bob", "app"), std::nullopt);
  ClientQuotaManager wide(QuotaType::fetch, t, {5, 2000});
  EXPECT_EQ(wide.fetch_max_bytes_cap("alice", "app"), 8'000);
}

TEST(ClientQuotaManager, ControllerMutationsUseATokenBucket) {
  QuotaTable t;
  t.set(user("admin"), QuotaKey::controller_mutation_rate, 2);
  ClientQuotaManager m(QuotaType::controller_mutation, t);
  // Strict mode asks first: a fresh bucket (22 tokens) is not exceeded.
  EXPECT_EQ(m.throttle_time_ms("admin", "cli", 0), 0);
  // 30 partitions leave -8 tokens: 8 / 2 s.
  EXPECT_EQ(m.record("admin", "cli", 30, 0), 4000);
  EXPECT_EQ(m.throttle_time_ms("admin", "cli", 1000), 3000);
  EXPECT_EQ(m.throttle_time_ms("admin", "cli", 4000), 0);
}

}  // namespace
}  // namespace mirra::quota
