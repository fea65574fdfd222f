// What a mirror's groups sync asks of brokers (docs/mirroring-design.md §8), on an in-process
// broker: OffsetFetch v8+ with several groups in one request (KIP-709), as the sync batches it
// against a Mirra source, and the group hooks the broker gives the sync on the destination
// (describe a group, commit as an admin).
#include <gtest/gtest.h>

#include "../groups/join_request.h"
#include "groups/group_coordinator.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_fetch.h"
#include "server/in_process_broker.h"
#include "server/mirror_group_hooks.h"
#include "share/share_state.h"

namespace mirra::server {
namespace {

using namespace protocol;

class MirrorGroupSyncTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto b = InProcessBroker::start(
        {"offsets.topic.num.partitions=3", "group.initial.rebalance.delay.ms=0"});
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    broker_ = std::move(b.value());
    FindCoordinatorRequest fc;
    fc.key = "a";
    auto r = broker_->call<FindCoordinatorResponse>(fc, 3);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->error_code, 0);
    for (const char* g : {"a", "b", "c", "g"}) {  // each group's partition loaded
      ASSERT_TRUE(broker_->run_until([&] {
        DescribeGroupsRequest req;
        req.groups = {g};
        auto d = broker_->call<DescribeGroupsResponse>(req, 5);
        return d.ok() && d->groups.at(0).error_code == 0;
      }));
    }
    CreateTopicsRequest req;
    req.topics.push_back({"t", 2, 1, {}, {}, {}});
    auto created = broker_->call<CreateTopicsResponse>(req, 7);
    ASSERT_TRUE(created.ok());
    ASSERT_EQ(created->topics.at(0).error_code, 0);
  }

  void admin_commit(const std::string& group, int32_t partition, int64_t offset, int32_t epoch,
                    const std::string& metadata) {
    OffsetCommitRequest req;
    req.group_id = group;
    req.generation_id_or_member_epoch = -1;
    auto& t = req.topics.emplace_back();
    t.name = "t";
    t.partitions.push_back({partition, offset, epoch, metadata, {}});
    auto r = broker_->call<OffsetCommitResponse>(req, 8);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->topics.at(0).partitions.at(0).error_code, 0);
  }

  std::unique_ptr<InProcessBroker> broker_;
};

TEST_F(MirrorGroupSyncTest, OffsetFetchV8AnswersEveryGroupOfOneRequest) {
  admin_commit("a", 0, 5, 3, "meta-a");
  admin_commit("b", 1, 7, 2, "");
  for (int16_t version : {8, 9}) {
    OffsetFetchRequest req;
    auto& a = req.groups.emplace_back();
    a.group_id = "a";
    a.topics.emplace();
    a.topics->push_back({"t", {0, 1}, {}});
    auto& b = req.groups.emplace_back();
    b.group_id = "b";
    b.topics = std::nullopt;  // every offset it has
    auto& unknown = req.groups.emplace_back();
    unknown.group_id = "never-committed";
    unknown.topics.emplace();
    unknown.topics->push_back({"t", {0}, {}});
    req.groups.emplace_back().group_id = "";  // invalid: its own error, the others answered
    auto r = broker_->call<OffsetFetchResponse>(req, version);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    ASSERT_EQ(r->groups.size(), 4u);
    const auto& ra = r->groups.at(0);
    EXPECT_EQ(ra.group_id, "a");
    EXPECT_EQ(ra.error_code, 0);
    ASSERT_EQ(ra.topics.at(0).partitions.size(), 2u);
    EXPECT_EQ(ra.topics.at(0).partitions.at(0).committed_offset, 5);
    EXPECT_EQ(ra.topics.at(0).partitions.at(0).committed_leader_epoch, 3);
    EXPECT_EQ(ra.topics.at(0).partitions.at(0).metadata, "meta-a");
    EXPECT_EQ(ra.topics.at(0).partitions.at(1).committed_offset, -1);
    const auto& rb = r->groups.at(1);
    EXPECT_EQ(rb.group_id, "b");
    ASSERT_EQ(rb.topics.size(), 1u);
    ASSERT_EQ(rb.topics.at(0).partitions.size(), 1u);
    EXPECT_EQ(rb.topics.at(0).partitions.at(0).partition_index, 1);
    EXPECT_EQ(rb.topics.at(0).partitions.at(0).committed_offset, 7);
    EXPECT_EQ(rb.topics.at(0).partitions.at(0).committed_leader_epoch, 2);
    const auto& ru = r->groups.at(2);
    EXPECT_EQ(ru.error_code, 0);
    EXPECT_EQ(ru.topics.at(0).partitions.at(0).committed_offset, -1);
    EXPECT_EQ(r->groups.at(3).error_code, error_number(ErrorCode::INVALID_GROUP_ID));
  }
}

TEST_F(MirrorGroupSyncTest, TheHooksDescribeGroupsAndCommitAsAnAdmin) {
  mirror::GroupHooks hooks = mirror_group_hooks(broker_->state());
  EXPECT_FALSE(hooks.describe("c").exists);
  Result<std::vector<client::PartitionStatus>> done = Status();
  broker_->run([&]() -> asio::awaitable<void> {
    std::vector<client::OffsetToCommit> offsets{{{"t", 0}, 11, 4, "m"}, {{"t", 9}, 1, -1, ""}};
    done = co_await hooks.commit("c", offsets);
  }());
  ASSERT_TRUE(done.ok()) << done.status().to_string();
  ASSERT_EQ(done->size(), 2u);
  EXPECT_TRUE(done->at(0).status.ok());
  EXPECT_EQ(done->at(1).status.code(), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  const mirror::DestinationGroup c = hooks.describe("c");
  EXPECT_TRUE(c.exists);
  EXPECT_EQ(c.protocol_type, "");
  EXPECT_EQ(c.members, 0u);
  const groups::Group* g = broker_->state().groups->find("c");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->offsets.at(groups::TopicPartition{"t", 0}).offset, 11);
  EXPECT_EQ(g->offsets.at(groups::TopicPartition{"t", 0}).leader_epoch, 4);
  EXPECT_EQ(g->offsets.at(groups::TopicPartition{"t", 0}).metadata, "m");

  // A member joins: the group is shown with it, and an admin commit is refused as a whole.
  auto join = broker_->start_call(groups::testing::join_request("", 10000, "static-1"), 9);
  broker_->run_until_done(*join);
  ASSERT_TRUE(broker_->run_until([&] { return hooks.describe("g").members == 1; }));
  EXPECT_EQ(hooks.describe("g").protocol_type, "consumer");
  broker_->run([&]() -> asio::awaitable<void> {
    std::vector<client::OffsetToCommit> offsets{{{"t", 0}, 1, -1, ""}};
    done = co_await hooks.commit("g", offsets);
  }());
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.status().code(), ErrorCode::UNKNOWN_MEMBER_ID);
}

// The share-group sync's side: the group is created as a share group with the start offsets
// set, and shown as one; a consumer group's id is refused as a whole.
TEST_F(MirrorGroupSyncTest, TheShareHookSetsStartOffsetsAndCreatesTheShareGroup) {
  mirror::GroupHooks hooks = mirror_group_hooks(broker_->state());
  Result<std::vector<client::PartitionStatus>> done = Status();
  auto alter = [&](std::string group, std::vector<client::ShareGroupOffset> offsets) {
    broker_->run([&]() -> asio::awaitable<void> {
      done = co_await hooks.alter_share(std::move(group), std::move(offsets));
    }());
  };
  alter("s", {{{"t", 1}, Status::OK(), 5}, {{"t", 7}, Status::OK(), 1}});
  ASSERT_TRUE(done.ok()) << done.status().to_string();
  ASSERT_EQ(done->size(), 2u);
  EXPECT_TRUE(done->at(0).status.ok());
  EXPECT_EQ(done->at(1).status.code(), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  const mirror::DestinationGroup s = hooks.describe("s");
  EXPECT_TRUE(s.exists);
  EXPECT_EQ(s.protocol_type, "share");
  EXPECT_EQ(s.members, 0u);
  const Uuid topic_id = broker_->state().metadata->image().topic("t")->id;
  const share::SharePartition* p = broker_->state().share->find({"s", topic_id, 1});
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->start_offset(), 5);

  broker_->run([&]() -> asio::awaitable<void> {  // "c" becomes a group with committed offsets
    std::vector<client::OffsetToCommit> offsets{{{"t", 0}, 11, -1, ""}};
    done = co_await hooks.commit("c", offsets);
  }());
  ASSERT_TRUE(done.ok()) << done.status().to_string();
  alter("c", {{{"t", 0}, Status::OK(), 1}});
  ASSERT_FALSE(done.ok());
  EXPECT_EQ(done.status().code(), ErrorCode::GROUP_ID_NOT_FOUND);
  EXPECT_EQ(broker_->state().groups->find_share("c"), nullptr);
}

}  // namespace
}  // namespace mirra::server
