// Share groups' GROUP configs (groups/share_group_configs.h): the keys, their checks against
// the broker's bounds, the settings a group runs with, and ISO-8601 durations.
#include "groups/share_group_configs.h"

#include <gtest/gtest.h>

namespace mirra::groups {
namespace {

TEST(ShareGroupConfigs, ValuesAreCheckedAgainstTheBrokersBounds) {
  const ShareGroupConfig broker;  // lock 15000..60000, heartbeat 5000..15000, session 45000..60000
  auto ok = [&](const char* key, const char* value) {
    return validate_share_group_config(broker, key, std::string(value)).ok();
  };
  EXPECT_TRUE(ok("share.auto.offset.reset", "earliest"));
  EXPECT_TRUE(ok("share.auto.offset.reset", "latest"));
  EXPECT_TRUE(ok("share.auto.offset.reset", "by_duration:PT1H"));
  EXPECT_FALSE(ok("share.auto.offset.reset", "by_duration:1h"));
  EXPECT_FALSE(ok("share.auto.offset.reset", "none"));
  EXPECT_TRUE(ok("share.isolation.level", "read_committed"));
  EXPECT_FALSE(ok("share.isolation.level", "committed"));
  EXPECT_TRUE(ok("share.record.lock.duration.ms", "15000"));
  EXPECT_FALSE(ok("share.record.lock.duration.ms", "14999"));
  EXPECT_FALSE(ok("share.record.lock.duration.ms", "60001"));
  EXPECT_FALSE(ok("share.record.lock.duration.ms", "20s"));
  EXPECT_FALSE(ok("share.heartbeat.interval.ms", "4999"));
  EXPECT_TRUE(ok("share.session.timeout.ms", "60000"));
  const Status unknown = validate_share_group_config(broker, "share.nonsense", std::string("1"));
  EXPECT_EQ(unknown.code(), ErrorCode::INVALID_CONFIG);
  EXPECT_TRUE(
      validate_share_group_config(broker, "share.record.lock.duration.ms", std::nullopt).ok());
}

TEST(ShareGroupConfigs, SettingsAreTheOverridesOverTheBrokersDefaults) {
  ShareGroupConfig broker;
  broker.record_lock_duration_ms = 20000;
  ShareGroupSettings none = share_group_settings(broker, nullptr);
  EXPECT_EQ(none.auto_offset_reset, ShareGroupSettings::Reset::latest);
  EXPECT_FALSE(none.read_committed);
  EXPECT_EQ(none.record_lock_duration_ms, 20000);
  const std::map<std::string, std::string> overrides{
      {"share.auto.offset.reset", "by_duration:P1DT2M"},
      {"share.isolation.level", "read_committed"},
      {"share.record.lock.duration.ms", "16000"}};
  ShareGroupSettings s = share_group_settings(broker, &overrides);
  EXPECT_EQ(s.auto_offset_reset, ShareGroupSettings::Reset::by_duration);
  EXPECT_EQ(s.reset_duration_ms, 86'400'000 + 120'000);
  EXPECT_TRUE(s.read_committed);
  EXPECT_EQ(s.record_lock_duration_ms, 16000);
  EXPECT_EQ(share_group_config_default(broker, "share.record.lock.duration.ms"), "20000");
}

TEST(ShareGroupConfigs, IsoDurationsAsJavaReadsThem) {
  EXPECT_EQ(parse_iso_duration_ms("PT0.5S"), 500);
  EXPECT_EQ(parse_iso_duration_ms("PT1H30M"), 5'400'000);
  EXPECT_EQ(parse_iso_duration_ms("P2D"), 172'800'000);
  EXPECT_EQ(parse_iso_duration_ms("pt10m"), 600'000);
  for (const char* bad : {"", "P", "PT", "P1DT", "P1H", "PT1D", "P1.5D", "PT-1S", "1H", "PTxS",
                          "P99999999999999999999D"}) {
    EXPECT_EQ(parse_iso_duration_ms(bad), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace mirra::groups
