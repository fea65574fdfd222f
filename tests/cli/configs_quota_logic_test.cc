// `mirra configs`' quota part: the entity and filter the --entity-* pairs make, what an --alter
// of users or clients sends, Java's double format and kafka-configs.sh's quota line.
#include "cli/configs_quota_logic.h"

#include <gtest/gtest.h>

namespace mirra::cli {
namespace {

using client::QuotaMatchType;

ConfigsArgs quota_args(std::vector<std::string> types,
                       std::vector<std::optional<std::string>> names, std::string add,
                       std::string del = "") {
  ConfigsArgs a;
  a.alter = true;
  a.entity_types = std::move(types);
  a.entity_names = std::move(names);
  a.add_config = std::move(add);
  a.delete_config = std::move(del);
  EXPECT_TRUE(check_configs_args(a).ok()) << check_configs_args(a).message();
  return a;
}

std::string plan_error(const ConfigsArgs& a) {
  auto r = quota_alter_plan(a);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

TEST(QuotaKeys, KafkasFour) {
  for (const char* k : {"producer_byte_rate", "consumer_byte_rate", "request_percentage",
                        "controller_mutation_rate"})
    EXPECT_TRUE(is_quota_key(k)) << k;
  EXPECT_FALSE(is_quota_key("connection_creation_rate"));  // ips only
  EXPECT_FALSE(is_quota_key("SCRAM-SHA-256"));
}

TEST(JavaDouble, AsDoubleToString) {
  EXPECT_EQ(java_double(1048576), "1048576.0");
  EXPECT_EQ(java_double(50), "50.0");
  EXPECT_EQ(java_double(0.5), "0.5");
  EXPECT_EQ(java_double(0), "0.0");
  EXPECT_EQ(java_double(9999999), "9999999.0");
  EXPECT_EQ(java_double(1e7), "1.0E7");
  EXPECT_EQ(java_double(10485760), "1.048576E7");
  EXPECT_EQ(java_double(0.001), "0.001");
  EXPECT_EQ(java_double(0.0001), "1.0E-4");
  EXPECT_EQ(java_double(-2.5), "-2.5");
}

TEST(QuotaEntity, PairsInOrder) {
  // --entity-type users --entity-name alice --entity-type clients --entity-default
  ConfigsArgs a = quota_args({"users", "clients"}, {"alice", std::nullopt}, "producer_byte_rate=1");
  client::QuotaEntity e = quota_entity(a);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].type, "user");
  EXPECT_EQ(e[0].name, "alice");
  EXPECT_EQ(e[1].type, "client-id");
  EXPECT_FALSE(e[1].name.has_value());
  // The other way round: the types pair with the names as given.
  ConfigsArgs b = quota_args({"clients", "users"}, {"app1", std::nullopt}, "producer_byte_rate=1");
  e = quota_entity(b);
  EXPECT_EQ(e[0].type, "client-id");
  EXPECT_EQ(e[0].name, "app1");
  EXPECT_EQ(e[1].type, "user");
  EXPECT_FALSE(e[1].name.has_value());
}

TEST(QuotaFilter, ExactDefaultAnyAndStrict) {
  ConfigsArgs a;
  a.describe = true;
  a.entity_types = {"users", "clients"};
  a.entity_names = {"alice"};
  client::QuotaFilter f = quota_filter(a);
  EXPECT_TRUE(f.strict);  // ClientQuotaFilter.containsOnly, as kafka-configs.sh
  ASSERT_EQ(f.components.size(), 2u);
  EXPECT_EQ(f.components[0].entity_type, "user");
  EXPECT_EQ(f.components[0].match_type, QuotaMatchType::exact);
  EXPECT_EQ(f.components[0].match, "alice");
  EXPECT_EQ(f.components[1].entity_type, "client-id");
  EXPECT_EQ(f.components[1].match_type, QuotaMatchType::any);
  a.entity_names = {std::nullopt, "app1"};
  f = quota_filter(a);
  EXPECT_EQ(f.components[0].match_type, QuotaMatchType::default_entity);
  EXPECT_FALSE(f.components[0].match.has_value());
  EXPECT_EQ(f.components[1].match_type, QuotaMatchType::exact);
  EXPECT_EQ(f.components[1].match, "app1");
}

TEST(QuotaLine, KafkasWording) {
  client::QuotaEntry e;
  e.entity = {{"client-id", "app1"}, {"user", "alice"}};  // the user is named first anyway
  e.values = {{"request_percentage", 50}, {"producer_byte_rate", 1048576}};
  EXPECT_EQ(quota_line(e),
            "Quota configs for user-principal 'alice', client-id 'app1' are "
            "producer_byte_rate=1048576.0, request_percentage=50.0");
  e.entity = {{"user", std::nullopt}};
  e.values = {{"consumer_byte_rate", 2e7}};
  EXPECT_EQ(quota_line(e),
            "Quota configs for the default user-principal are consumer_byte_rate=2.0E7");
  e.entity = {{"client-id", std::nullopt}};
  EXPECT_EQ(quota_line(e), "Quota configs for the default client-id are consumer_byte_rate=2.0E7");
}

TEST(QuotaAlterPlan, QuotasSetThenRemoved) {
  auto r = quota_alter_plan(quota_args({"users", "clients"}, {"alice", "app1"},
                                       "producer_byte_rate=1048576,request_percentage=[50.5]",
                                       "consumer_byte_rate"));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->quota_ops.size(), 3u);
  EXPECT_EQ(r->quota_ops[0].key, "producer_byte_rate");
  EXPECT_EQ(r->quota_ops[0].value, 1048576);
  EXPECT_FALSE(r->quota_ops[0].remove);
  EXPECT_EQ(r->quota_ops[1].value, 50.5);
  EXPECT_EQ(r->quota_ops[2].key, "consumer_byte_rate");
  EXPECT_TRUE(r->quota_ops[2].remove);
  EXPECT_EQ(r->quota_deletes, std::vector<std::string>{"consumer_byte_rate"});
  EXPECT_TRUE(r->scram_upserts.empty());
}

TEST(QuotaAlterPlan, UsersSplitQuotaAndScramKeys) {
  auto r = quota_alter_plan(quota_args(
      {"users"}, {"alice"}, "SCRAM-SHA-256=[iterations=8192,password=p],producer_byte_rate=1e6",
      "SCRAM-SHA-512,consumer_byte_rate"));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->quota_ops.size(), 2u);
  EXPECT_EQ(r->quota_ops[0].value, 1e6);
  ASSERT_EQ(r->scram_upserts.size(), 1u);
  EXPECT_EQ(r->scram_upserts[0].user, "alice");
  EXPECT_EQ(r->scram_upserts[0].iterations, 8192);
  EXPECT_EQ(r->scram_upserts[0].password, "p");
  ASSERT_EQ(r->scram_deletes.size(), 1u);
  EXPECT_EQ(r->scram_deletes[0].mechanism, security::ScramMechanism::sha512);
  // The default user takes quotas only.
  EXPECT_TRUE(quota_alter_plan(quota_args({"users"}, {std::nullopt}, "producer_byte_rate=5")).ok());
  EXPECT_NE(plan_error(quota_args({"users"}, {std::nullopt}, "SCRAM-SHA-256=[password=p]"))
                .find("--entity-default is not allowed for users with SCRAM"),
            std::string::npos);
}

TEST(QuotaAlterPlan, RefusalsNameTheKey) {
  // Clients take quota keys only.
  EXPECT_NE(plan_error(quota_args({"clients"}, {"app1"}, "retention.ms=5"))
                .find("'retention.ms' is not a quota config"),
            std::string::npos);
  const std::string scram_for_client = plan_error(
      quota_args({"users", "clients"}, {"alice", "app1"}, "SCRAM-SHA-256=[password=hunter2]"));
  EXPECT_NE(scram_for_client.find("SCRAM credentials are for users alone"), std::string::npos);
  EXPECT_EQ(scram_for_client.find("hunter2"), std::string::npos);
  EXPECT_NE(plan_error(quota_args({"clients"}, {"app1"}, "", "SCRAM-SHA-256"))
                .find("--delete-config: 'SCRAM-SHA-256' is not a quota config"),
            std::string::npos);
  EXPECT_NE(plan_error(quota_args({"users"}, {"alice"}, "foo=1")).find("not a config of users"),
            std::string::npos);
  for (const char* bad : {"producer_byte_rate=abc", "producer_byte_rate=", "producer_byte_rate=1x",
                          "producer_byte_rate=inf", "producer_byte_rate=nan"}) {
    EXPECT_NE(plan_error(quota_args({"clients"}, {"app1"}, bad)).find("is not a number"),
              std::string::npos)
        << bad;
  }
  EXPECT_NE(
      plan_error(quota_args({"clients"}, {"app1"}, "producer_byte_rate=1", "producer_byte_rate"))
          .find("both added and deleted"),
      std::string::npos);
}

TEST(QuotaDescribe, ScramOnlyForNamedOrAllUsers) {
  ConfigsArgs a;
  a.describe = true;
  a.entity_types = {"users"};
  EXPECT_TRUE(describes_scram(a));
  a.entity_names = {"alice"};
  EXPECT_TRUE(describes_scram(a));
  a.entity_names = {std::nullopt};
  EXPECT_FALSE(describes_scram(a));
  a.entity_names = {"alice"};
  a.entity_types = {"users", "clients"};
  EXPECT_FALSE(describes_scram(a));
  a.entity_types = {"clients"};
  EXPECT_FALSE(describes_scram(a));
}

}  // namespace
}  // namespace mirra::cli
