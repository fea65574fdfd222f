// The pure parts of `mirra acls` (kafka-acls.sh's options): the checks, the ACLs and filters
// they make, and the listing's text.
#include "cli/acls_logic.h"

#include <gtest/gtest.h>

namespace mirra::cli {
namespace {

using security::AclBinding;
using security::AclOperation;
using security::AclPermissionType;
using security::PatternType;
using security::ResourceType;

void expect_refused(const AclsArgs& a, const std::string& fragment) {
  auto p = plan_acls(a);
  ASSERT_FALSE(p.ok()) << "accepted; expected: " << fragment;
  EXPECT_EQ(p.status().code(), ErrorCode::INVALID_REQUEST);
  EXPECT_NE(p.status().message().find(fragment), std::string::npos) << p.status().message();
  EXPECT_EQ(p.status().message().find('\n'), std::string::npos);  // one line
}

AclsArgs add_args() {
  AclsArgs a;
  a.add = true;
  a.allow_principals = {"User:alice"};
  a.topics = {"orders"};
  a.operations = {"Read"};
  return a;
}

TEST(AclsArgs, ExactlyOneAction) {
  expect_refused(AclsArgs{}, "exactly one action");
  AclsArgs both = add_args();
  both.list = true;
  expect_refused(both, "exactly one action");
}

TEST(AclsArgs, AddMakesOneAclPerResourceOperationAndPrincipal) {
  AclsArgs a = add_args();
  a.operations = {"read", "DESCRIBE"};
  a.topics = {"orders", "payments"};
  a.deny_principals = {"User:mallory"};
  a.deny_hosts = {"10.0.0.1", "10.0.0.2"};
  auto p = plan_acls(a);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(p->action, AclsAction::add);
  // 2 topics x 2 operations x (1 allow on * + 1 deny on 2 hosts).
  ASSERT_EQ(p->add.size(), 12u);
  const AclBinding first{ResourceType::topic,
                         "orders",
                         PatternType::literal,
                         "User:alice",
                         "*",
                         AclOperation::read,
                         AclPermissionType::allow};
  EXPECT_EQ(p->add.front(), first);
  const AclBinding last{ResourceType::topic,    "payments", PatternType::literal,
                        "User:mallory",         "10.0.0.2", AclOperation::describe,
                        AclPermissionType::deny};
  EXPECT_EQ(p->add.back(), last);
}

TEST(AclsArgs, AddDefaultsToAllAndTakesEveryResourceKind) {
  AclsArgs a;
  a.add = true;
  a.allow_principals = {"User:ops"};
  a.cluster = true;
  a.groups = {"g"};
  a.transactional_ids = {"tx"};
  a.pattern_type = "PREFIXED";
  auto p = plan_acls(a);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  ASSERT_EQ(p->add.size(), 3u);
  for (const AclBinding& b : p->add) {
    EXPECT_EQ(b.operation, AclOperation::all);
    EXPECT_EQ(b.pattern_type, PatternType::prefixed);
  }
  EXPECT_EQ(p->add[2].resource_type, ResourceType::cluster);
  EXPECT_EQ(p->add[2].resource_name, "kafka-cluster");
}

TEST(AclsArgs, AddRefusals) {
  AclsArgs a = add_args();
  a.topics.clear();
  expect_refused(a, "needs a resource");
  a = add_args();
  a.allow_principals.clear();
  expect_refused(a, "--allow-principal or --deny-principal");
  a = add_args();
  a.allow_principals = {"alice"};
  expect_refused(a, "Type:name");
  a = add_args();
  a.operations = {"Fly"};
  expect_refused(a, "unknown --operation 'Fly'");
  a = add_args();
  a.operations = {"IdempotentWrite"};
  expect_refused(a, "IDEMPOTENT_WRITE is not valid for resource type TOPIC");
  a = add_args();
  a.pattern_type = "match";
  expect_refused(a, "literal or prefixed");
  a = add_args();
  a.pattern_type = "glob";
  expect_refused(a, "unknown --resource-pattern-type 'glob'");
}

TEST(AclsArgs, ProducerAndConsumerRoles) {
  AclsArgs a;
  a.add = true;
  a.producer = true;
  a.allow_principals = {"User:p"};
  a.topics = {"t"};
  a.transactional_ids = {"tx"};
  a.idempotent = true;
  auto p = plan_acls(a);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  std::vector<std::pair<ResourceType, AclOperation>> got;
  for (const AclBinding& b : p->add) got.push_back({b.resource_type, b.operation});
  EXPECT_EQ(got, (std::vector<std::pair<ResourceType, AclOperation>>{
                     {ResourceType::topic, AclOperation::write},
                     {ResourceType::topic, AclOperation::describe},
                     {ResourceType::topic, AclOperation::create},
                     {ResourceType::transactional_id, AclOperation::write},
                     {ResourceType::transactional_id, AclOperation::describe},
                     {ResourceType::cluster, AclOperation::idempotent_write}}));

  AclsArgs c;
  c.add = true;
  c.consumer = true;
  c.allow_principals = {"User:c"};
  c.topics = {"t"};
  c.groups = {"g"};
  p = plan_acls(c);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  got.clear();
  for (const AclBinding& b : p->add) got.push_back({b.resource_type, b.operation});
  EXPECT_EQ(got, (std::vector<std::pair<ResourceType, AclOperation>>{
                     {ResourceType::topic, AclOperation::read},
                     {ResourceType::topic, AclOperation::describe},
                     {ResourceType::group, AclOperation::read}}));

  c.groups.clear();
  expect_refused(c, "--consumer needs --group");
  AclsArgs no_topic = a;
  no_topic.topics.clear();
  expect_refused(no_topic, "need --topic");
  AclsArgs with_op = a;
  with_op.operations = {"Read"};
  expect_refused(with_op, "drop --operation");
  AclsArgs idem;
  idem.add = true;
  idem.idempotent = true;
  expect_refused(idem, "--idempotent goes with --producer");
}

TEST(AclsArgs, RemoveWithoutEntriesRemovesEverythingOnTheResource) {
  AclsArgs a;
  a.remove = true;
  a.force = true;
  a.topics = {"orders"};
  auto p = plan_acls(a);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  EXPECT_EQ(p->action, AclsAction::remove);
  ASSERT_EQ(p->filters.size(), 1u);
  const auto& f = p->filters[0];
  EXPECT_EQ(f.resource_type, ResourceType::topic);
  EXPECT_EQ(f.resource_name, "orders");
  EXPECT_EQ(f.pattern_type, PatternType::literal);
  EXPECT_FALSE(f.principal.has_value());
  EXPECT_EQ(f.operation, AclOperation::any);
  EXPECT_EQ(f.permission, AclPermissionType::any);

  a.topics.clear();
  expect_refused(a, "--remove needs a resource");
}

TEST(AclsArgs, RemoveWithEntriesNamesEachOne) {
  AclsArgs a = add_args();
  a.add = false;
  a.remove = true;
  a.pattern_type = "match";
  auto p = plan_acls(a);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  ASSERT_EQ(p->filters.size(), 1u);
  const auto& f = p->filters[0];
  EXPECT_EQ(f.pattern_type, PatternType::match);
  EXPECT_EQ(f.principal, "User:alice");
  EXPECT_EQ(f.host, "*");
  EXPECT_EQ(f.operation, AclOperation::read);
  EXPECT_EQ(f.permission, AclPermissionType::allow);
}

TEST(AclsArgs, ListEverythingOrPerResource) {
  AclsArgs a;
  a.list = true;
  auto p = plan_acls(a);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  ASSERT_EQ(p->filters.size(), 1u);
  EXPECT_EQ(p->filters[0].resource_type, ResourceType::any);
  EXPECT_EQ(p->filters[0].pattern_type, PatternType::any);
  EXPECT_FALSE(p->filters[0].resource_name.has_value());

  a.topics = {"orders"};
  a.groups = {"g"};
  a.pattern_type = "any";
  a.principals = {"User:alice"};
  p = plan_acls(a);
  ASSERT_TRUE(p.ok()) << p.status().to_string();
  ASSERT_EQ(p->filters.size(), 2u);
  EXPECT_EQ(p->filters[1].resource_type, ResourceType::group);
  EXPECT_EQ(p->filters[1].pattern_type, PatternType::any);
  EXPECT_EQ(p->filters[1].principal, "User:alice");

  AclsArgs role;
  role.list = true;
  role.producer = true;
  role.topics = {"t"};
  expect_refused(role, "not --list");
  AclsArgs principal = add_args();
  principal.principals = {"User:x"};
  expect_refused(principal, "--principal goes with --list");
}

TEST(AclsFormat, IsKafkaAclsListing) {
  std::vector<AclBinding> acls = {{ResourceType::topic, "orders", PatternType::literal, "User:bob",
                                   "*", AclOperation::write, AclPermissionType::allow},
                                  {ResourceType::group, "g", PatternType::prefixed, "User:bob", "*",
                                   AclOperation::read, AclPermissionType::deny},
                                  {ResourceType::topic, "orders", PatternType::literal,
                                   "User:alice", "*", AclOperation::read,
                                   AclPermissionType::allow}};
  EXPECT_EQ(format_acls("Current ACLs for resource", acls),
            "Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, "
            "patternType=LITERAL)`:\n"
            "\t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)\n"
            "\t(principal=User:bob, host=*, operation=WRITE, permissionType=ALLOW)\n"
            "\n"
            "Current ACLs for resource `ResourcePattern(resourceType=GROUP, name=g, "
            "patternType=PREFIXED)`:\n"
            "\t(principal=User:bob, host=*, operation=READ, permissionType=DENY)\n"
            "\n");
  EXPECT_EQ(format_acls("x", {}), "");
}

}  // namespace
}  // namespace mirra::cli
