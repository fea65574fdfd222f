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
  EXPECT_TRUE(is_secret("ssl.keystore.key"));
  EXPECT_TRUE(is_secret("ssl.truststore.password"));
  EXPECT_FALSE(is_secret("sasl.username"));
  EXPECT_FALSE(is_secret("bootstrap.servers"));
  const std::string line =
      describe_for_log({{"bootstrap.servers", "h:1"}, {"sasl.password", "hunter2"}});
  EXPECT_EQ(line, "bootstrap.servers=h:1, sasl.password=(redacted)");
}

// Issue 17 point 6: a mirror's own TLS and SASL settings, read as the source connection reads
// them (client::read_client_security). What it cannot honour is refused, naming the key and
// never a secret's value, at create, at alter and when a stored mirror's configs are parsed.
TEST(MirrorConfigs, SecuritySettingsAreAcceptedAsTheSourceConnectionReadsThem) {
  const MirrorConfigs sasl_ssl = {
      {"bootstrap.servers", "h:1"},        {"security.protocol", "sasl_ssl"},
      {"sasl.mechanism", "SCRAM-SHA-512"}, {"sasl.username", "mirror"},
      {"sasl.password", "hunter2"},        {"ssl.truststore.location", "/etc/ca.pem"}};
  auto settings = parse_mirror_settings(sasl_ssl);
  ASSERT_TRUE(settings.ok()) << settings.status().to_string();
  EXPECT_EQ(settings->security_protocol, "SASL_SSL");
  EXPECT_EQ(settings->security.protocol, client::SecurityProtocol::sasl_ssl);
  EXPECT_EQ(settings->security.sasl_password, "hunter2");
  EXPECT_EQ(settings->security.tls.truststore_location, "/etc/ca.pem");
  auto ssl = parse_mirror_settings({{"bootstrap.servers", "h:1"},
                                    {"security.protocol", "SSL"},
                                    {"ssl.keystore.location", "/etc/client.pem"},
                                    {"ssl.truststore.certificates", "-----BEGIN..."}});
  ASSERT_TRUE(ssl.ok()) << ssl.status().to_string();
  EXPECT_EQ(ssl->security.tls.keystore_location, "/etc/client.pem");

  const Given base = {{"bootstrap.servers", "h:1"}};
  struct Refused {
    std::vector<std::pair<std::string, std::string>> configs;
    const char* says;
  };
  for (const Refused& r : std::vector<Refused>{
           {{{"sasl.password", "hunter2"}}, "sasl.password needs security.protocol SASL"},
           {{{"ssl.keystore.key", "hunter2"}}, "ssl.keystore.key needs security.protocol SSL"},
           {{{"security.protocol", "SASL_SSL"}, {"sasl.password", "hunter2"}}, "needs credentials"},
           {{{"security.protocol", "SASL_PLAINTEXT"}, {"sasl.jaas.config", "broken \"hunter2"}},
            "sasl.jaas.config"},
           {{{"security.protocol", "SSL"}, {"ssl.client.auth", "required"}},
            "unknown mirror config 'ssl.client.auth'"},
       }) {
    Given given = base;
    std::map<std::string, std::optional<std::string>> changes;
    MirrorConfigs parsed = {{"bootstrap.servers", "h:1"}};
    for (const auto& [k, v] : r.configs) {
      given.emplace_back(k, v);
      changes.emplace(k, v);
      parsed.emplace(k, v);
    }
    for (const Status& s :
         {validate_mirror_configs(given).status(),
          altered_mirror_configs(MirrorConfigs{{"bootstrap.servers", "h:1"}}, changes).status(),
          parse_mirror_settings(parsed).status()}) {
      EXPECT_EQ(s.code(), ErrorCode::INVALID_CONFIG) << r.says;
      EXPECT_NE(s.message().find(r.says), std::string::npos) << s.message();
      EXPECT_EQ(s.message().find("hunter2"), std::string::npos) << s.message();
    }
  }
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
