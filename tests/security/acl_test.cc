// ACL bindings, filters, the authorizer's settings (security/acl.h).
#include "security/acl.h"

#include <gtest/gtest.h>

#include <map>

#include "acl_test_util.h"

namespace mirra::security {
namespace {

using namespace mirra::security::testing;  // acl_test_util.h

TEST(AclEnums, CodesAndNamesAreKafkas) {
  EXPECT_EQ(static_cast<int>(RT::transactional_id), 5);
  EXPECT_EQ(static_cast<int>(PT::prefixed), 4);
  EXPECT_EQ(static_cast<int>(Op::idempotent_write), 12);
  EXPECT_EQ(static_cast<int>(Perm::allow), 3);
  EXPECT_EQ(resource_type_name(RT::transactional_id), "TRANSACTIONAL_ID");
  EXPECT_EQ(acl_operation_name(Op::del), "DELETE");
  EXPECT_EQ(acl_operation_name(Op::describe_configs), "DESCRIBE_CONFIGS");
  EXPECT_EQ(permission_type_name(Perm::deny), "DENY");
  EXPECT_EQ(pattern_type_name(PT::literal), "LITERAL");
  EXPECT_EQ(resource_type_from_code(9), RT::unknown);
  EXPECT_EQ(acl_operation_from_code(-1), Op::unknown);
  EXPECT_EQ(acl_operation_from_code(15), Op::unknown);
  EXPECT_EQ(permission_type_from_code(3), Perm::allow);
  EXPECT_EQ(pattern_type_from_code(2), PT::match);
}

TEST(AclEnums, OperationNamesAsKafkasToolsTakeThem) {
  EXPECT_EQ(acl_operation_from_name("Read"), Op::read);
  EXPECT_EQ(acl_operation_from_name("IdempotentWrite"), Op::idempotent_write);
  EXPECT_EQ(acl_operation_from_name("idempotent_write"), Op::idempotent_write);
  EXPECT_EQ(acl_operation_from_name("CLUSTER_ACTION"), Op::cluster_action);
  EXPECT_EQ(acl_operation_from_name("clusteraction"), Op::cluster_action);
  EXPECT_EQ(acl_operation_from_name("DescribeConfigs"), Op::describe_configs);
  EXPECT_EQ(acl_operation_from_name("All"), Op::all);
  EXPECT_EQ(acl_operation_from_name("Delete"), Op::del);
  EXPECT_EQ(acl_operation_from_name("Unknown"), std::nullopt);
  EXPECT_EQ(acl_operation_from_name("Fly"), std::nullopt);
  EXPECT_EQ(pattern_type_from_name("prefixed"), PT::prefixed);
  EXPECT_EQ(pattern_type_from_name("MATCH"), PT::match);
  EXPECT_EQ(pattern_type_from_name("nope"), std::nullopt);
}

TEST(AclValidation, AcceptsWhatKafkaAccepts) {
  EXPECT_TRUE(
      validate_for_creation(binding(RT::topic, "orders", PT::literal, "User:alice", Op::read))
          .ok());
  EXPECT_TRUE(validate_for_creation(binding(RT::cluster, "kafka-cluster", PT::literal, "User:a",
                                            Op::idempotent_write))
                  .ok());
  EXPECT_TRUE(
      validate_for_creation(binding(RT::group, "g", PT::prefixed, "User:*", Op::all, Perm::deny))
          .ok());
  EXPECT_TRUE(
      validate_for_creation(binding(RT::transactional_id, "*", PT::literal, "User:a", Op::write))
          .ok());
}

TEST(AclValidation, RefusesFilterValuesEmptyNamesAndOperationsOfOtherTypes) {
  auto refused = [](const AclBinding& b) {
    Status s = validate_for_creation(b);
    EXPECT_EQ(s.code(), ErrorCode::INVALID_REQUEST);
    EXPECT_FALSE(s.message().empty());
    return !s.ok();
  };
  EXPECT_TRUE(refused(binding(RT::any, "x", PT::literal, "User:a", Op::read)));
  EXPECT_TRUE(refused(binding(RT::unknown, "x", PT::literal, "User:a", Op::read)));
  EXPECT_TRUE(refused(binding(RT::topic, "x", PT::match, "User:a", Op::read)));
  EXPECT_TRUE(refused(binding(RT::topic, "x", PT::any, "User:a", Op::read)));
  EXPECT_TRUE(refused(binding(RT::topic, "x", PT::unknown, "User:a", Op::read)));
  EXPECT_TRUE(refused(binding(RT::topic, "x", PT::literal, "User:a", Op::any)));
  EXPECT_TRUE(refused(binding(RT::topic, "x", PT::literal, "User:a", Op::unknown)));
  EXPECT_TRUE(refused(binding(RT::topic, "x", PT::literal, "User:a", Op::read, Perm::any)));
  EXPECT_TRUE(refused(binding(RT::topic, "x", PT::literal, "User:a", Op::read, Perm::unknown)));
  EXPECT_TRUE(refused(binding(RT::topic, "", PT::literal, "User:a", Op::read)));
  EXPECT_TRUE(refused(binding(RT::cluster, "my-cluster", PT::literal, "User:a", Op::alter)));
  EXPECT_TRUE(refused(binding(RT::topic, "x", PT::literal, "User:a", Op::idempotent_write)));
  EXPECT_TRUE(refused(binding(RT::group, "g", PT::literal, "User:a", Op::write)));
  EXPECT_TRUE(refused(binding(RT::transactional_id, "t", PT::literal, "User:a", Op::read)));
  EXPECT_TRUE(refused(binding(RT::topic, "x", PT::literal, "alice", Op::read)));
  EXPECT_TRUE(refused(binding(RT::topic, "x", PT::literal, "User:", Op::read)));
  EXPECT_TRUE(refused(binding(RT::topic, "x", PT::literal, ":alice", Op::read)));
  EXPECT_TRUE(refused(binding(RT::topic, "x", PT::literal, "User:a", Op::read, Perm::allow, "")));
}

TEST(AclStrings, AreKafkasToStrings) {
  const auto b = binding(RT::topic, "orders", PT::literal, "User:alice", Op::read);
  EXPECT_EQ(resource_pattern_string(b),
            "ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)");
  EXPECT_EQ(entry_string(b),
            "(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)");
}

// ---- filters (§2.5 of the research notes: ResourcePatternFilter / AccessControlEntryFilter) ----

const AclBinding kLiteral = binding(RT::topic, "orders", PT::literal, "User:a", Op::read);
const AclBinding kWildcard = binding(RT::topic, "*", PT::literal, "User:a", Op::read);
const AclBinding kPrefixed = binding(RT::topic, "ord", PT::prefixed, "User:a", Op::read);
const AclBinding kOtherPrefixed = binding(RT::topic, "x", PT::prefixed, "User:a", Op::read);
const AclBinding kGroup =
    binding(RT::group, "orders", PT::literal, "User:b", Op::read, Perm::deny, "10.0.0.1");

AclBindingFilter name_filter(PT pattern, std::optional<std::string> name) {
  AclBindingFilter f;
  f.pattern_type = pattern;
  f.resource_name = std::move(name);
  return f;
}

TEST(AclFilter, AnyMatchesEveryPatternTypeWithAnEqualName) {
  const auto f = name_filter(PT::any, "orders");
  EXPECT_TRUE(f.matches(kLiteral));
  EXPECT_TRUE(f.matches(kGroup));  // resource type ANY
  EXPECT_FALSE(f.matches(kWildcard));
  EXPECT_FALSE(f.matches(kPrefixed));
  EXPECT_TRUE(name_filter(PT::any, "ord").matches(kPrefixed));
  EXPECT_TRUE(AclBindingFilter{}.matches(kPrefixed));  // everything null / ANY
}

TEST(AclFilter, MatchFindsWhatAffectsTheResource) {
  const auto f = name_filter(PT::match, "orders");
  EXPECT_TRUE(f.matches(kLiteral));
  EXPECT_TRUE(f.matches(kWildcard));
  EXPECT_TRUE(f.matches(kPrefixed));
  EXPECT_FALSE(f.matches(kOtherPrefixed));
  EXPECT_FALSE(name_filter(PT::match, "or").matches(kPrefixed));  // "ord" is not a prefix of "or"
  EXPECT_FALSE(name_filter(PT::match, "order").matches(kLiteral));
  EXPECT_TRUE(name_filter(PT::match, std::nullopt).matches(kOtherPrefixed));
}

TEST(AclFilter, LiteralAndPrefixedMatchOnlyTheirTypeWithAnEqualName) {
  EXPECT_TRUE(name_filter(PT::literal, "orders").matches(kLiteral));
  EXPECT_FALSE(name_filter(PT::literal, "orders").matches(kWildcard));
  EXPECT_FALSE(name_filter(PT::literal, "orders").matches(kPrefixed));
  EXPECT_TRUE(name_filter(PT::literal, "*").matches(kWildcard));
  EXPECT_TRUE(name_filter(PT::prefixed, "ord").matches(kPrefixed));
  EXPECT_FALSE(name_filter(PT::prefixed, "orders").matches(kPrefixed));
  EXPECT_FALSE(name_filter(PT::prefixed, "orders").matches(kLiteral));
  EXPECT_TRUE(name_filter(PT::prefixed, std::nullopt).matches(kOtherPrefixed));
  EXPECT_FALSE(name_filter(PT::prefixed, std::nullopt).matches(kLiteral));
}

TEST(AclFilter, EntryFieldsMatchWhenNullOrAnyElseEqual) {
  AclBindingFilter f;
  f.resource_type = RT::group;
  EXPECT_TRUE(f.matches(kGroup));
  EXPECT_FALSE(f.matches(kLiteral));
  f.principal = "User:b";
  f.host = "10.0.0.1";
  f.operation = Op::read;
  f.permission = Perm::deny;
  EXPECT_TRUE(f.matches(kGroup));
  f.host = "*";  // a filter's "*" is the literal host "*", not a wildcard
  EXPECT_FALSE(f.matches(kGroup));
  f.host.reset();
  f.principal = "User:*";
  EXPECT_FALSE(f.matches(kGroup));
  f.principal.reset();
  f.operation = Op::all;  // ALL in a filter is the operation ALL, not ANY
  EXPECT_FALSE(f.matches(kGroup));
  f.operation = Op::any;
  f.permission = Perm::allow;
  EXPECT_FALSE(f.matches(kGroup));
}

TEST(AclFilter, UnknownValuesAreInvalid) {
  EXPECT_TRUE(validate_filter(AclBindingFilter{}).ok());
  AclBindingFilter f;
  f.operation = Op::unknown;
  EXPECT_EQ(validate_filter(f).code(), ErrorCode::INVALID_REQUEST);
  f = {};
  f.resource_type = RT::unknown;
  EXPECT_EQ(validate_filter(f).code(), ErrorCode::INVALID_REQUEST);
  f = {};
  f.pattern_type = PT::unknown;
  EXPECT_EQ(validate_filter(f).code(), ErrorCode::INVALID_REQUEST);
  f = {};
  f.permission = Perm::unknown;
  EXPECT_EQ(validate_filter(f).code(), ErrorCode::INVALID_REQUEST);
}

// ---- settings ----

Result<std::optional<AuthorizerConfig>> parse(std::map<std::string, std::string> settings) {
  return parse_authorizer_config([&](std::string_view key) -> std::optional<std::string> {
    auto it = settings.find(std::string(key));
    if (it == settings.end()) return std::nullopt;
    return it->second;
  });
}

TEST(AuthorizerConfig, UnsetOrEmptyClassMeansNoAuthorizer) {
  auto none = parse({{"super.users", "User:admin"}});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto empty = parse({{"authorizer.class.name", " "}});
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_value());
}

TEST(AuthorizerConfig, AcceptsKafkasClassNamesAndMirras) {
  for (const char* name :
       {"org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "kafka.security.authorizer.AclAuthorizer", "mirra.security.Authorizer"}) {
    auto c = parse({{"authorizer.class.name", name}});
    ASSERT_TRUE(c.ok()) << name;
    ASSERT_TRUE(c->has_value());
    EXPECT_TRUE((*c)->super_users.empty());
    EXPECT_FALSE((*c)->allow_everyone_if_no_acl_found);
  }
  auto other = parse({{"authorizer.class.name", "com.example.MyAuthorizer"}});
  EXPECT_EQ(other.status().code(), ErrorCode::INVALID_CONFIG);
  EXPECT_NE(other.status().message().find("authorizer.class.name"), std::string::npos);
}

TEST(AuthorizerConfig, SuperUsersAndAllowEveryone) {
  auto c = parse({{"authorizer.class.name", "mirra.security.Authorizer"},
                  {"super.users", " User:Bob ; User:Alice;;"},
                  {"allow.everyone.if.no.acl.found", "TRUE"}});
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ((*c)->super_users, (std::set<std::string, std::less<>>{"User:Alice", "User:Bob"}));
  EXPECT_TRUE((*c)->allow_everyone_if_no_acl_found);
  auto bad_user = parse(
      {{"authorizer.class.name", "mirra.security.Authorizer"}, {"super.users", "User:Bob;alice"}});
  EXPECT_EQ(bad_user.status().code(), ErrorCode::INVALID_CONFIG);
  EXPECT_NE(bad_user.status().message().find("super.users"), std::string::npos);
  auto bad_flag = parse({{"authorizer.class.name", "mirra.security.Authorizer"},
                         {"allow.everyone.if.no.acl.found", "yes"}});
  EXPECT_EQ(bad_flag.status().code(), ErrorCode::INVALID_CONFIG);
}

}  // namespace
}  // namespace mirra::security
