// A mirror's configs parsed once into MirrorSettings (mirror/mirror_settings.h).
#include "mirror/mirror_settings.h"

#include <gtest/gtest.h>

namespace mirra::mirror {
namespace {

TEST(MirrorSettings, KeysNotGivenTakeTheirDefaults) {
  auto s = parse_mirror_settings({{"bootstrap.servers", "a:9092"}});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->bootstrap_servers, "a:9092");
  EXPECT_EQ(s->security_protocol, "PLAINTEXT");
  EXPECT_EQ(s->fetch_max_wait_ms, 500);
  EXPECT_EQ(s->fetch_min_bytes, 1);
  EXPECT_EQ(s->fetch_max_bytes, 1048576);
  EXPECT_EQ(s->fetch_response_max_bytes, 10485760);
  EXPECT_EQ(s->topics_include, ".*");
  EXPECT_EQ(s->topics_exclude, "__.*");
  EXPECT_EQ(s->groups_include, ".*");
  EXPECT_EQ(s->groups_exclude, "");
  EXPECT_EQ(s->topic_properties_exclude, "");
}

TEST(MirrorSettings, GivenValuesAreParsed) {
  auto s = parse_mirror_settings({{"bootstrap.servers", "a:1,b:2"},
                                  {"security.protocol", "plaintext"},
                                  {"mirror.fetch.max.wait.ms", "0"},
                                  {"mirror.fetch.max.bytes", "2147483647"},
                                  {"mirror.topics.exclude", "tmp\\..*"}});
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(s->security_protocol, "PLAINTEXT");
  EXPECT_EQ(s->fetch_max_wait_ms, 0);
  EXPECT_EQ(s->fetch_max_bytes, 2147483647);
  EXPECT_EQ(s->topics_exclude, "tmp\\..*");
}

// The Fetch fields these configs fill are int32: a larger value was cut to a negative one.
TEST(MirrorSettings, IntConfigsAreThirtyTwoBitAsInKafka) {
  auto s = parse_mirror_settings(
      {{"bootstrap.servers", "a:1"}, {"mirror.fetch.max.bytes", "2147483648"}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), ErrorCode::INVALID_CONFIG);
  EXPECT_NE(s.status().message().find("mirror.fetch.max.bytes"), std::string::npos);
}

TEST(MirrorSettings, InvalidConfigsAreRefusedNamingTheKey) {
  auto s = parse_mirror_settings({{"bootstrap.servers", "a:1"}, {"mirror.fetch.min.bytes", "x"}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("mirror.fetch.min.bytes"), std::string::npos);
  EXPECT_FALSE(parse_mirror_settings({}).ok());  // bootstrap.servers is required
}

}  // namespace
}  // namespace mirra::mirror
