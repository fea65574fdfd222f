// The ACL sync (mirror_sync_acls.cc) against fakes of the source and the destination: the
// source's ACLs that mirror.acl.include takes created here as the mirror's, those gone from the
// source (or no longer taken) removed, ACLs made here or by another mirror never touched, and
// nothing done while the sync is off, the mirror paused or failed over, or a side refuses.
#include <gtest/gtest.h>

#include "sync_fixture.h"

namespace mirra::mirror {
namespace {

using security::AclBinding;
using security::AclOperation;
using security::ResourceType;

AclBinding topic_acl(std::string name, std::string principal = "User:app",
                     AclOperation op = AclOperation::read) {
  AclBinding b;
  b.resource_type = ResourceType::topic;
  b.resource_name = std::move(name);
  b.principal = std::move(principal);
  b.operation = op;
  return b;
}

AclBinding group_acl(std::string name) {
  AclBinding b = topic_acl(std::move(name));
  b.resource_type = ResourceType::group;
  return b;
}

class MirrorSyncAclsTest : public test::SyncFixture {
 protected:
  void SetUp() override { sink_.add_topic("m", "orders", Uuid::random(), 1); }

  std::shared_ptr<MirrorSync> sync_with(const std::string& include) {
    return make_sync({{"mirror.acl.include", include}});
  }
  // Whether the destination holds `b`, made by `mirror` ("" for here).
  bool holds(const AclBinding& b, const std::string& mirror) const {
    return destination_.acl_set.contains({b, mirror});
  }
  const SyncKindStatus& acls_status(const MirrorSync& s) const {
    return s.status().of(SyncKind::kAcls);
  }
};

TEST_F(MirrorSyncAclsTest, OffWithoutAnIncludeList) {
  auto sync = make_sync();
  source_->acl_list = {topic_acl("orders")};
  round(*sync);
  EXPECT_EQ(source_->acls_calls, 0);
  EXPECT_TRUE(destination_.acl_set.empty());
  EXPECT_EQ(acls_status(*sync).runs, 1);
  EXPECT_TRUE(acls_status(*sync).last_error.ok());
}

TEST_F(MirrorSyncAclsTest, MatchingSourceAclsAreCreatedAsTheMirrorsOnce) {
  auto sync = sync_with("orders.*,payments-group");
  source_->acl_list = {topic_acl("orders"), topic_acl("orders-eu", "User:b", AclOperation::write),
                       group_acl("payments-group"), topic_acl("secret")};
  round(*sync);
  EXPECT_TRUE(holds(topic_acl("orders"), "m"));
  EXPECT_TRUE(holds(topic_acl("orders-eu", "User:b", AclOperation::write), "m"));
  EXPECT_TRUE(holds(group_acl("payments-group"), "m"));
  EXPECT_EQ(destination_.acl_set.size(), 3u);  // "secret" is not taken
  EXPECT_EQ(acls_status(*sync).looked_at, 3);
  EXPECT_EQ(acls_status(*sync).changed, 3);
  EXPECT_TRUE(acls_status(*sync).last_error.ok());
  round(*sync);  // nothing new: no change written
  EXPECT_EQ(destination_.acl_changes, 1);
  EXPECT_EQ(acls_status(*sync).changed, 0);
  EXPECT_EQ(acls_status(*sync).changed_total, 3);
}

TEST_F(MirrorSyncAclsTest, AclsGoneFromTheSourceAreRemovedLocalOnesNever) {
  auto sync = sync_with(".*");
  const AclBinding local = topic_acl("orders", "User:local");
  const AclBinding other_mirror = topic_acl("orders", "User:x");
  destination_.acl_set = {{local, ""}, {other_mirror, "n"}};
  source_->acl_list = {topic_acl("orders"), topic_acl("orders", "User:b")};
  round(*sync);
  ASSERT_TRUE(holds(topic_acl("orders"), "m"));
  ASSERT_TRUE(holds(topic_acl("orders", "User:b"), "m"));
  source_->acl_list = {topic_acl("orders", "User:b")};
  round(*sync);
  EXPECT_FALSE(holds(topic_acl("orders"), "m"));
  EXPECT_TRUE(holds(topic_acl("orders", "User:b"), "m"));
  EXPECT_TRUE(holds(local, ""));
  EXPECT_TRUE(holds(other_mirror, "n"));
  EXPECT_EQ(acls_status(*sync).changed, 1);
  source_->acl_list.clear();  // the source lost every ACL: only the mirror's go
  round(*sync);
  EXPECT_EQ(destination_.acl_set.size(), 2u);
  EXPECT_TRUE(holds(local, ""));
  EXPECT_TRUE(holds(other_mirror, "n"));
}

TEST_F(MirrorSyncAclsTest, AnAclHeldHereAlreadyIsNotTakenOver) {
  auto sync = sync_with(".*");
  const AclBinding same = topic_acl("orders");
  destination_.acl_set = {{same, ""}};
  source_->acl_list = {same};
  round(*sync);
  EXPECT_EQ(destination_.acl_changes, 0);
  source_->acl_list.clear();
  round(*sync);
  EXPECT_TRUE(holds(same, ""));  // made here: the source losing its twin changes nothing
}

TEST_F(MirrorSyncAclsTest, AclsNoLongerTakenByTheFilterAreRemoved) {
  const std::vector<AclBinding> at_source = {topic_acl("orders"), group_acl("g1")};
  {
    auto sync = sync_with(".*");
    source_->acl_list = at_source;
    round(*sync);
  }
  ASSERT_EQ(destination_.acl_set.size(), 2u);
  auto narrower = sync_with("orders");  // mirror.acl.include altered: a new sync
  source_->acl_list = at_source;
  round(*narrower);
  EXPECT_TRUE(holds(topic_acl("orders"), "m"));
  EXPECT_FALSE(holds(group_acl("g1"), "m"));
}

TEST_F(MirrorSyncAclsTest, ASourceRefusalChangesNothingAndShows) {
  auto sync = sync_with(".*");
  destination_.acl_set = {{topic_acl("orders"), "m"}};
  source_->acls_error = Status(ErrorCode::CLUSTER_AUTHORIZATION_FAILED, "no DESCRIBE");
  round(*sync);
  EXPECT_TRUE(holds(topic_acl("orders"), "m"));
  EXPECT_EQ(destination_.acl_changes, 0);
  EXPECT_EQ(acls_status(*sync).failures, 1);
  EXPECT_EQ(acls_status(*sync).last_error.code(), ErrorCode::CLUSTER_AUTHORIZATION_FAILED);
  EXPECT_NE(acls_status(*sync).last_error.message().find("DescribeAcls"), std::string::npos);
  source_->acls_error = Status::OK();
  source_->acl_list = {topic_acl("orders")};
  round(*sync);
  EXPECT_TRUE(acls_status(*sync).last_error.ok());
}

TEST_F(MirrorSyncAclsTest, ADestinationWithoutAuthorizerIsTheKindsError) {
  auto sync = sync_with(".*");
  source_->acl_list = {topic_acl("orders")};
  destination_.acls_error = Status(ErrorCode::SECURITY_DISABLED, "no authorizer");
  round(*sync);
  EXPECT_EQ(acls_status(*sync).last_error.code(), ErrorCode::SECURITY_DISABLED);
  EXPECT_EQ(destination_.acl_changes, 0);
  // The other kinds go on.
  EXPECT_TRUE(sync->status().of(SyncKind::kGroups).last_error.ok());
}

TEST_F(MirrorSyncAclsTest, AFailedChangeIsTheRoundsError) {
  auto sync = sync_with(".*");
  source_->acl_list = {topic_acl("orders")};
  destination_.change_acls_error = Status(ErrorCode::KAFKA_STORAGE_ERROR, "disk full");
  round(*sync);
  EXPECT_EQ(acls_status(*sync).last_error.code(), ErrorCode::KAFKA_STORAGE_ERROR);
  EXPECT_EQ(acls_status(*sync).changed, 0);
}

TEST_F(MirrorSyncAclsTest, NothingWhilePausedOrFailedOverTheAclsStay) {
  auto sync = sync_with(".*");
  source_->acl_list = {topic_acl("orders")};
  round(*sync);
  ASSERT_TRUE(holds(topic_acl("orders"), "m"));
  for (MirrorState st : {MirrorState::paused, MirrorState::stopped}) {
    sink_.set_state({"orders", 0}, st);
    source_->acl_list.clear();
    const int calls = source_->acls_calls;
    round(*sync);
    EXPECT_EQ(source_->acls_calls, calls);
    EXPECT_TRUE(holds(topic_acl("orders"), "m"));
  }
}

TEST_F(MirrorSyncAclsTest, AnAclThisBrokerCannotCreateIsNamedTheOthersSync) {
  auto sync = sync_with(".*");
  AclBinding odd = topic_acl("orders");
  odd.operation = AclOperation::cluster_action;  // no such operation on a topic
  source_->acl_list = {odd, topic_acl("orders")};
  round(*sync);
  EXPECT_TRUE(holds(topic_acl("orders"), "m"));
  EXPECT_EQ(destination_.acl_set.size(), 1u);
  const Status& e = acls_status(*sync).last_error;
  EXPECT_EQ(e.code(), ErrorCode::INVALID_REQUEST);
  EXPECT_NE(e.message().find("1 source ACL(s)"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("CLUSTER_ACTION"), std::string::npos) << e.message();
}

}  // namespace
}  // namespace mirra::mirror
