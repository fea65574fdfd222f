// The topic and group filters and the copied topic configs (mirror_filters.h).
#include "mirror/mirror_filters.h"

#include <gtest/gtest.h>

namespace mirra::mirror {
namespace {

using client::ConfigEntry;
using client::ConfigSource;

TEST(MirrorFiltersTest, PatternListMatchesWholeNamesOfAnyItem) {
  PatternList list("orders\\..*, ,pay.*");
  EXPECT_TRUE(list.matches("orders.eu"));
  EXPECT_TRUE(list.matches("payments"));
  EXPECT_FALSE(list.matches("old.orders.eu"));  // a whole match, not a search
  EXPECT_FALSE(list.matches(""));
  EXPECT_TRUE(PatternList("").empty());
  EXPECT_FALSE(PatternList("").matches("x"));
  EXPECT_FALSE(PatternList("(").matches("("));  // does not compile: matches nothing
  EXPECT_TRUE(matches_any(".*", "anything"));
}

TEST(MirrorFiltersTest, NameFilterTakesIncludedNamesThatAreNotExcluded) {
  NameFilter f{PatternList(".*"), PatternList("_.*,tmp-.*")};
  EXPECT_TRUE(f.takes("orders"));
  EXPECT_FALSE(f.takes("_internal"));
  EXPECT_FALSE(f.takes("tmp-1"));
}

TEST(MirrorFiltersTest, CopiesOnlyValidDynamicTopicConfigsThatAreNotExcluded) {
  std::vector<ConfigEntry> entries = {
      {"retention.ms", "1000", false, false, ConfigSource::dynamic_topic},
      {"segment.bytes", "1048576", false, false, ConfigSource::default_config},
      {"min.insync.replicas", "2", false, false, ConfigSource::dynamic_topic},
      {"message.timestamp.type", "LogAppendTime", false, false, ConfigSource::dynamic_topic},
      {"cleanup.policy", "compact", false, false, ConfigSource::dynamic_topic},
      {"max.message.bytes", "2000000", false, false, ConfigSource::dynamic_topic},
      {"retention.bytes", "not-a-number", false, false, ConfigSource::dynamic_topic},
      {"secret.thing", "x", false, true, ConfigSource::dynamic_topic},
  };
  std::vector<std::string> refused;
  auto out = copied_topic_configs(
      entries, PatternList("max\\..*"),
      [&](const std::string& key, const std::string&) { refused.push_back(key); });
  std::map<std::string, std::string> want = {{"retention.ms", "1000"},
                                             {"cleanup.policy", "compact"}};
  EXPECT_EQ(out, want);
  EXPECT_EQ(refused, std::vector<std::string>{"retention.bytes"});
  EXPECT_TRUE(never_copied("mirror.name"));
}

}  // namespace
}  // namespace mirra::mirror
