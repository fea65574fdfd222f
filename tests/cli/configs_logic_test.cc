// `mirra configs`' pure part: option rules, the --add-config / --delete-config syntax of
// kafka-configs.sh, SCRAM users, and the describe lines of users, topics and brokers. Quotas are
// configs_quota_logic_test.cc.
#include "cli/configs_logic.h"

#include <gtest/gtest.h>

namespace mirra::cli {
namespace {

using security::ScramMechanism;

ConfigsArgs alter_args() {
  ConfigsArgs a;
  a.alter = true;
  a.entity_types = {"users"};
  a.entity_names = {"alice"};
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
  d.entity_types = {"user"};  // the singular is accepted
  EXPECT_TRUE(check_configs_args(d).ok());
  EXPECT_EQ(d.entity_types, std::vector<std::string>{"users"});
  ConfigsArgs del = alter_args();
  del.add_config.clear();
  del.delete_config = "SCRAM-SHA-512";
  EXPECT_TRUE(check_configs_args(del).ok());
  // A user with a client id, paired in order; the default of a type.
  ConfigsArgs pair = alter_args();
  pair.entity_types = {"users", "client"};
  pair.entity_names = {"alice", std::nullopt};
  pair.add_config = "producer_byte_rate=1024";
  EXPECT_TRUE(check_configs_args(pair).ok()) << check_configs_args(pair).message();
  EXPECT_EQ(pair.entity_types, (std::vector<std::string>{"users", "clients"}));
  ConfigsArgs default_user = alter_args();
  default_user.entity_names = {std::nullopt};
  EXPECT_TRUE(check_configs_args(default_user).ok());  // a quota may follow; SCRAM is refused later
  // Topics and brokers, by name, the broker default, and describe --all.
  ConfigsArgs topic = alter_args();
  topic.entity_types = {"topic"};
  topic.entity_names = {"t1"};
  topic.add_config = "retention.ms=1000";
  EXPECT_TRUE(check_configs_args(topic).ok());
  ConfigsArgs broker_default = topic;
  broker_default.entity_types = {"brokers"};
  broker_default.entity_names = {std::nullopt};
  EXPECT_TRUE(check_configs_args(broker_default).ok());
  ConfigsArgs all;
  all.describe = true;
  all.all = true;
  all.entity_types = {"brokers"};
  all.entity_names = {"1"};
  EXPECT_TRUE(check_configs_args(all).ok());
  ConfigsArgs any_user_any_client;  // describe: types without names match any entity
  any_user_any_client.describe = true;
  any_user_any_client.entity_types = {"clients", "users"};
  EXPECT_TRUE(check_configs_args(any_user_any_client).ok());
}

TEST(ConfigsArgs, BadCombinationsSayWhy) {
  ConfigsArgs both = alter_args();
  both.describe = true;
  EXPECT_NE(error_of(both).find("exactly one of --alter and --describe"), std::string::npos);
  ConfigsArgs neither = alter_args();
  neither.alter = false;
  EXPECT_NE(error_of(neither).find("exactly one"), std::string::npos);
  ConfigsArgs no_type = alter_args();
  no_type.entity_types.clear();
  EXPECT_NE(error_of(no_type).find("--entity-type is required"), std::string::npos);
  ConfigsArgs ips = alter_args();
  ips.entity_types = {"ips"};
  EXPECT_NE(error_of(ips).find("--entity-type 'ips' is not supported"), std::string::npos);
  ConfigsArgs twice = alter_args();
  twice.entity_types = {"users", "user"};
  EXPECT_NE(error_of(twice).find("given twice"), std::string::npos);
  ConfigsArgs mixed = alter_args();
  mixed.entity_types = {"users", "topics"};
  EXPECT_NE(error_of(mixed).find("only users and clients may be given together"),
            std::string::npos);
  ConfigsArgs name_and_default = alter_args();  // two for one type
  name_and_default.entity_names = {"alice", std::nullopt};
  EXPECT_NE(error_of(name_and_default).find("--entity-name / --entity-default"), std::string::npos);
  ConfigsArgs topic_default = alter_args();
  topic_default.entity_types = {"topics"};
  topic_default.entity_names = {std::nullopt};
  EXPECT_NE(error_of(topic_default).find("--entity-default is not allowed for topics"),
            std::string::npos);
  ConfigsArgs broker_name = alter_args();
  broker_name.entity_types = {"brokers"};
  broker_name.entity_names = {"one"};
  EXPECT_NE(error_of(broker_name).find("must be a broker id"), std::string::npos);
  ConfigsArgs unnamed = alter_args();
  unnamed.entity_names.clear();
  EXPECT_NE(error_of(unnamed).find("--alter needs --entity-name or --entity-default"),
            std::string::npos);
  ConfigsArgs unnamed_topic = unnamed;
  unnamed_topic.entity_types = {"topics"};
  EXPECT_NE(error_of(unnamed_topic).find("--alter needs --entity-name"), std::string::npos);
  ConfigsArgs half_named = alter_args();
  half_named.entity_types = {"users", "clients"};
  EXPECT_NE(error_of(half_named).find("for each --entity-type"), std::string::npos);
  ConfigsArgs empty_name = alter_args();
  empty_name.entity_names = {""};
  EXPECT_NE(error_of(empty_name).find("must not be empty"), std::string::npos);
  ConfigsArgs nothing = alter_args();
  nothing.add_config.clear();
  EXPECT_NE(error_of(nothing).find("--add-config or --delete-config"), std::string::npos);
  ConfigsArgs describe_add = alter_args();
  describe_add.alter = false;
  describe_add.describe = true;
  EXPECT_NE(error_of(describe_add).find("go with --alter"), std::string::npos);
  ConfigsArgs all_users;
  all_users.describe = true;
  all_users.all = true;
  all_users.entity_types = {"users"};
  EXPECT_NE(error_of(all_users).find("--all goes with --describe of topics or brokers"),
            std::string::npos);
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
                          "producer_byte_rate=1024", "SCRAM-SHA-256=password=hunter2=x"}) {
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

TEST(AddConfig, KafkasSyntax) {
  auto r = parse_add_config(" retention.ms = 1000 ,cleanup.policy=[compact,delete],x=,");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].key, "retention.ms");
  EXPECT_EQ((*r)[0].value, "1000");
  EXPECT_EQ((*r)[1].key, "cleanup.policy");
  EXPECT_EQ((*r)[1].value, "compact,delete");  // brackets taken out
  EXPECT_EQ((*r)[2].value, "");                // an empty value is allowed
  auto raw = split_add_config("SCRAM-SHA-256=[password=a=b],k=v");
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ((*raw)[0].value, "[password=a=b]");  // '=' inside brackets stays in the value
  for (const char* bad : {"novalue", "a=b=c", "=v", "k=1,k=2", "k=[a,b", "k=a]"}) {
    EXPECT_FALSE(parse_add_config(bad).ok()) << bad;
  }
  EXPECT_EQ(parse_add_config("a=secret=x").status().message().find("secret"), std::string::npos);
}

TEST(DeleteConfig, KeysAndTheirPresence) {
  auto r = parse_delete_config("a, b");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(parse_delete_config("a,a").ok());
  EXPECT_FALSE(parse_delete_config(" , ").ok());
  EXPECT_TRUE(check_deletable({"a"}, {"a", "b"}).ok());
  EXPECT_EQ(check_deletable({"a", "c", "d"}, {"a"}).message().rfind("Invalid config(s): c,d", 0),
            0u);
}

TEST(ResourceConfigs, AlterationsAreSetThenDelete) {
  auto r = config_alterations("retention.ms=1000,cleanup.policy=[compact,delete]", "segment.ms");
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].op, client::AlterConfigOp::set);
  EXPECT_EQ((*r)[1].value, "compact,delete");
  EXPECT_EQ((*r)[2].name, "segment.ms");
  EXPECT_EQ((*r)[2].op, client::AlterConfigOp::remove);
  EXPECT_FALSE((*r)[2].value.has_value());
  auto both = config_alterations("retention.ms=1", "retention.ms");
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("both added and deleted"), std::string::npos);
}

TEST(ResourceConfigs, KafkasDescribeLines) {
  EXPECT_EQ(resource_header("topics", "t1", false), "Dynamic configs for topic t1 are:");
  EXPECT_EQ(resource_header("topics", "t1", true), "All configs for topic t1 are:");
  EXPECT_EQ(resource_header("brokers", "1", false), "Dynamic configs for broker 1 are:");
  EXPECT_EQ(resource_header("brokers", "", false),
            "Default configs for brokers in the cluster are:");
  client::ConfigEntry e{"retention.ms", "1000", false, false, client::ConfigSource::dynamic_topic};
  e.synonyms = {{"retention.ms", "1000", client::ConfigSource::dynamic_topic},
                {"log.retention.ms", "604800000", client::ConfigSource::default_config}};
  EXPECT_EQ(config_entry_line(e),
            "  retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000, "
            "DEFAULT_CONFIG:log.retention.ms=604800000}");
  client::ConfigEntry secret{"ssl.key.password", std::nullopt, false, true,
                             client::ConfigSource::dynamic_broker};
  EXPECT_EQ(config_entry_line(secret), "  ssl.key.password=null sensitive=true synonyms={}");
  EXPECT_EQ(completed_line("topics", "t1"), "Completed updating config for topic t1.");
  EXPECT_EQ(completed_line("brokers", std::nullopt),
            "Completed updating default config for brokers in the cluster.");
  EXPECT_EQ(completed_line("users", "alice"), "Completed updating config for user alice.");
}

TEST(ResourceConfigs, ShownEntriesAreTheEntitysOwnSorted) {
  using S = client::ConfigSource;
  std::vector<client::ConfigEntry> entries = {
      {"segment.ms", "1", false, false, S::dynamic_topic},
      {"cleanup.policy", "delete", false, false, S::default_config},
      {"retention.ms", "5", false, false, S::dynamic_topic},
      {"log.x", "1", false, false, S::dynamic_default_broker},
      {"log.y", "1", false, false, S::dynamic_broker}};
  auto names = [](const std::vector<client::ConfigEntry>& es) {
    std::vector<std::string> out;
    for (const auto& e : es) out.push_back(e.name);
    return out;
  };
  EXPECT_EQ(names(shown_entries(entries, "topics", "t", false)),
            (std::vector<std::string>{"retention.ms", "segment.ms"}));
  EXPECT_EQ(names(shown_entries(entries, "topics", "t", true)).size(), 5u);
  EXPECT_EQ(names(shown_entries(entries, "brokers", "", false)), std::vector<std::string>{"log.x"});
  EXPECT_EQ(names(shown_entries(entries, "brokers", "1", false)),
            std::vector<std::string>{"log.y"});
  EXPECT_EQ(config_resource("brokers", "").type, client::ConfigResourceType::broker);
  EXPECT_EQ(config_resource("topics", "t").type, client::ConfigResourceType::topic);
}

}  // namespace
}  // namespace mirra::cli
