// `mirra configs`' pure part: option rules, the --add-config / --delete-config syntax of
// kafka-configs.sh for SCRAM users, and the describe line.
#include "cli/configs_logic.h"

#include <gtest/gtest.h>

namespace mirra::cli {
namespace {

using security::ScramMechanism;

ConfigsArgs alter_args() {
  ConfigsArgs a;
  a.alter = true;
  a.entity_type = "users";
  a.entity_name = "alice";
  a.add_config = "SCRAM-SHA-256=[password=x]";
  return a;
}

std::string error_of(ConfigsArgs a) {
  Status s = check_configs_args(a);
  EXPECT_FALSE(s.ok());
  return s.message();
}

TEST(ConfigsArgs, GoodCombinations) {
  ConfigsArgs a = alter_args();
  EXPECT_TRUE(check_configs_args(a).ok());
  ConfigsArgs d;
  d.describe = true;
  d.entity_type = "user";  // the singular is accepted
  EXPECT_TRUE(check_configs_args(d).ok());
  EXPECT_EQ(d.entity_type, "users");
  ConfigsArgs del = alter_args();
  del.add_config.clear();
  del.delete_config = "SCRAM-SHA-512";
  EXPECT_TRUE(check_configs_args(del).ok());
}

TEST(ConfigsArgs, BadCombinationsSayWhy) {
  ConfigsArgs both = alter_args();
  both.describe = true;
  EXPECT_NE(error_of(both).find("exactly one of --alter and --describe"), std::string::npos);
  ConfigsArgs neither = alter_args();
  neither.alter = false;
  EXPECT_NE(error_of(neither).find("exactly one"), std::string::npos);
  ConfigsArgs no_type = alter_args();
  no_type.entity_type.clear();
  EXPECT_NE(error_of(no_type).find("--entity-type is required"), std::string::npos);
  ConfigsArgs topics = alter_args();
  topics.entity_type = "topics";
  EXPECT_NE(error_of(topics).find("'topics' is not supported"), std::string::npos);
  ConfigsArgs deflt = alter_args();
  deflt.entity_name.reset();
  deflt.entity_default = true;
  EXPECT_NE(error_of(deflt).find("--entity-default is not allowed for users"), std::string::npos);
  ConfigsArgs unnamed = alter_args();
  unnamed.entity_name.reset();
  EXPECT_NE(error_of(unnamed).find("--alter needs --entity-name"), std::string::npos);
  ConfigsArgs empty_name = alter_args();
  empty_name.entity_name = "";
  EXPECT_NE(error_of(empty_name).find("must not be empty"), std::string::npos);
  ConfigsArgs nothing = alter_args();
  nothing.add_config.clear();
  EXPECT_NE(error_of(nothing).find("--add-config or --delete-config"), std::string::npos);
  ConfigsArgs describe_add = alter_args();
  describe_add.alter = false;
  describe_add.describe = true;
  EXPECT_NE(error_of(describe_add).find("go with --alter"), std::string::npos);
}

TEST(ScramAddConfig, KafkasExample) {
  auto r = parse_scram_add_config(
      "SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=a=b]",
      "alice");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].user, "alice");
  EXPECT_EQ((*r)[0].mechanism, ScramMechanism::sha256);
  EXPECT_EQ((*r)[0].iterations, 8192);
  EXPECT_EQ((*r)[0].password, "alice-secret");
  EXPECT_EQ((*r)[1].mechanism, ScramMechanism::sha512);
  EXPECT_EQ((*r)[1].iterations, 4096);  // Kafka's default
  EXPECT_EQ((*r)[1].password, "a=b");   // '=' inside a password is kept
  EXPECT_FALSE((*r)[1].salt.has_value());
}

TEST(ScramAddConfig, SaltAndSaltedPasswordInBase64) {
  auto r = parse_scram_add_config(
      "SCRAM-SHA-256=[salt=\"c2FsdA==\",saltedpassword=\"AAEC/w==\",iterations=8192],"
      "SCRAM-SHA-512=[salt=YWI=,password=p]",
      "alice");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ((*r)[0].salt, "salt");
  EXPECT_EQ((*r)[0].salted_password, std::string("\x00\x01\x02\xff", 4));
  EXPECT_EQ((*r)[0].iterations, 8192);
  EXPECT_EQ((*r)[1].salt, "ab");
  EXPECT_FALSE((*r)[1].salted_password.has_value());
  EXPECT_EQ((*r)[1].password, "p");
  for (const char* bad : {"SCRAM-SHA-256=[saltedpassword=AAEC/w==]",  // no salt
                          "SCRAM-SHA-256=[salt=c2FsdA==,saltedpassword=AAEC/w==,password=p]",
                          "SCRAM-SHA-256=[salt=c2FsdA=,password=p]",  // not base64
                          "SCRAM-SHA-256=[salt=c2Fs*A==,password=p]"}) {
    auto b = parse_scram_add_config(bad, "alice");
    EXPECT_FALSE(b.ok()) << bad;
    EXPECT_EQ(b.status().message().find("AAEC"), std::string::npos) << b.status().message();
  }
}

TEST(ScramAddConfig, RefusalsNeverShowThePassword) {
  for (const char* bad : {"SCRAM-SHA-1=[password=hunter2]", "SCRAM-SHA-256=password=hunter2",
                          "SCRAM-SHA-256=[iterations=many,password=hunter2]",
                          "SCRAM-SHA-256=[iterations=4096]", "SCRAM-SHA-256=[pasword=hunter2]",
                          "SCRAM-SHA-256=[password=hunter2", "SCRAM-SHA-256=[password=hunter2]]",
                          "SCRAM-SHA-256=[password=hunter2],SCRAM-SHA-256=[password=hunter2]",
                          "producer_byte_rate=1024"}) {
    auto r = parse_scram_add_config(bad, "alice");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), ErrorCode::INVALID_CONFIG);
    EXPECT_EQ(r.status().message().find("hunter2"), std::string::npos) << r.status().message();
  }
}

TEST(ScramDeleteConfig, OneOrBothMechanisms) {
  auto one = parse_scram_delete_config("SCRAM-SHA-512", "alice");
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].mechanism, ScramMechanism::sha512);
  EXPECT_EQ((*one)[0].user, "alice");
  auto both = parse_scram_delete_config("SCRAM-SHA-256, SCRAM-SHA-512", "alice");
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both->size(), 2u);
  EXPECT_FALSE(parse_scram_delete_config("SCRAM-SHA-1", "alice").ok());
  EXPECT_FALSE(parse_scram_delete_config("SCRAM-SHA-512,SCRAM-SHA-512", "alice").ok());
}

TEST(ScramDescribe, KafkasLine) {
  client::UserScramCredentials u;
  u.user = "alice";
  u.credentials = {{ScramMechanism::sha256, 8192}, {ScramMechanism::sha512, 4096}};
  EXPECT_EQ(describe_line(u),
            "SCRAM credential configs for user-principal 'alice' are "
            "SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096");
}

}  // namespace
}  // namespace mirra::cli
