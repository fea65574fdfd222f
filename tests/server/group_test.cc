// The group coordinator through the whole request path of an in-process broker: the join /
// sync protocol with member ids from the broker, a second member forcing a rebalance,
// heartbeats and generations, leaving, static members, session expiry, committed offsets with
// Kafka's acceptance rules, admin calls, and offsets and membership surviving a restart.
#include <gtest/gtest.h>

#include "../groups/join_request.h"
#include "groups/group_coordinator.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_delete.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/sync_group.h"
#include "server/in_process_broker.h"

namespace mirra::server {
namespace {

using namespace protocol;

constexpr int16_t kJoinV = 9;
constexpr int16_t kSyncV = 5;

int16_t err(ErrorCode c) { return error_number(c); }

class GroupTest : public ::testing::Test {
 protected:
  void SetUp() override { start({}); }

  void start(std::vector<std::string> extra) {
    std::vector<std::string> o{"offsets.topic.num.partitions=3",
                               "group.initial.rebalance.delay.ms=0",
                               "group.min.session.timeout.ms=10"};
    o.insert(o.end(), extra.begin(), extra.end());
    auto b = InProcessBroker::start(o);
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    broker_ = std::move(b.value());
    // The coordinator loads in the background: wait until FindCoordinator succeeds.
    FindCoordinatorRequest fc;
    fc.key = "g";
    auto r = broker_->call<FindCoordinatorResponse>(fc, 3);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->error_code, 0) << r->error_message.value_or("");
    EXPECT_EQ(r->node_id, 1);
    // ... and until its partition of __consumer_offsets is loaded.
    ASSERT_TRUE(eventually([&] {
      DescribeGroupsRequest req;
      req.groups = {"g"};
      auto d = broker_->call<DescribeGroupsResponse>(req, 5);
      return d.ok() && d->groups.at(0).error_code == 0;
    }));
  }

  void create_topic(const std::string& name, int32_t partitions) {
    CreateTopicsRequest req;
    req.topics.push_back({name, partitions, 1, {}, {}, {}});
    auto resp = broker_->call<CreateTopicsResponse>(req, 7);
    ASSERT_TRUE(resp.ok());
    ASSERT_EQ(resp->topics.at(0).error_code, 0);
  }

  static JoinGroupRequest join_request(const std::string& member_id, int32_t session_ms = 10000,
                                       std::optional<std::string> instance = std::nullopt) {
    return groups::testing::join_request(member_id, session_ms, std::move(instance));
  }

  // A first join: MEMBER_ID_REQUIRED with an id, then the join with it (parked).
  std::shared_ptr<InProcessBroker::Call> join_new() {
    auto first = broker_->call<JoinGroupResponse>(join_request(""), kJoinV);
    EXPECT_TRUE(first.ok());
    EXPECT_EQ(first->error_code, err(ErrorCode::MEMBER_ID_REQUIRED));
    EXPECT_FALSE(first->member_id.empty());
    return broker_->start_call(join_request(first->member_id), kJoinV);
  }

  JoinGroupResponse finish_join(const std::shared_ptr<InProcessBroker::Call>& call) {
    broker_->run_until_done(*call);
    auto r = broker_->response_of<JoinGroupResponse>(*call, kJoinV);
    EXPECT_TRUE(r.ok());
    return r.value();
  }

  SyncGroupResponse sync(const std::string& member, int32_t generation,
                         std::vector<std::pair<std::string, Bytes>> assignments = {}) {
    SyncGroupRequest req;
    req.group_id = "g";
    req.generation_id = generation;
    req.member_id = member;
    for (auto& [m, a] : assignments) req.assignments.push_back({m, a, {}});
    auto r = broker_->call<SyncGroupResponse>(req, kSyncV);
    EXPECT_TRUE(r.ok());
    return r.value();
  }

  int16_t heartbeat(const std::string& member, int32_t generation) {
    HeartbeatRequest req{"g", generation, member, std::nullopt, {}};
    auto r = broker_->call<HeartbeatResponse>(req, 4);
    EXPECT_TRUE(r.ok());
    return r->error_code;
  }

  int16_t commit(const std::string& member, int32_t generation, int32_t partition, int64_t offset) {
    OffsetCommitRequest req;
    req.group_id = "g";
    req.generation_id_or_member_epoch = generation;
    req.member_id = member;
    auto& t = req.topics.emplace_back();
    t.name = "t";
    t.partitions.push_back({partition, offset, -1, std::string("meta"), {}});
    auto r = broker_->call<OffsetCommitResponse>(req, 8);
    EXPECT_TRUE(r.ok());
    return r->topics.at(0).partitions.at(0).error_code;
  }

  int64_t committed(int32_t partition) {
    OffsetFetchRequest req;
    auto& g = req.groups.emplace_back();
    g.group_id = "g";
    g.topics.emplace();
    g.topics->push_back({"t", {partition}, {}});
    auto r = broker_->call<OffsetFetchResponse>(req, 8);
    EXPECT_TRUE(r.ok());
    return r->groups.at(0).topics.at(0).partitions.at(0).committed_offset;
  }

  std::string state() {
    DescribeGroupsRequest req;
    req.groups = {"g"};
    auto r = broker_->call<DescribeGroupsResponse>(req, 5);
    EXPECT_TRUE(r.ok());
    return r->groups.at(0).group_state;
  }

  // Runs the broker's loop until `done` holds, for at most 10 s.
  template <typename F>
  bool eventually(F done) {
    return broker_->run_until(done);
  }

  std::unique_ptr<InProcessBroker> broker_;
};

TEST_F(GroupTest, OneMemberJoinsSyncsAndIsStable) {
  JoinGroupResponse j = finish_join(join_new());
  ASSERT_EQ(j.error_code, 0);
  EXPECT_EQ(j.generation_id, 1);
  EXPECT_EQ(j.leader, j.member_id);
  EXPECT_EQ(j.protocol_name, "range");
  ASSERT_EQ(j.members.size(), 1u);
  EXPECT_EQ(j.members[0].metadata, (Bytes{1, 2, 3}));
  SyncGroupResponse s = sync(j.member_id, 1, {{j.member_id, {9, 9}}});
  EXPECT_EQ(s.error_code, 0);
  EXPECT_EQ(s.assignment, (Bytes{9, 9}));
  EXPECT_EQ(state(), "Stable");
  EXPECT_EQ(heartbeat(j.member_id, 1), 0);
  EXPECT_EQ(heartbeat(j.member_id, 7), err(ErrorCode::ILLEGAL_GENERATION));
  EXPECT_EQ(heartbeat("nobody", 1), err(ErrorCode::UNKNOWN_MEMBER_ID));
}

TEST_F(GroupTest, ASecondMemberRebalancesTheGroup) {
  JoinGroupResponse a = finish_join(join_new());
  ASSERT_EQ(sync(a.member_id, 1, {{a.member_id, {1}}}).error_code, 0);
  auto b_call = join_new();
  broker_->poll();
  EXPECT_FALSE(b_call->result.has_value());  // waits for the first member to rejoin
  EXPECT_EQ(heartbeat(a.member_id, 1), err(ErrorCode::REBALANCE_IN_PROGRESS));
  auto a_call = broker_->start_call(join_request(a.member_id), kJoinV);
  JoinGroupResponse a2 = finish_join(a_call);
  JoinGroupResponse b = finish_join(b_call);
  ASSERT_EQ(a2.error_code, 0);
  ASSERT_EQ(b.error_code, 0);
  EXPECT_EQ(a2.generation_id, 2);
  EXPECT_EQ(b.generation_id, 2);
  EXPECT_EQ(a2.leader, a.member_id);  // the leader stays
  EXPECT_EQ(a2.members.size(), 2u);
  EXPECT_TRUE(b.members.empty());  // only the leader sees the members
  // The follower's sync waits for the leader's assignments.
  SyncGroupRequest follower{"g", 2, b.member_id, std::nullopt, std::nullopt, std::nullopt, {}, {}};
  auto b_sync = broker_->start_call(follower, kSyncV);
  broker_->poll();
  EXPECT_FALSE(b_sync->result.has_value());
  EXPECT_EQ(sync(a.member_id, 2, {{a.member_id, {1}}, {b.member_id, {2}}}).assignment, Bytes{1});
  broker_->run_until_done(*b_sync);
  auto bs = broker_->response_of<SyncGroupResponse>(*b_sync, kSyncV);
  ASSERT_TRUE(bs.ok());
  EXPECT_EQ(bs->assignment, Bytes{2});
  EXPECT_EQ(state(), "Stable");
}

TEST_F(GroupTest, LeavingEmptiesTheGroupAndAdminCommitsAreThenAccepted) {
  create_topic("t", 2);
  JoinGroupResponse a = finish_join(join_new());
  ASSERT_EQ(sync(a.member_id, 1, {{a.member_id, {}}}).error_code, 0);
  EXPECT_EQ(commit(a.member_id, 1, 0, 42), 0);
  EXPECT_EQ(commit("", -1, 0, 7), err(ErrorCode::UNKNOWN_MEMBER_ID));  // the group is active
  EXPECT_EQ(commit(a.member_id, 5, 0, 7), err(ErrorCode::ILLEGAL_GENERATION));
  EXPECT_EQ(commit(a.member_id, 1, 9, 7), err(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION));
  EXPECT_EQ(committed(0), 42);
  LeaveGroupRequest leave;
  leave.group_id = "g";
  leave.members.push_back({a.member_id, std::nullopt, std::nullopt, {}});
  auto l = broker_->call<LeaveGroupResponse>(leave, 5);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->members.at(0).error_code, 0);
  EXPECT_EQ(state(), "Empty");
  EXPECT_EQ(commit("", -1, 0, 7), 0);
  EXPECT_EQ(committed(0), 7);
  EXPECT_EQ(committed(1), -1);
}

TEST_F(GroupTest, AStaticMemberRejoinsWithoutARebalance) {
  auto call = broker_->start_call(join_request("", 10000, "instance-1"), kJoinV);
  JoinGroupResponse a = finish_join(call);
  ASSERT_EQ(a.error_code, 0);  // static members get their id at once (no MEMBER_ID_REQUIRED)
  ASSERT_EQ(sync(a.member_id, 1, {{a.member_id, {5}}}).error_code, 0);
  // The same instance comes back with no member id: same generation, a new id, the old fenced.
  auto again = broker_->call<JoinGroupResponse>(join_request("", 10000, "instance-1"), kJoinV);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->error_code, 0);
  EXPECT_EQ(again->generation_id, 1);
  EXPECT_NE(again->member_id, a.member_id);
  EXPECT_TRUE(again->skip_assignment);  // it is the leader: it must not reassign
  EXPECT_EQ(state(), "Stable");
  EXPECT_EQ(sync(again->member_id, 1).assignment, Bytes{5});
  EXPECT_EQ(heartbeat(a.member_id, 1), err(ErrorCode::UNKNOWN_MEMBER_ID));
}

TEST_F(GroupTest, AMemberWithoutHeartbeatsIsEvicted) {
  auto first = broker_->call<JoinGroupResponse>(join_request("", 50), kJoinV);
  ASSERT_TRUE(first.ok());
  JoinGroupResponse a =
      finish_join(broker_->start_call(join_request(first->member_id, 50), kJoinV));
  ASSERT_EQ(sync(a.member_id, 1, {{a.member_id, {}}}).error_code, 0);
  // No heartbeat: the coordinator's sweep removes the member after 50 ms; the group empties.
  EXPECT_TRUE(eventually([&] { return state() == "Empty"; }));
  EXPECT_EQ(heartbeat(a.member_id, 1), err(ErrorCode::UNKNOWN_MEMBER_ID));
}

TEST_F(GroupTest, ListDescribeDeleteAndOffsetDelete) {
  create_topic("t", 1);
  EXPECT_EQ(commit("", -1, 0, 3), 0);
  auto list = broker_->call<ListGroupsResponse>(ListGroupsRequest{{"Empty"}, {}, {}}, 5);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->groups.size(), 1u);
  EXPECT_EQ(list->groups[0].group_id, "g");
  EXPECT_EQ(list->groups[0].group_state, "Empty");
  auto stable = broker_->call<ListGroupsResponse>(ListGroupsRequest{{"Stable"}, {}, {}}, 5);
  EXPECT_TRUE(stable->groups.empty());

  OffsetDeleteRequest od;
  od.group_id = "g";
  od.topics.push_back({"t", {{0, {}}}, {}});
  auto del = broker_->call<OffsetDeleteResponse>(od, 0);
  ASSERT_TRUE(del.ok());
  EXPECT_EQ(del->error_code, 0);
  EXPECT_EQ(committed(0), -1);

  DeleteGroupsRequest dg;
  dg.groups_names = {"g", "missing"};
  auto d = broker_->call<DeleteGroupsResponse>(dg, 2);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->results.at(0).error_code, 0);
  EXPECT_EQ(d->results.at(1).error_code, err(ErrorCode::GROUP_ID_NOT_FOUND));
  EXPECT_EQ(state(), "Dead");
}

TEST_F(GroupTest, OffsetsAndMembershipSurviveARestart) {
  const std::string dir = broker_->dir().string() + "-restart";
  broker_.reset();
  start({"log.dirs=" + dir});
  create_topic("t", 2);
  JoinGroupResponse a = finish_join(join_new());
  ASSERT_EQ(sync(a.member_id, 1, {{a.member_id, {4}}}).error_code, 0);
  EXPECT_EQ(commit(a.member_id, 1, 1, 99), 0);
  broker_.reset();
  start({"log.dirs=" + dir});
  EXPECT_EQ(committed(1), 99);
  EXPECT_EQ(state(), "Stable");  // the member's session runs again from the restart
  EXPECT_EQ(heartbeat(a.member_id, 1), 0);
  EXPECT_EQ(sync(a.member_id, 1).assignment, Bytes{4});
  broker_.reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mirra::server
