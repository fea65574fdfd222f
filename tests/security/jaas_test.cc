#include "security/jaas.h"

#include <gtest/gtest.h>

namespace mirra::security {
namespace {

TEST(Jaas, ParsesKafkasPlainExample) {
  auto c = parse_jaas_config(
      "org.apache.kafka.common.security.plain.PlainLoginModule required "
      "username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\" "
      "user_alice=\"alice-secret\";");
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->login_module, "org.apache.kafka.common.security.plain.PlainLoginModule");
  EXPECT_EQ(c->control_flag, "required");
  EXPECT_EQ(c->options.size(), 4u);
  EXPECT_EQ(c->options.at("username"), "admin");
  EXPECT_EQ(c->options.at("password"), "admin-secret");
  EXPECT_EQ(
      jaas_plain_users(c.value()),
      (std::map<std::string, std::string>{{"admin", "admin-secret"}, {"alice", "alice-secret"}}));
}

TEST(Jaas, ToleratesWhitespaceAndNewlines) {
  auto c = parse_jaas_config(
      "\n  org.apache.kafka.common.security.scram.ScramLoginModule\n\tREQUIRED\n"
      "    username = alice\r\n    password=\"a b\"\n  ;  \n");
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->login_module, "org.apache.kafka.common.security.scram.ScramLoginModule");
  EXPECT_EQ(c->control_flag, "required");
  EXPECT_EQ(c->options.at("username"), "alice");
  EXPECT_EQ(c->options.at("password"), "a b");
}

TEST(Jaas, NoOptionsAndEveryFlag) {
  for (const char* flag : {"required", "requisite", "sufficient", "optional", "Optional"}) {
    auto c = parse_jaas_config(std::string("m.Module ") + flag + ";");
    ASSERT_TRUE(c.ok()) << flag;
    EXPECT_TRUE(c->options.empty());
  }
}

TEST(Jaas, QuotedEscapesAndSpecialCharacters) {
  auto c = parse_jaas_config(R"(m.M required password="p\"w\\d;=x" other="" user_x="a,b";)");
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->options.at("password"), "p\"w\\d;=x");
  EXPECT_EQ(c->options.at("other"), "");
  EXPECT_EQ(jaas_plain_users(c.value()).at("x"), "a,b");
}

TEST(Jaas, UserPrefixAloneIsNoUser) {
  auto c = parse_jaas_config(R"(m.M required user_="x" userfoo="y" user_bob="b";)");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(jaas_plain_users(c.value()), (std::map<std::string, std::string>{{"bob", "b"}}));
}

TEST(Jaas, RefusesMalformedWithoutQuotingValues) {
  const std::vector<std::string> bad = {
      "",
      ";",
      "m.M",
      "m.M required",                                // no ';'
      "m.M required password=\"hunter2-secret\"",    // no ';'
      "m.M mandatory password=\"hunter2-secret\";",  // bad flag
      "m.M required password \"hunter2-secret\";",   // no '='
      "m.M required password=;",                     // no value
      "m.M required password=\"hunter2-secret;",     // unterminated
      "m.M required =\"hunter2-secret\";",           // no name
      "m.M required password=\"hunter2-secret\" password=\"hunter2-secret\";",
      "m.M required password=\"hunter2-secret\"; n.N required;",  // two entries
      "\"m.M\" required;",
      "m.M required password=hunter2-secret=x;",
      "m.M required password=\"hunter2-secret\";x",
  };
  for (const std::string& text : bad) {
    auto c = parse_jaas_config(text);
    ASSERT_FALSE(c.ok()) << text;
    EXPECT_EQ(c.status().code(), ErrorCode::INVALID_CONFIG) << text;
    EXPECT_EQ(c.status().message().find("hunter2"), std::string::npos) << c.status().message();
  }
}

}  // namespace
}  // namespace mirra::security
