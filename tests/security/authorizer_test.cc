// The authorization decision (security/acl.h, authorizer.cc): each rule of Kafka's
// StandardAuthorizer, and authorize_any (KIP-679).
#include <gtest/gtest.h>

#include "acl_test_util.h"
#include "security/acl.h"

namespace mirra::security {
namespace {

using namespace mirra::security::testing;  // acl_test_util.h

class AuthorizerTest : public ::testing::Test {
 protected:
  Authorizer make(std::vector<AclBinding> acls, AuthorizerConfig config = {}) {
    Authorizer a(std::move(config));
    a.set_acls(acls);
    return a;
  }
  static bool topic(const Authorizer& a, std::string_view principal, Op op, std::string_view name,
                    std::string_view host = "10.0.0.1") {
    return a.authorize(principal, host, op, RT::topic, name);
  }
};

TEST_F(AuthorizerTest, AllowMatchesPrincipalOperationAndResource) {
  auto a = make({binding(RT::topic, "orders", PT::literal, "User:alice", Op::read)});
  EXPECT_EQ(a.acl_count(), 1u);
  EXPECT_TRUE(topic(a, "User:alice", Op::read, "orders"));
  EXPECT_FALSE(topic(a, "User:bob", Op::read, "orders"));
  EXPECT_FALSE(topic(a, "User:alice", Op::write, "orders"));
  EXPECT_FALSE(topic(a, "User:alice", Op::read, "orders2"));
  EXPECT_FALSE(a.authorize("User:alice", "10.0.0.1", Op::read, RT::group, "orders"));
}

TEST_F(AuthorizerTest, SuperUsersPassEvenADeny) {
  AuthorizerConfig c;
  c.super_users = {"User:admin"};
  auto a = make({binding(RT::topic, "*", PT::literal, "User:*", Op::all, Perm::deny)}, c);
  EXPECT_TRUE(a.is_super_user("User:admin"));
  EXPECT_TRUE(topic(a, "User:admin", Op::write, "orders"));
  EXPECT_TRUE(
      a.authorize("User:admin", "1.2.3.4", Op::cluster_action, RT::cluster, "kafka-cluster"));
  EXPECT_FALSE(topic(a, "User:alice", Op::write, "orders"));
  EXPECT_FALSE(a.is_super_user("User:Admin"));  // exact, case-sensitive
}

TEST_F(AuthorizerTest, DenyWinsOverAllow) {
  auto a = make({binding(RT::topic, "orders", PT::literal, "User:alice", Op::read),
                 binding(RT::topic, "ord", PT::prefixed, "User:alice", Op::read, Perm::deny)});
  EXPECT_FALSE(topic(a, "User:alice", Op::read, "orders"));
  // A DENY for ALL refuses every operation.
  auto b = make({binding(RT::topic, "orders", PT::literal, "User:alice", Op::all),
                 binding(RT::topic, "orders", PT::literal, "User:*", Op::all, Perm::deny)});
  EXPECT_FALSE(topic(b, "User:alice", Op::describe, "orders"));
}

TEST_F(AuthorizerTest, AllowImpliesDescribeAndDescribeConfigs) {
  for (Op op : {Op::read, Op::write, Op::del, Op::alter, Op::describe}) {
    auto a = make({binding(RT::topic, "t", PT::literal, "User:a", op)});
    EXPECT_TRUE(topic(a, "User:a", Op::describe, "t")) << acl_operation_name(op);
  }
  for (Op op : {Op::create, Op::describe_configs, Op::alter_configs}) {
    auto a = make({binding(RT::topic, "t", PT::literal, "User:a", op)});
    EXPECT_FALSE(topic(a, "User:a", Op::describe, "t")) << acl_operation_name(op);
  }
  auto configs = make({binding(RT::topic, "t", PT::literal, "User:a", Op::alter_configs)});
  EXPECT_TRUE(topic(configs, "User:a", Op::describe_configs, "t"));
  EXPECT_FALSE(topic(configs, "User:a", Op::alter, "t"));
  // Nothing implies the other way round.
  auto describe = make({binding(RT::topic, "t", PT::literal, "User:a", Op::describe)});
  EXPECT_FALSE(topic(describe, "User:a", Op::read, "t"));
  auto all = make({binding(RT::topic, "t", PT::literal, "User:a", Op::all)});
  EXPECT_TRUE(topic(all, "User:a", Op::idempotent_write, "t"));  // ALL matches any operation
}

TEST_F(AuthorizerTest, DenyDoesNotImply) {
  auto a = make({binding(RT::topic, "t", PT::literal, "User:a", Op::describe),
                 binding(RT::topic, "t", PT::literal, "User:a", Op::read, Perm::deny),
                 binding(RT::topic, "t", PT::literal, "User:a", Op::alter_configs, Perm::deny),
                 binding(RT::topic, "t", PT::literal, "User:a", Op::describe_configs)});
  EXPECT_TRUE(topic(a, "User:a", Op::describe, "t"));  // DENY READ does not deny DESCRIBE
  EXPECT_TRUE(topic(a, "User:a", Op::describe_configs, "t"));
  EXPECT_FALSE(topic(a, "User:a", Op::read, "t"));
}

TEST_F(AuthorizerTest, PrefixedAndLiteralPatterns) {
  auto a = make({binding(RT::topic, "orders", PT::literal, "User:a", Op::read),
                 binding(RT::topic, "pay", PT::prefixed, "User:a", Op::write)});
  EXPECT_TRUE(topic(a, "User:a", Op::write, "pay"));
  EXPECT_TRUE(topic(a, "User:a", Op::write, "payments"));
  EXPECT_FALSE(topic(a, "User:a", Op::write, "pa"));
  EXPECT_FALSE(topic(a, "User:a", Op::write, "xpay"));
  EXPECT_FALSE(topic(a, "User:a", Op::read, "orders-eu"));  // literal is not a prefix
  EXPECT_FALSE(topic(a, "User:a", Op::read, "order"));
  // A literal "*" in a request is just a name; a prefixed "*" is not the wildcard.
  auto star = make({binding(RT::topic, "*", PT::prefixed, "User:a", Op::read)});
  EXPECT_FALSE(topic(star, "User:a", Op::read, "orders"));
  EXPECT_TRUE(topic(star, "User:a", Op::read, "*x"));
}

TEST_F(AuthorizerTest, WildcardResourceAndPrincipal) {
  auto a = make({binding(RT::topic, "*", PT::literal, "User:a", Op::read),
                 binding(RT::group, "g", PT::literal, "User:*", Op::read)});
  EXPECT_TRUE(topic(a, "User:a", Op::read, "anything"));
  EXPECT_FALSE(topic(a, "User:b", Op::read, "anything"));
  EXPECT_TRUE(a.authorize("User:b", "h", Op::read, RT::group, "g"));
  EXPECT_TRUE(a.authorize("User:CN=x,O=y", "h", Op::read, RT::group, "g"));
  EXPECT_FALSE(a.authorize("User:b", "h", Op::read, RT::group, "g2"));
}

TEST_F(AuthorizerTest, HostIsExactOrStar) {
  auto a =
      make({binding(RT::topic, "t", PT::literal, "User:a", Op::read, Perm::allow, "10.0.0.1"),
            binding(RT::topic, "t", PT::literal, "User:a", Op::write, Perm::allow, "*"),
            binding(RT::topic, "t", PT::literal, "User:a", Op::del, Perm::allow, "10.0.0.0/8")});
  EXPECT_TRUE(topic(a, "User:a", Op::read, "t", "10.0.0.1"));
  EXPECT_FALSE(topic(a, "User:a", Op::read, "t", "10.0.0.2"));
  EXPECT_TRUE(topic(a, "User:a", Op::write, "t", "192.168.1.1"));
  EXPECT_FALSE(topic(a, "User:a", Op::del, "t", "10.0.0.1"));  // no CIDR
  auto deny =
      make({binding(RT::topic, "t", PT::literal, "User:a", Op::all),
            binding(RT::topic, "t", PT::literal, "User:a", Op::read, Perm::deny, "10.0.0.9")});
  EXPECT_FALSE(topic(deny, "User:a", Op::read, "t", "10.0.0.9"));
  EXPECT_TRUE(topic(deny, "User:a", Op::read, "t", "10.0.0.1"));
}

TEST_F(AuthorizerTest, NoAclRuleDeniesByDefault) {
  auto a = make({});
  EXPECT_FALSE(topic(a, "User:a", Op::read, "t"));
  EXPECT_FALSE(a.authorize("User:a", "h", Op::describe, RT::cluster, "kafka-cluster"));
}

TEST_F(AuthorizerTest, NoAclRuleWithAllowEveryoneAllowsOnlyResourcesWithoutAnyAcl) {
  AuthorizerConfig c;
  c.allow_everyone_if_no_acl_found = true;
  auto a =
      make({binding(RT::topic, "secret", PT::literal, "User:boss", Op::read),
            binding(RT::topic, "priv", PT::prefixed, "User:boss", Op::read, Perm::allow, "1.1.1.1"),
            binding(RT::group, "*", PT::literal, "User:boss", Op::read)},
           c);
  EXPECT_TRUE(topic(a, "User:a", Op::write, "public"));  // no ACL on it at all
  // Any ACL on the resource (for someone else, another operation, another host) closes it.
  EXPECT_FALSE(topic(a, "User:a", Op::write, "secret"));
  EXPECT_FALSE(topic(a, "User:a", Op::read, "private"));
  EXPECT_FALSE(a.authorize("User:a", "h", Op::read, RT::group, "any-group"));  // "*" covers it
  EXPECT_TRUE(topic(a, "User:boss", Op::read, "secret"));
  EXPECT_TRUE(a.authorize("User:a", "h", Op::alter, RT::cluster, "kafka-cluster"));
}

TEST_F(AuthorizerTest, SetAclsReplacesEverything) {
  auto a = make({binding(RT::topic, "t", PT::literal, "User:a", Op::read)});
  EXPECT_TRUE(topic(a, "User:a", Op::read, "t"));
  a.set_acls({binding(RT::topic, "u", PT::literal, "User:a", Op::read)});
  EXPECT_EQ(a.acl_count(), 1u);
  EXPECT_FALSE(topic(a, "User:a", Op::read, "t"));
  EXPECT_TRUE(topic(a, "User:a", Op::read, "u"));
}

TEST_F(AuthorizerTest, AuthorizeAnyNeedsOneAllowNotCoveredByADeny) {
  const std::string p = "User:a";
  EXPECT_FALSE(make({}).authorize_any(p, "h", Op::write, RT::topic));
  auto one = make({binding(RT::topic, "orders", PT::literal, p, Op::write)});
  EXPECT_TRUE(one.authorize_any(p, "h", Op::write, RT::topic));
  EXPECT_FALSE(one.authorize_any("User:b", "h", Op::write, RT::topic));
  EXPECT_FALSE(one.authorize_any(p, "h", Op::read, RT::topic));
  EXPECT_FALSE(one.authorize_any(p, "h", Op::write, RT::group));
  // Nothing is implied: WRITE on a topic is not DESCRIBE on any topic.
  EXPECT_FALSE(one.authorize_any(p, "h", Op::describe, RT::topic));
  // Covered by a literal DENY on the same name, or a prefixed DENY on a prefix of it.
  auto literal_deny = make({binding(RT::topic, "orders", PT::literal, p, Op::write),
                            binding(RT::topic, "orders", PT::literal, p, Op::write, Perm::deny)});
  EXPECT_FALSE(literal_deny.authorize_any(p, "h", Op::write, RT::topic));
  auto prefix_deny = make({binding(RT::topic, "orders", PT::prefixed, p, Op::write),
                           binding(RT::topic, "ord", PT::prefixed, "User:*", Op::all, Perm::deny)});
  EXPECT_FALSE(prefix_deny.authorize_any(p, "h", Op::write, RT::topic));
  // A DENY on something else leaves the ALLOW standing.
  auto other_deny = make({binding(RT::topic, "orders", PT::literal, p, Op::write),
                          binding(RT::topic, "payments", PT::prefixed, p, Op::write, Perm::deny)});
  EXPECT_TRUE(other_deny.authorize_any(p, "h", Op::write, RT::topic));
  // Wildcards.
  auto star_allow = make({binding(RT::topic, "*", PT::literal, "User:*", Op::all),
                          binding(RT::topic, "x", PT::literal, p, Op::write, Perm::deny)});
  EXPECT_TRUE(star_allow.authorize_any(p, "h", Op::write, RT::topic));
  auto star_deny = make({binding(RT::topic, "orders", PT::literal, p, Op::write),
                         binding(RT::topic, "*", PT::literal, p, Op::write, Perm::deny)});
  EXPECT_FALSE(star_deny.authorize_any(p, "h", Op::write, RT::topic));
  // Host.
  auto host =
      make({binding(RT::topic, "orders", PT::literal, p, Op::write, Perm::allow, "1.2.3.4")});
  EXPECT_TRUE(host.authorize_any(p, "1.2.3.4", Op::write, RT::topic));
  EXPECT_FALSE(host.authorize_any(p, "1.2.3.5", Op::write, RT::topic));
}

TEST_F(AuthorizerTest, AuthorizeAnyLetsSuperUsersAndAllowEveryoneThrough) {
  AuthorizerConfig c;
  c.super_users = {"User:admin"};
  auto a = make({binding(RT::topic, "*", PT::literal, "User:*", Op::write, Perm::deny)}, c);
  EXPECT_TRUE(a.authorize_any("User:admin", "h", Op::write, RT::topic));
  AuthorizerConfig everyone;
  everyone.allow_everyone_if_no_acl_found = true;
  EXPECT_TRUE(make({}, everyone).authorize_any("User:a", "h", Op::write, RT::topic));
}

}  // namespace
}  // namespace mirra::security
