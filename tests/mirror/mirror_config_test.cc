// Mirror names and configs as CreateMirror checks them (mirror/mirror_config.h).
#include "mirror/mirror_config.h"

#include "mirror/mirror_settings.h"

#include <gtest/gtest.h>

namespace mirra::mirror {
namespace {

using Given = std::vector<std::pair<std::string, std::optional<std::string>>>;

TEST(MirrorName, KafkaTopicNameRules) {
  for (const char* ok : {"dr", "us-east.1", "A_b-c", "x"}) {
    EXPECT_TRUE(validate_mirror_name(ok).ok()) << ok;
  }
  for (std::string bad :
       {std::string(), std::string("."), std::string(".."), std::string("has space"),
        std::string("slash/"), std::string(250, 'a'), std::string("é")}) {
    Status s = validate_mirror_name(bad);
    EXPECT_EQ(s.code(), ErrorCode::INVALID_MIRROR_NAME) << bad;
  }
  EXPECT_TRUE(validate_mirror_name(std::string(249, 'a')).ok());
}

TEST(MirrorConfigs, BootstrapServersAreRequiredAndChecked) {
  EXPECT_EQ(validate_mirror_configs({}).status().code(), ErrorCode::INVALID_CONFIG);
  auto missing = validate_mirror_configs({{"security.protocol", "PLAINTEXT"}});
  EXPECT_NE(missing.status().message().find("bootstrap.servers is required"), std::string::npos);
  auto bad = validate_mirror_configs({{"bootstrap.servers", "no-port"}});
  EXPECT_EQ(bad.status().code(), ErrorCode::INVALID_CONFIG);
  EXPECT_NE(bad.status().message().find("bootstrap.servers"), std::string::npos);
  auto good = validate_mirror_configs({{"bootstrap.servers", "a:9092,b:9093"}});
  ASSERT_TRUE(good.ok()) << good.status().to_string();
  EXPECT_EQ(good->at("bootstrap.servers"), "a:9092,b:9093");
  EXPECT_EQ(good->size(), 1u);  // defaults are not written
}

TEST(MirrorConfigs, EveryValueIsChecked) {
  const Given base = {{"bootstrap.servers", "h:1"}};
  auto with = [&](std::string key, std::optional<std::string> value) {
    Given g = base;
    g.emplace_back(std::move(key), std::move(value));
    return validate_mirror_configs(g);
  };
  EXPECT_TRUE(with("security.protocol", "plaintext").ok());
  EXPECT_TRUE(with("mirror.fetch.max.bytes", "1").ok());
  EXPECT_TRUE(with("mirror.topics.include", "orders\\..*,payments").ok());
  struct Bad {
    const char* key;
    std::optional<std::string> value;
    const char* says;
  };
  for (const Bad& b : std::vector<Bad>{
           {"security.protocol", "TLS", "PLAINTEXT, SSL"},
           {"sasl.mechanism", "GSSAPI", "PLAIN"},
           {"mirror.fetch.max.bytes", "0", "at least 1"},
           {"mirror.fetch.max.wait.ms", "-1", "at least 0"},
           {"mirror.fetch.min.bytes", "1k", "not an integer"},
           {"mirror.topics.exclude", "a,(b", "not a regular expression"},
           {"no.such.key", "1", "unknown mirror config 'no.such.key'"},
           {"sasl.username", std::nullopt, "has no value"},
       }) {
    auto r = with(b.key, b.value);
    EXPECT_EQ(r.status().code(), ErrorCode::INVALID_CONFIG) << b.key;
    EXPECT_NE(r.status().message().find(b.says), std::string::npos) << r.status().message();
  }
  Given twice = base;
  twice.emplace_back("bootstrap.servers", "h:2");
  EXPECT_NE(validate_mirror_configs(twice).status().message().find("given twice"),
            std::string::npos);
}

TEST(MirrorConfigs, SecretsNeverReachMessagesOrLogs) {
  EXPECT_TRUE(is_secret("sasl.password"));
  EXPECT_TRUE(is_secret("sasl.jaas.config"));
  EXPECT_TRUE(is_secret("ssl.key.password"));
  EXPECT_FALSE(is_secret("sasl.username"));
  EXPECT_FALSE(is_secret("bootstrap.servers"));
  const std::string line =
      describe_for_log({{"bootstrap.servers", "h:1"}, {"sasl.password", "hunter2"}});
  EXPECT_EQ(line, "bootstrap.servers=h:1, sasl.password=(redacted)");
}

// Issue 15 point 3: SASL_SSL with credentials was accepted and the mirror copied in plaintext,
// unauthenticated. Until TLS and SASL are built (docs/mirroring-design.md §9) every security
// setting is refused, naming the key and never a secret's value, at create, at alter and when
// a stored mirror's configs are parsed for its runner.
TEST(MirrorConfigs, SecurityTheSourceConnectionCannotHonourIsRefused) {
  const Given base = {{"bootstrap.servers", "h:1"}};
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"security.protocol", "SASL_SSL"},
      {"security.protocol", "ssl"},
      {"security.protocol", "SASL_PLAINTEXT"},
      {"sasl.mechanism", "PLAIN"},
      {"sasl.username", "mirror"},
      {"sasl.password", "hunter2"},
      {"sasl.jaas.config", "hunter2"},
      {"ssl.truststore.location", "/etc/ca.pem"},
      {"ssl.keystore.key", "hunter2"},
      {"ssl.key.password", "hunter2"},
      {"ssl.endpoint.identification.algorithm", ""},
  };
  for (const auto& [key, value] : refused) {
    Given given = base;
    given.emplace_back(key, value);
    for (const Status& s :
         {validate_mirror_configs(given).status(),
          altered_mirror_configs(MirrorConfigs{{"bootstrap.servers", "h:1"}}, {{key, value}})
              .status(),
          parse_mirror_settings({{"bootstrap.servers", "h:1"}, {key, value}}).status()}) {
      EXPECT_EQ(s.code(), ErrorCode::INVALID_CONFIG) << key << "=" << value;
      EXPECT_NE(s.message().find(key), std::string::npos) << s.message();
      EXPECT_NE(s.message().find("not supported yet"), std::string::npos) << s.message();
      EXPECT_EQ(s.message().find("hunter2"), std::string::npos) << s.message();
    }
  }
  // The protocol asked for is named first, before the keys that go with it.
  auto both = validate_mirror_configs({{"bootstrap.servers", "h:1"},
                                       {"sasl.mechanism", "PLAIN"},
                                       {"security.protocol", "SASL_SSL"}});
  EXPECT_NE(both.status().message().find("security.protocol=SASL_SSL"), std::string::npos);
  // The one protocol the connection speaks is accepted, in any case.
  EXPECT_TRUE(
      parse_mirror_settings({{"bootstrap.servers", "h:1"}, {"security.protocol", "Plaintext"}})
          .ok());
}

TEST(MirrorConfigs, DefaultsFollowTheSpec) {
  const MirrorConfigs& d = mirror_config_defaults();
  EXPECT_EQ(d.at("mirror.fetch.max.wait.ms"), "500");
  EXPECT_EQ(d.at("mirror.fetch.min.bytes"), "1");
  EXPECT_EQ(d.at("mirror.fetch.max.bytes"), "1048576");
  EXPECT_EQ(d.at("mirror.fetch.response.max.bytes"), "10485760");
  EXPECT_EQ(d.at("mirror.topics.exclude"), "__.*");
  EXPECT_EQ(d.at("security.protocol"), "PLAINTEXT");
  EXPECT_EQ(d.at("bootstrap.servers"), "");
}

}  // namespace
}  // namespace mirra::mirror
