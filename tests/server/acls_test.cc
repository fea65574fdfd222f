// The ACL APIs (CreateAcls, DescribeAcls, DeleteAcls) through the whole request path of an
// in-process broker, whose requests come from User:ANONYMOUS at 127.0.0.1: without an
// authorizer, as a super user, and as a principal the cluster's ACLs allow or deny.
#include <gtest/gtest.h>

#include "protocol/messages/create_acls.h"
#include "protocol/messages/delete_acls.h"
#include "protocol/messages/describe_acls.h"
#include "security/acl.h"
#include "server/in_process_broker.h"

namespace mirra::server {
namespace {

constexpr const char* kAuthorizer = "authorizer.class.name=mirra.security.Authorizer";

using Creation = protocol::CreateAclsRequest::AclCreation;

Creation creation(int8_t type, std::string name, int8_t pattern, std::string principal, int8_t op,
                  int8_t perm = 3, std::string host = "*") {
  Creation c;
  c.resource_type = type;
  c.resource_name = std::move(name);
  c.resource_pattern_type = pattern;
  c.principal = std::move(principal);
  c.host = std::move(host);
  c.operation = op;
  c.permission_type = perm;
  return c;
}

std::unique_ptr<InProcessBroker> start(std::vector<std::string> overrides) {
  auto b = InProcessBroker::start(std::move(overrides));
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return b.ok() ? std::move(b.value()) : nullptr;
}

protocol::CreateAclsResponse create(InProcessBroker& b, std::vector<Creation> creations,
                                    int16_t version = 3) {
  protocol::CreateAclsRequest req;
  req.creations = std::move(creations);
  auto resp = b.call<protocol::CreateAclsResponse>(req, version);
  EXPECT_TRUE(resp.ok()) << resp.status().to_string();
  return resp.ok() ? resp.value() : protocol::CreateAclsResponse{};
}

protocol::DescribeAclsRequest describe_all() {
  protocol::DescribeAclsRequest req;
  req.resource_type_filter = 1;      // ANY
  req.resource_name_filter.reset();  // null: any (the generated default is "")
  req.principal_filter.reset();
  req.host_filter.reset();
  req.pattern_type_filter = 1;  // ANY
  req.operation = 1;
  req.permission_type = 1;
  return req;
}

protocol::DescribeAclsResponse describe(InProcessBroker& b,
                                        const protocol::DescribeAclsRequest& req,
                                        int16_t version = 3) {
  auto resp = b.call<protocol::DescribeAclsResponse>(req, version);
  EXPECT_TRUE(resp.ok()) << resp.status().to_string();
  return resp.ok() ? resp.value() : protocol::DescribeAclsResponse{};
}

protocol::DeleteAclsRequest::DeleteAclsFilter filter_of(protocol::DescribeAclsRequest d) {
  protocol::DeleteAclsRequest::DeleteAclsFilter f;
  f.resource_type_filter = d.resource_type_filter;
  f.resource_name_filter = d.resource_name_filter;
  f.pattern_type_filter = d.pattern_type_filter;
  f.principal_filter = d.principal_filter;
  f.host_filter = d.host_filter;
  f.operation = d.operation;
  f.permission_type = d.permission_type;
  return f;
}

size_t acl_count(const protocol::DescribeAclsResponse& r) {
  size_t n = 0;
  for (const auto& res : r.resources) n += res.acls.size();
  return n;
}

TEST(AclApis, WithoutAnAuthorizerEverythingIsSecurityDisabled) {
  auto b = start({});
  ASSERT_TRUE(b);
  EXPECT_EQ(b->state().authorizer, nullptr);
  auto c = create(*b, {creation(2, "t", 3, "User:a", 3)});
  ASSERT_EQ(c.results.size(), 1u);
  EXPECT_EQ(c.results[0].error_code, error_number(ErrorCode::SECURITY_DISABLED));
  EXPECT_EQ(describe(*b, describe_all()).error_code, error_number(ErrorCode::SECURITY_DISABLED));
  protocol::DeleteAclsRequest del;
  del.filters.push_back(filter_of(describe_all()));
  auto d = b->call<protocol::DeleteAclsResponse>(del, 3);
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->filter_results.size(), 1u);
  EXPECT_EQ(d->filter_results[0].error_code, error_number(ErrorCode::SECURITY_DISABLED));
  EXPECT_TRUE(b->state().metadata->image().acls().empty());
}

TEST(AclApis, CreateValidatesEachCreationAndWritesTheValidOnes) {
  auto b = start({kAuthorizer, "super.users=User:ANONYMOUS"});
  ASSERT_TRUE(b);
  ASSERT_NE(b->state().authorizer, nullptr);
  auto c = create(*b, {creation(2, "orders", 3, "User:alice", 3),
                       creation(4, "my-cluster", 3, "User:alice", 7),  // cluster name
                       creation(2, "pay", 4, "User:bob", 4, 2),
                       creation(2, "x", 2, "User:bob", 4),           // MATCH
                       creation(3, "g", 3, "User:bob", 4),           // WRITE on a group
                       creation(2, "orders", 3, "alice", 3),         // principal
                       creation(2, "orders", 3, "User:alice", 3)});  // again: fine, one ACL
  ASSERT_EQ(c.results.size(), 7u);
  for (size_t i : {0u, 2u, 6u}) {
    EXPECT_EQ(c.results[i].error_code, 0) << i;
    EXPECT_FALSE(c.results[i].error_message.has_value()) << i;
  }
  for (size_t i : {1u, 3u, 4u, 5u}) {
    EXPECT_EQ(c.results[i].error_code, error_number(ErrorCode::INVALID_REQUEST)) << i;
    EXPECT_TRUE(c.results[i].error_message.has_value()) << i;
  }
  EXPECT_EQ(b->state().metadata->image().acls().size(), 2u);
  // Creating it once more adds nothing either.
  create(*b, {creation(2, "orders", 3, "User:alice", 3)});
  EXPECT_EQ(b->state().metadata->image().acls().size(), 2u);
  // The authorizer follows.
  EXPECT_TRUE(b->state().authorizer->authorize("User:alice", "1.2.3.4",
                                               security::AclOperation::describe,
                                               security::ResourceType::topic, "orders"));
  EXPECT_FALSE(b->state().authorizer->authorize("User:bob", "1.2.3.4",
                                                security::AclOperation::write,
                                                security::ResourceType::topic, "payments"));
}

TEST(AclApis, DescribeGroupsByResourceAndFilters) {
  auto b = start({kAuthorizer, "super.users=User:ANONYMOUS"});
  ASSERT_TRUE(b);
  create(*b, {creation(2, "orders", 3, "User:alice", 3), creation(2, "orders", 3, "User:bob", 4),
              creation(2, "ord", 4, "User:carol", 3), creation(3, "g", 3, "User:alice", 3),
              creation(2, "*", 3, "User:dave", 8)});
  auto all = describe(*b, describe_all());
  EXPECT_EQ(all.error_code, 0);
  ASSERT_EQ(all.resources.size(), 4u);
  EXPECT_EQ(acl_count(all), 5u);
  // Sorted by type, name, pattern: topic "*", topic "ord", topic "orders", group "g".
  EXPECT_EQ(all.resources[0].resource_name, "*");
  EXPECT_EQ(all.resources[1].resource_name, "ord");
  EXPECT_EQ(all.resources[1].pattern_type, 4);
  EXPECT_EQ(all.resources[2].resource_name, "orders");
  ASSERT_EQ(all.resources[2].acls.size(), 2u);
  EXPECT_EQ(all.resources[2].acls[0].principal, "User:alice");
  EXPECT_EQ(all.resources[3].resource_type, 3);

  auto match = describe_all();
  match.resource_type_filter = 2;
  match.resource_name_filter = "orders";
  match.pattern_type_filter = 2;  // MATCH: what affects topic "orders"
  EXPECT_EQ(acl_count(describe(*b, match)), 4u);
  match.principal_filter = "User:bob";
  EXPECT_EQ(acl_count(describe(*b, match)), 1u);

  // Version 1, the oldest served, has the pattern type.
  auto literal = describe_all();
  literal.pattern_type_filter = 3;
  EXPECT_EQ(acl_count(describe(*b, literal, 1)), 4u);

  auto unknown = describe_all();
  unknown.operation = 0;
  EXPECT_EQ(describe(*b, unknown).error_code, error_number(ErrorCode::INVALID_REQUEST));
}

TEST(AclApis, DeleteReturnsPerFilterWhatItRemoved) {
  auto b = start({kAuthorizer, "super.users=User:ANONYMOUS"});
  ASSERT_TRUE(b);
  create(*b, {creation(2, "orders", 3, "User:alice", 3), creation(2, "orders", 3, "User:bob", 4),
              creation(3, "g", 3, "User:alice", 3)});
  auto alice = describe_all();
  alice.principal_filter = "User:alice";
  auto orders = describe_all();
  orders.resource_type_filter = 2;
  orders.resource_name_filter = "orders";
  auto bad = describe_all();
  bad.permission_type = 0;
  auto none = describe_all();
  none.resource_name_filter = "nothing";
  protocol::DeleteAclsRequest req;
  req.filters = {filter_of(alice), filter_of(orders), filter_of(bad), filter_of(none)};
  auto d = b->call<protocol::DeleteAclsResponse>(req, 1);
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  ASSERT_EQ(d->filter_results.size(), 4u);
  EXPECT_EQ(d->filter_results[0].error_code, 0);
  EXPECT_EQ(d->filter_results[0].matching_acls.size(), 2u);  // alice's two
  EXPECT_EQ(d->filter_results[1].matching_acls.size(), 2u);  // orders: alice's and bob's
  EXPECT_EQ(d->filter_results[1].matching_acls[0].resource_name, "orders");
  EXPECT_EQ(d->filter_results[2].error_code, error_number(ErrorCode::INVALID_REQUEST));
  EXPECT_EQ(d->filter_results[3].error_code, 0);
  EXPECT_TRUE(d->filter_results[3].matching_acls.empty());
  EXPECT_TRUE(b->state().metadata->image().acls().empty());
  EXPECT_EQ(b->state().authorizer->acl_count(), 0u);
}

TEST(AclApis, NeedAlterOrDescribeOnTheCluster) {
  // No super user: ANONYMOUS may do what the ACLs say, and the cluster starts without any.
  auto b = start({kAuthorizer});
  ASSERT_TRUE(b);
  auto c = create(*b, {creation(2, "t", 3, "User:a", 3)});
  EXPECT_EQ(c.results[0].error_code, error_number(ErrorCode::CLUSTER_AUTHORIZATION_FAILED));
  EXPECT_EQ(describe(*b, describe_all()).error_code,
            error_number(ErrorCode::CLUSTER_AUTHORIZATION_FAILED));
  protocol::DeleteAclsRequest del;
  del.filters.push_back(filter_of(describe_all()));
  auto d = b->call<protocol::DeleteAclsResponse>(del, 2);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->filter_results[0].error_code, error_number(ErrorCode::CLUSTER_AUTHORIZATION_FAILED));
  EXPECT_TRUE(b->state().metadata->image().acls().empty());
}

TEST(AclApis, AllowEveryoneOpensAClusterWithoutAclsUntilOneIsMade) {
  auto b = start({kAuthorizer, "allow.everyone.if.no.acl.found=true"});
  ASSERT_TRUE(b);
  // ALTER on the cluster for ANONYMOUS (allowed: the cluster has no ACL yet), then a DENY of
  // DESCRIBE: from now on the cluster has ACLs, and DESCRIBE is denied.
  auto c = create(*b, {creation(4, "kafka-cluster", 3, "User:ANONYMOUS", 7),
                       creation(4, "kafka-cluster", 3, "User:ANONYMOUS", 8, 2)});
  EXPECT_EQ(c.results[0].error_code, 0);
  EXPECT_EQ(c.results[1].error_code, 0);
  EXPECT_EQ(describe(*b, describe_all()).error_code,
            error_number(ErrorCode::CLUSTER_AUTHORIZATION_FAILED));
  // ALTER is still allowed, so the DENY can go.
  auto deny = describe_all();
  deny.permission_type = 2;
  protocol::DeleteAclsRequest del;
  del.filters.push_back(filter_of(deny));
  auto d = b->call<protocol::DeleteAclsResponse>(del, 3);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->filter_results[0].matching_acls.size(), 1u);
  // ALLOW ALTER implies DESCRIBE.
  EXPECT_EQ(describe(*b, describe_all()).error_code, 0);
}

TEST(AclApis, AclsSurviveARestart) {
  char dir_template[] = "/tmp/mirra-acls-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  {
    auto b = start({kAuthorizer, "super.users=User:ANONYMOUS", "log.dirs=" + dir});
    ASSERT_TRUE(b);
    create(*b, {creation(2, "orders", 4, "User:alice", 3)});
  }  // stopped: a final snapshot holds the ACL
  {
    auto b = start({kAuthorizer, "log.dirs=" + dir});
    ASSERT_TRUE(b);
    ASSERT_EQ(b->state().metadata->image().acls().size(), 1u);
    EXPECT_EQ(b->state().authorizer->acl_count(), 1u);
    EXPECT_TRUE(b->state().authorizer->authorize("User:alice", "h", security::AclOperation::read,
                                                 security::ResourceType::topic, "orders-eu"));
  }
  std::filesystem::remove_all(dir);
}

TEST(AclApis, ABadAuthorizerClassIsAConfigError) {
  auto b = InProcessBroker::start({"authorizer.class.name=com.example.Nope"});
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), ErrorCode::INVALID_CONFIG);
}

}  // namespace
}  // namespace mirra::server
