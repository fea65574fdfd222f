// The group coordinator on a real cluster layer (tests/cluster/cluster_fixture.h: metadata
// store, partition manager, topic admin in a temporary directory), called directly on the
// test's thread, which is the core thread. Each call is spawned and the loop is run until its
// answer is there, so a parked JoinGroup or SyncGroup can be held while others act: the
// static-membership rules of KIP-345 (a replaced member is fenced on every call) and the
// session deadlines around parked requests and expiry.
#include "groups/group_coordinator.h"

#include <gtest/gtest.h>

#include "../cluster/cluster_fixture.h"
#include "join_request.h"

namespace mirra::groups {
namespace {

using namespace protocol;

constexpr int16_t kJoinV = 9;
constexpr int16_t kSyncV = 5;
constexpr int16_t kCommitV = 8;
constexpr int16_t kLeaveV = 5;

int16_t err(ErrorCode c) { return error_number(c); }

template <typename T>
using Answer = std::shared_ptr<std::optional<T>>;

// The coroutines that carry one call each (parameters by value: they outlive the caller).
asio::awaitable<void> do_join(GroupCoordinator& c, JoinGroupRequest req,
                              Answer<JoinGroupResponse> out) {
  const ClientInfo client{"client", "/127.0.0.1"};  // a named local: GCC 12 mishandles
                                                    // temporaries inside co_await
  out->emplace(co_await c.join(req, kJoinV, client));
}
asio::awaitable<void> do_sync(GroupCoordinator& c, SyncGroupRequest req,
                              Answer<SyncGroupResponse> out) {
  out->emplace(co_await c.sync(req, kSyncV));
}
asio::awaitable<void> do_commit(GroupCoordinator& c, std::pair<OffsetCommitRequest, int16_t> req,
                                Answer<OffsetCommitResponse> out) {
  out->emplace(co_await c.commit(req.first, req.second));
}
asio::awaitable<void> do_txn_commit(GroupCoordinator& c, TxnOffsetCommitRequest req,
                                    Answer<TxnOffsetCommitResponse> out) {
  out->emplace(co_await c.txn_commit(req));
}
asio::awaitable<void> do_leave(GroupCoordinator& c, LeaveGroupRequest req,
                               Answer<LeaveGroupResponse> out) {
  out->emplace(co_await c.leave(req, kLeaveV));
}
asio::awaitable<void> do_delete(GroupCoordinator& c, std::string group,
                                Answer<DeleteGroupsResponse::DeletableGroupResult> out) {
  out->emplace(co_await c.delete_group(group));
}

class GroupCoordinatorTest : public cluster::testing::ClusterTest {
 protected:
  static constexpr int32_t kSessionMs = 500;

  void SetUp() override {
    ClusterTest::SetUp();
    config_.min_session_timeout_ms = 10;
    config_.initial_rebalance_delay_ms = 0;
    config_.offsets_topic_partitions = 1;
    topic_ = std::make_unique<OffsetsTopic>(*store_, *partitions_, *admin_, config_);
    coordinator_ = std::make_unique<GroupCoordinator>(io_.get_executor(), *topic_, config_,
                                                      [](const TopicPartition&) { return true; });
    coordinator_->start();
  }

  void TearDown() override {
    coordinator_->stop();
    // The sweep's cancelled wait and any membership write still under way finish first.
    io_.restart();
    io_.run_for(std::chrono::milliseconds(100));
    coordinator_.reset();
    topic_.reset();
    ClusterTest::TearDown();
  }

  template <typename T, typename Req, typename F>
  Answer<T> start(F call, Req req) {
    auto out = std::make_shared<std::optional<T>>();
    asio::co_spawn(io_, call(*coordinator_, std::move(req), out), asio::detached);
    io_.restart();
    io_.poll();
    return out;
  }

  template <typename T>
  T finish(const Answer<T>& a) {
    EXPECT_TRUE(run_until([&] { return a->has_value(); }));
    return a->value_or(T{});
  }

  static JoinGroupRequest join_request(const std::string& member_id,
                                       std::optional<std::string> instance = std::nullopt) {
    return testing::join_request(member_id, kSessionMs, std::move(instance));
  }

  Answer<JoinGroupResponse> start_join(const std::string& member_id,
                                       std::optional<std::string> instance = std::nullopt) {
    return start<JoinGroupResponse>(do_join, join_request(member_id, std::move(instance)));
  }
  JoinGroupResponse join(const std::string& member_id,
                         std::optional<std::string> instance = std::nullopt) {
    return finish(start_join(member_id, std::move(instance)));
  }
  // A dynamic member's first join: MEMBER_ID_REQUIRED with its id, then the join (parked
  // until the join phase completes).
  Answer<JoinGroupResponse> start_new_member() {
    JoinGroupResponse first = join("");
    EXPECT_EQ(first.error_code, err(ErrorCode::MEMBER_ID_REQUIRED));
    return start_join(first.member_id);
  }

  Answer<SyncGroupResponse> start_sync(
      const std::string& member, int32_t generation, std::optional<std::string> instance,
      std::vector<std::pair<std::string, Bytes>> assignments = {}) {
    SyncGroupRequest req;
    req.group_id = "g";
    req.generation_id = generation;
    req.member_id = member;
    req.group_instance_id = std::move(instance);
    for (auto& [m, a] : assignments) req.assignments.push_back({m, a, {}});
    return start<SyncGroupResponse>(do_sync, std::move(req));
  }
  SyncGroupResponse sync(const std::string& member, int32_t generation,
                         std::optional<std::string> instance,
                         std::vector<std::pair<std::string, Bytes>> assignments = {}) {
    return finish(start_sync(member, generation, std::move(instance), std::move(assignments)));
  }

  int16_t heartbeat(const std::string& member, int32_t generation,
                    std::optional<std::string> instance) {
    return coordinator_->heartbeat({"g", generation, member, std::move(instance), {}}).error_code;
  }

  int16_t commit(const std::string& member, int32_t generation, std::optional<std::string> instance,
                 int16_t version = kCommitV) {
    OffsetCommitRequest req;
    req.group_id = "g";
    req.generation_id_or_member_epoch = generation;
    req.member_id = member;
    req.group_instance_id = std::move(instance);
    req.topics.emplace_back().name = "t";
    req.topics[0].partitions.push_back({0, 42, -1, std::string(), {}});
    auto r = finish(start<OffsetCommitResponse>(do_commit, std::pair(std::move(req), version)));
    return r.topics.empty() ? int16_t(-1) : r.topics[0].partitions.at(0).error_code;
  }

  int16_t txn_commit(const std::string& member, int32_t generation,
                     std::optional<std::string> instance) {
    TxnOffsetCommitRequest req;
    req.transactional_id = "tx";
    req.group_id = "g";
    req.producer_id = 7;
    req.generation_id = generation;
    req.member_id = member;
    req.group_instance_id = std::move(instance);
    req.topics.emplace_back().name = "t";
    req.topics[0].partitions.push_back({0, 42, -1, std::string(), {}});
    auto r = finish(start<TxnOffsetCommitResponse>(do_txn_commit, std::move(req)));
    return r.topics.empty() ? int16_t(-1) : r.topics[0].partitions.at(0).error_code;
  }

  int16_t leave(const std::string& member, std::optional<std::string> instance) {
    LeaveGroupRequest req;
    req.group_id = "g";
    req.members.push_back({member, std::move(instance), std::nullopt, {}});
    auto r = finish(start<LeaveGroupResponse>(do_leave, std::move(req)));
    return r.members.empty() ? int16_t(-1) : r.members[0].error_code;
  }

  int16_t delete_group() {
    return finish(start<DeleteGroupsResponse::DeletableGroupResult>(do_delete, std::string("g")))
        .error_code;
  }

  const Member& member(const std::string& id) { return coordinator_->find("g")->members.at(id); }

  GroupConfig config_;
  std::unique_ptr<OffsetsTopic> topic_;
  std::unique_ptr<GroupCoordinator> coordinator_;
};

// Issue 15 point 8 (KIP-345): a second consumer joining with the same group.instance.id takes
// the membership over; the replaced one must hear FENCED_INSTANCE_ID on its next call (and
// stop), not UNKNOWN_MEMBER_ID (on which a client rejoins and takes the slot back).
TEST_F(GroupCoordinatorTest, AReplacedStaticMemberIsFencedOnEveryCall) {
  JoinGroupResponse a = join("", "instance-1");
  ASSERT_EQ(a.error_code, 0);
  ASSERT_EQ(sync(a.member_id, 1, "instance-1", {{a.member_id, {5}}}).error_code, 0);
  JoinGroupResponse b = join("", "instance-1");
  ASSERT_EQ(b.error_code, 0);
  ASSERT_NE(b.member_id, a.member_id);
  ASSERT_EQ(b.generation_id, 1);

  const int16_t fenced = err(ErrorCode::FENCED_INSTANCE_ID);
  EXPECT_EQ(heartbeat(a.member_id, 1, "instance-1"), fenced);
  EXPECT_EQ(sync(a.member_id, 1, "instance-1").error_code, fenced);
  EXPECT_EQ(join(a.member_id, "instance-1").error_code, fenced);
  EXPECT_EQ(commit(a.member_id, 1, "instance-1"), fenced);
  EXPECT_EQ(txn_commit(a.member_id, 1, "instance-1"), fenced);
  EXPECT_EQ(leave(a.member_id, "instance-1"), fenced);

  // The member holding the instance is not disturbed by any of it.
  EXPECT_EQ(heartbeat(b.member_id, 1, "instance-1"), 0);
  EXPECT_EQ(sync(b.member_id, 1, "instance-1").assignment, Bytes{5});
  // Without its instance id the old member is just unknown; an instance nobody holds names
  // no member.
  EXPECT_EQ(heartbeat(a.member_id, 1, std::nullopt), err(ErrorCode::UNKNOWN_MEMBER_ID));
  EXPECT_EQ(heartbeat(b.member_id, 1, "instance-2"), err(ErrorCode::UNKNOWN_MEMBER_ID));
  EXPECT_EQ(commit(b.member_id, 1, "instance-2"), err(ErrorCode::UNKNOWN_MEMBER_ID));
}

// Issue 15 point 14: a follower's SyncGroup is parked (exempt from session expiry) until the
// leader sends the assignments and they are stored; on a slow machine that can take longer
// than the session timeout. Its session must run again from the answer, as Kafka's coordinator
// does, or the next sweep evicts it before it can heartbeat and its client reports the
// partitions it was just given as lost.
TEST_F(GroupCoordinatorTest, AnsweringAParkedSyncRestartsTheSession) {
  JoinGroupResponse a = finish(start_new_member());
  ASSERT_EQ(sync(a.member_id, 1, std::nullopt, {{a.member_id, {1}}}).error_code, 0);
  auto b_join = start_new_member();
  ASSERT_EQ(finish(start_join(a.member_id)).generation_id, 2);
  JoinGroupResponse b = finish(b_join);
  ASSERT_EQ(b.generation_id, 2);

  auto b_sync = start_sync(b.member_id, 2, std::nullopt);
  ASSERT_FALSE(b_sync->has_value());  // parked until the leader's assignments
  const auto answered_after = SteadyClock::now();
  ASSERT_EQ(sync(a.member_id, 2, std::nullopt, {{a.member_id, {1}}, {b.member_id, {2}}}).error_code,
            0);
  EXPECT_EQ(finish(b_sync).assignment, Bytes{2});
  EXPECT_GE(member(b.member_id).heartbeat_deadline,
            answered_after + std::chrono::milliseconds(kSessionMs));

  // The same when a rebalance answers the parked sync with REBALANCE_IN_PROGRESS: the member
  // must get its session to rejoin in.
  auto a_rejoin = start_join(a.member_id);  // the leader rejoins: generation 3
  auto b_rejoin = start_join(b.member_id);
  ASSERT_EQ(finish(a_rejoin).generation_id, 3);
  ASSERT_EQ(finish(b_rejoin).generation_id, 3);
  b_sync = start_sync(b.member_id, 3, std::nullopt);
  ASSERT_FALSE(b_sync->has_value());
  const auto rebalanced_after = SteadyClock::now();
  auto c_join = start_new_member();  // a newcomer: the group rebalances
  EXPECT_EQ(finish(b_sync).error_code, err(ErrorCode::REBALANCE_IN_PROGRESS));
  EXPECT_GE(member(b.member_id).heartbeat_deadline,
            rebalanced_after + std::chrono::milliseconds(kSessionMs));
  (void)c_join;
}

// Issue 15 point 9: static members of closed consumers (no LeaveGroup, no heartbeats) leave
// the group when their session times out, within the sweep's slack (src/groups/README.md),
// after which the empty group can be deleted.
TEST_F(GroupCoordinatorTest, StaticMembersExpireWithTheirSession) {
  JoinGroupResponse a = join("", "instance-1");
  ASSERT_EQ(a.error_code, 0);
  ASSERT_EQ(sync(a.member_id, 1, "instance-1", {{a.member_id, {1}}}).error_code, 0);
  auto b_join = start_join("", "instance-2");
  ASSERT_EQ(finish(start_join(a.member_id, "instance-1")).generation_id, 2);
  JoinGroupResponse b = finish(b_join);
  ASSERT_EQ(b.generation_id, 2);
  auto b_sync = start_sync(b.member_id, 2, "instance-2");
  ASSERT_EQ(sync(a.member_id, 2, "instance-1", {{a.member_id, {1}}, {b.member_id, {2}}}).error_code,
            0);
  ASSERT_EQ(finish(b_sync).error_code, 0);
  const auto last_call = SteadyClock::now();
  EXPECT_EQ(delete_group(), err(ErrorCode::NON_EMPTY_GROUP));

  // Both consumers are gone: nothing more arrives from them.
  ASSERT_TRUE(run_until([&] { return coordinator_->find("g")->is(GroupState::empty); }));
  const auto emptied = SteadyClock::now();
  EXPECT_GE(emptied, last_call + std::chrono::milliseconds(kSessionMs));
  // The documented bound is the session timeout plus one sweep interval; the extra second
  // is for the scheduling of a loaded machine (sanitizer builds), not for the coordinator.
  EXPECT_LE(emptied, last_call + std::chrono::milliseconds(kSessionMs) +
                         GroupCoordinator::kSweepInterval + std::chrono::seconds(1));
  EXPECT_TRUE(coordinator_->find("g")->static_members.empty());
  EXPECT_EQ(delete_group(), 0);
}

// A commit naming a generation of a group the coordinator does not know: Kafka answers
// GROUP_ID_NOT_FOUND from OffsetCommit v9 (ILLEGAL_GENERATION before), and ILLEGAL_GENERATION
// to TxnOffsetCommit; without a generation both create the group and are accepted.
TEST_F(GroupCoordinatorTest, CommitsWithAGenerationToAnUnknownGroup) {
  EXPECT_EQ(commit("m", 3, std::nullopt, 9), err(ErrorCode::GROUP_ID_NOT_FOUND));
  EXPECT_EQ(commit("m", 3, std::nullopt, 8), err(ErrorCode::ILLEGAL_GENERATION));
  EXPECT_EQ(txn_commit("m", 3, std::nullopt), err(ErrorCode::ILLEGAL_GENERATION));
  EXPECT_EQ(coordinator_->find("g"), nullptr);
  EXPECT_EQ(txn_commit("", -1, std::nullopt), 0);
  EXPECT_EQ(commit("", -1, std::nullopt, 9), 0);
}

}  // namespace
}  // namespace mirra::groups
