// Share groups (KIP-932) through the whole request path of an in-process broker:
// ShareGroupHeartbeat joins, heartbeats, assignments by topic id (one, two and three members on
// a two-partition topic: spread, then shared), leaving, fencing, session expiry on the sweep,
// the hooks to the share module, ShareGroupDescribe, the one namespace with classic groups
// (both ways), ListGroups' type filter, DeleteGroups and FindCoordinator's share key.
#include <gtest/gtest.h>

#include "groups/group_coordinator.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/create_partitions.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/share_group_describe.h"
#include "protocol/messages/share_group_heartbeat.h"
#include "server/in_process_broker.h"

namespace mirra::server {
namespace {

using namespace protocol;

int16_t err(ErrorCode c) { return error_number(c); }

// Partitions of one topic id in a heartbeat's assignment (nullopt: no assignment sent).
std::optional<std::vector<int32_t>> partitions_of(const ShareGroupHeartbeatResponse& r,
                                                  const Uuid& topic) {
  if (!r.assignment) return std::nullopt;
  std::vector<int32_t> out;
  for (const auto& tp : r.assignment->topic_partitions) {
    if (tp.topic_id == topic) out.insert(out.end(), tp.partitions.begin(), tp.partitions.end());
  }
  return out;
}

class ShareGroupTest : public ::testing::Test {
 protected:
  void SetUp() override { start({}); }

  void start(std::vector<std::string> extra) {
    std::vector<std::string> o{"offsets.topic.num.partitions=1",
                               "group.share.heartbeat.interval.ms=1000",
                               "group.share.min.heartbeat.interval.ms=100"};
    o.insert(o.end(), extra.begin(), extra.end());
    auto b = InProcessBroker::start(o);
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    broker_ = std::move(b.value());
    broker_->state().groups->set_share_member_gone(
        [this](const std::string& g, const std::string& m) { gone_.push_back(g + "/" + m); });
    broker_->state().groups->set_share_group_deleted(
        [this](const std::string& g) { deleted_.push_back(g); });
    // The coordinator loads in the background: wait until its partition is loaded.
    ASSERT_TRUE(broker_->run_until([&] {
      DescribeGroupsRequest req;
      req.groups = {"probe"};
      auto d = broker_->call<DescribeGroupsResponse>(req, 5);
      return d.ok() && d->groups.at(0).error_code == 0;
    }));
    topic_ = create_topic("t", 2);
  }

  Uuid create_topic(const std::string& name, int32_t partitions) {
    CreateTopicsRequest req;
    req.topics.push_back({name, partitions, 1, {}, {}, {}});
    auto resp = broker_->call<CreateTopicsResponse>(req, 7);
    EXPECT_TRUE(resp.ok());
    EXPECT_EQ(resp->topics.at(0).error_code, 0);
    return resp->topics.at(0).topic_id;
  }

  ShareGroupHeartbeatResponse beat(const std::string& member, int32_t epoch,
                                   std::optional<std::vector<std::string>> topics = std::nullopt,
                                   const std::string& group = "sg") {
    ShareGroupHeartbeatRequest req;
    req.group_id = group;
    req.member_id = member;
    req.member_epoch = epoch;
    req.subscribed_topic_names = std::move(topics);
    auto r = broker_->call<ShareGroupHeartbeatResponse>(req, 1);
    EXPECT_TRUE(r.ok());
    return r.value();
  }
  ShareGroupHeartbeatResponse join(const std::string& member, const std::string& group = "sg") {
    return beat(member, 0, std::vector<std::string>{"t"}, group);
  }

  ShareGroupDescribeResponse::DescribedGroup describe(const std::string& group = "sg") {
    ShareGroupDescribeRequest req;
    req.group_ids = {group};
    req.include_authorized_operations = true;
    auto r = broker_->call<ShareGroupDescribeResponse>(req, 1);
    EXPECT_TRUE(r.ok());
    return r->groups.at(0);
  }

  std::vector<ListGroupsResponse::ListedGroup> list(std::vector<std::string> types,
                                                    std::vector<std::string> states = {},
                                                    int16_t version = 5) {
    ListGroupsRequest req;
    req.types_filter = std::move(types);
    req.states_filter = std::move(states);
    auto r = broker_->call<ListGroupsResponse>(req, version);
    EXPECT_TRUE(r.ok());
    return r->groups;
  }

  // A classic group, made by an admin commit (generation -1).
  void make_classic_group(const std::string& group) {
    OffsetCommitRequest req;
    req.group_id = group;
    req.generation_id_or_member_epoch = -1;
    auto& t = req.topics.emplace_back();
    t.name = "t";
    t.partitions.push_back({0, 5, -1, std::string(), {}});
    auto r = broker_->call<OffsetCommitResponse>(req, 8);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->topics.at(0).partitions.at(0).error_code, 0);
  }

  std::unique_ptr<InProcessBroker> broker_;
  Uuid topic_;
  std::vector<std::string> gone_;
  std::vector<std::string> deleted_;
};

TEST_F(ShareGroupTest, AMemberJoinsAndGetsEveryPartitionByTopicId) {
  auto r = join("m1");
  ASSERT_EQ(r.error_code, 0) << r.error_message.value_or("");
  EXPECT_EQ(r.member_id, "m1");
  EXPECT_GE(r.member_epoch, 1);
  EXPECT_EQ(r.heartbeat_interval_ms, 1000);
  EXPECT_EQ(partitions_of(r, topic_), (std::vector<int32_t>{0, 1}));
  // A heartbeat at its epoch: nothing changed, no assignment sent.
  auto again = beat("m1", r.member_epoch);
  EXPECT_EQ(again.error_code, 0);
  EXPECT_EQ(again.member_epoch, r.member_epoch);
  EXPECT_FALSE(again.assignment.has_value());

  auto d = describe();
  ASSERT_EQ(d.error_code, 0);
  EXPECT_EQ(d.group_state, "Stable");
  EXPECT_EQ(d.assignor_name, "simple");
  EXPECT_EQ(d.group_epoch, r.member_epoch);
  EXPECT_EQ(d.assignment_epoch, r.member_epoch);
  ASSERT_EQ(d.members.size(), 1u);
  EXPECT_EQ(d.members[0].client_id, "in-process");
  EXPECT_EQ(d.members[0].subscribed_topic_names, (std::vector<std::string>{"t"}));
  ASSERT_EQ(d.members[0].assignment.topic_partitions.size(), 1u);
  EXPECT_EQ(d.members[0].assignment.topic_partitions[0].topic_name, "t");
  EXPECT_EQ(d.members[0].assignment.topic_partitions[0].topic_id, topic_);
  EXPECT_NE(d.authorized_operations, INT32_MIN);
}

TEST_F(ShareGroupTest, TwoMembersSplitTwoPartitionsAndThreeShareThem) {
  auto m1 = join("m1");
  auto m2 = join("m2");
  ASSERT_EQ(m2.error_code, 0);
  EXPECT_GT(m2.member_epoch, m1.member_epoch);
  ASSERT_EQ(partitions_of(m2, topic_)->size(), 1u);
  // m1 catches up on its next heartbeat: the other partition, at the new epoch.
  auto m1b = beat("m1", m1.member_epoch);
  ASSERT_EQ(m1b.error_code, 0);
  EXPECT_EQ(m1b.member_epoch, m2.member_epoch);
  ASSERT_EQ(partitions_of(m1b, topic_)->size(), 1u);
  EXPECT_NE(partitions_of(m1b, topic_), partitions_of(m2, topic_));

  auto m3 = join("m3");
  ASSERT_EQ(m3.error_code, 0);
  std::map<int32_t, int> holders;
  holders[partitions_of(m3, topic_)->at(0)]++;
  const std::vector<std::pair<std::string, int32_t>> others{{"m1", m1b.member_epoch},
                                                            {"m2", m2.member_epoch}};
  for (const auto& [member, epoch] : others) {
    auto r = beat(member, epoch);
    ASSERT_EQ(r.error_code, 0) << member;
    EXPECT_EQ(r.member_epoch, m3.member_epoch);
    ASSERT_EQ(partitions_of(r, topic_)->size(), 1u) << member;
    holders[partitions_of(r, topic_)->at(0)]++;
  }
  // Three members, two partitions: both held, one of them by two members.
  EXPECT_EQ(holders.size(), 2u);
  EXPECT_EQ(holders[0] + holders[1], 3);
}

TEST_F(ShareGroupTest, APartitionAddedToTheTopicIsAssigned) {
  auto m1 = join("m1");
  CreatePartitionsRequest req;
  req.topics.push_back({"t", 3, std::nullopt, {}});
  req.timeout_ms = 5000;
  auto cp = broker_->call<CreatePartitionsResponse>(req, 3);
  ASSERT_TRUE(cp.ok());
  ASSERT_EQ(cp->results.at(0).error_code, 0);
  auto r = beat("m1", m1.member_epoch);
  ASSERT_EQ(r.error_code, 0);
  EXPECT_GT(r.member_epoch, m1.member_epoch);
  EXPECT_EQ(partitions_of(r, topic_), (std::vector<int32_t>{0, 1, 2}));
}

TEST_F(ShareGroupTest, LeavingCallsTheHookAndEmptiesTheGroup) {
  auto m1 = join("m1");
  auto left = beat("m1", -1);
  EXPECT_EQ(left.error_code, 0);
  EXPECT_EQ(left.member_epoch, -1);
  EXPECT_EQ(gone_, (std::vector<std::string>{"sg/m1"}));
  EXPECT_EQ(describe().group_state, "Empty");
  EXPECT_EQ(beat("m1", m1.member_epoch).error_code, err(ErrorCode::UNKNOWN_MEMBER_ID));
  EXPECT_EQ(beat("m1", -1).error_code, err(ErrorCode::UNKNOWN_MEMBER_ID));
}

TEST_F(ShareGroupTest, AWrongEpochFencesTheMemberWhichRejoins) {
  auto m1 = join("m1");
  auto m2 = join("m2");
  auto fenced = beat("m1", m1.member_epoch + 7);
  EXPECT_EQ(fenced.error_code, err(ErrorCode::FENCED_MEMBER_EPOCH));
  EXPECT_EQ(gone_, (std::vector<std::string>{"sg/m1"}));
  EXPECT_EQ(beat("m1", m1.member_epoch).error_code, err(ErrorCode::UNKNOWN_MEMBER_ID));
  auto back = join("m1");
  ASSERT_EQ(back.error_code, 0);
  EXPECT_EQ(partitions_of(back, topic_)->size(), 1u);
  // m2 missed two epochs' answers: its own epoch is still accepted, it is brought forward.
  auto m2b = beat("m2", m2.member_epoch);
  EXPECT_EQ(m2b.error_code, 0);
  EXPECT_EQ(m2b.member_epoch, back.member_epoch);
}

TEST_F(ShareGroupTest, TheLostAnswerCaseAcceptsThePreviousEpoch) {
  auto m1 = join("m1");
  join("m2");
  auto moved = beat("m1", m1.member_epoch);  // m1 moves on; say this answer is lost
  ASSERT_GT(moved.member_epoch, m1.member_epoch);
  auto retry = beat("m1", m1.member_epoch);
  EXPECT_EQ(retry.error_code, 0);
  EXPECT_EQ(retry.member_epoch, moved.member_epoch);
  EXPECT_EQ(partitions_of(retry, topic_), partitions_of(moved, topic_));  // sent again
  EXPECT_TRUE(gone_.empty());
}

TEST_F(ShareGroupTest, RequestChecks) {
  EXPECT_EQ(beat("", 0, std::vector<std::string>{"t"}).error_code, err(ErrorCode::INVALID_REQUEST));
  EXPECT_EQ(join(std::string(37, 'x')).error_code, err(ErrorCode::INVALID_REQUEST));
  EXPECT_EQ(join(std::string(36, 'x')).error_code, 0);
  EXPECT_EQ(beat("m1", 0).error_code, err(ErrorCode::INVALID_REQUEST));  // join needs topics
  EXPECT_EQ(beat("m1", -2).error_code, err(ErrorCode::INVALID_REQUEST));
  EXPECT_EQ(join("m1", "").error_code, err(ErrorCode::INVALID_REQUEST));
  EXPECT_EQ(beat("m1", 3, std::nullopt, "nope").error_code, err(ErrorCode::GROUP_ID_NOT_FOUND));
  EXPECT_EQ(beat("m9", 1).error_code, err(ErrorCode::UNKNOWN_MEMBER_ID));
  EXPECT_EQ(describe("nope").error_code, err(ErrorCode::GROUP_ID_NOT_FOUND));
}

TEST_F(ShareGroupTest, SessionsExpireOnTheSweep) {
  start({"group.share.min.session.timeout.ms=100", "group.share.session.timeout.ms=300",
         "group.share.heartbeat.interval.ms=100"});
  auto m1 = join("m1");
  ASSERT_EQ(m1.error_code, 0);
  ASSERT_TRUE(broker_->run_until([&] { return !gone_.empty(); }));
  EXPECT_EQ(gone_, (std::vector<std::string>{"sg/m1"}));
  EXPECT_EQ(describe().group_state, "Empty");
  EXPECT_EQ(beat("m1", m1.member_epoch).error_code, err(ErrorCode::UNKNOWN_MEMBER_ID));
}

TEST_F(ShareGroupTest, AFullGroupRefusesNewMembers) {
  start({"group.share.max.size=1"});
  EXPECT_EQ(join("m1").error_code, 0);
  EXPECT_EQ(join("m2").error_code, err(ErrorCode::GROUP_MAX_SIZE_REACHED));
  EXPECT_EQ(join("m1").error_code, 0);  // a member already in is not refused
}

TEST_F(ShareGroupTest, ShareCallsOnAClassicGroupAreRefused) {
  make_classic_group("cg");
  auto r = join("m1", "cg");
  EXPECT_EQ(r.error_code, err(ErrorCode::GROUP_ID_NOT_FOUND));
  EXPECT_EQ(r.error_message.value_or(""), "Group cg is not a share group.");
  auto d = describe("cg");
  EXPECT_EQ(d.error_code, err(ErrorCode::GROUP_ID_NOT_FOUND));
  EXPECT_EQ(d.error_message.value_or(""), "Group cg is not a share group.");
}

TEST_F(ShareGroupTest, ClassicCallsOnAShareGroupAreRefused) {
  ASSERT_EQ(join("m1").error_code, 0);
  JoinGroupRequest jg;
  jg.group_id = "sg";
  jg.session_timeout_ms = 10000;
  jg.rebalance_timeout_ms = 10000;
  jg.protocol_type = "consumer";
  jg.protocols.push_back({"range", {}, {}});
  auto j = broker_->call<JoinGroupResponse>(jg, 9);
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(j->error_code, err(ErrorCode::INCONSISTENT_GROUP_PROTOCOL));
  EXPECT_EQ(j->member_id, "");

  HeartbeatRequest hb{"sg", 1, "m1", std::nullopt, {}};
  EXPECT_EQ(broker_->call<HeartbeatResponse>(hb, 4)->error_code, err(ErrorCode::UNKNOWN_MEMBER_ID));

  OffsetCommitRequest oc;
  oc.group_id = "sg";
  oc.generation_id_or_member_epoch = -1;
  oc.topics.push_back({"t", {{0, 1, -1, std::string(), {}}}, {}});
  EXPECT_EQ(broker_->call<OffsetCommitResponse>(oc, 8)->topics.at(0).partitions.at(0).error_code,
            err(ErrorCode::GROUP_ID_NOT_FOUND));

  OffsetFetchRequest of;
  of.groups.emplace_back().group_id = "sg";
  EXPECT_EQ(broker_->call<OffsetFetchResponse>(of, 8)->groups.at(0).error_code,
            err(ErrorCode::GROUP_ID_NOT_FOUND));

  DescribeGroupsRequest dg;
  dg.groups = {"sg"};
  auto described = broker_->call<DescribeGroupsResponse>(dg, 5);
  EXPECT_EQ(described->groups.at(0).error_code, 0);
  EXPECT_EQ(described->groups.at(0).group_state, "Dead");  // Kafka before DescribeGroups v6
  EXPECT_TRUE(describe().members.size() == 1);             // untouched
}

TEST_F(ShareGroupTest, ListGroupsFiltersByType) {
  ASSERT_EQ(join("m1").error_code, 0);
  make_classic_group("cg");
  auto share = list({"SHARE"});
  ASSERT_EQ(share.size(), 1u);
  EXPECT_EQ(share[0].group_id, "sg");
  EXPECT_EQ(share[0].group_type, "share");
  EXPECT_EQ(share[0].protocol_type, "share");
  EXPECT_EQ(share[0].group_state, "Stable");
  auto classic = list({"classic"});
  ASSERT_EQ(classic.size(), 1u);
  EXPECT_EQ(classic[0].group_id, "cg");
  EXPECT_EQ(classic[0].group_type, "classic");
  EXPECT_EQ(list({}).size(), 2u);
  EXPECT_EQ(list({}, {}, 2).size(), 2u);  // before v5 every type is listed
  EXPECT_EQ(list({"share"}, {"stable"}).size(), 1u);
  EXPECT_EQ(list({"share"}, {"Empty"}).size(), 0u);
  EXPECT_EQ(list({"consumer"}).size(), 0u);
}

TEST_F(ShareGroupTest, DeleteGroupsDeletesAnEmptyShareGroup) {
  auto m1 = join("m1");
  DeleteGroupsRequest req;
  req.groups_names = {"sg"};
  auto r = broker_->call<DeleteGroupsResponse>(req, 2);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->results.at(0).error_code, err(ErrorCode::NON_EMPTY_GROUP));
  EXPECT_TRUE(deleted_.empty());
  beat("m1", -1);
  r = broker_->call<DeleteGroupsResponse>(req, 2);
  EXPECT_EQ(r->results.at(0).error_code, 0);
  EXPECT_EQ(deleted_, (std::vector<std::string>{"sg"}));
  EXPECT_EQ(describe().error_code, err(ErrorCode::GROUP_ID_NOT_FOUND));
  EXPECT_TRUE(list({"share"}).empty());
  // The id is free again, for any type.
  make_classic_group("sg");
}

TEST_F(ShareGroupTest, FindCoordinatorAnswersShareKeys) {
  FindCoordinatorRequest req;
  req.key_type = 2;
  req.coordinator_keys = {"sg:" + topic_.to_string() + ":1", "sg:not-an-id:1", "sg:1"};
  auto r = broker_->call<FindCoordinatorResponse>(req, 6);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->coordinators.size(), 3u);
  EXPECT_EQ(r->coordinators[0].error_code, 0);
  EXPECT_EQ(r->coordinators[0].node_id, 1);
  EXPECT_EQ(r->coordinators[1].error_code, err(ErrorCode::INVALID_REQUEST));
  EXPECT_EQ(r->coordinators[2].error_code, err(ErrorCode::INVALID_REQUEST));
}

TEST_F(ShareGroupTest, ApiVersionsAdvertisesTheShareGroupApis) {
  auto r = broker_->call<ApiVersionsResponse>(ApiVersionsRequest{}, 3);
  ASSERT_TRUE(r.ok());
  int found = 0;
  for (const auto& a : r->api_keys) {
    if (a.api_key == 76 || a.api_key == 77) {
      EXPECT_EQ(a.min_version, 1);
      EXPECT_EQ(a.max_version, 1);
      ++found;
    }
  }
  EXPECT_EQ(found, 2);
}

}  // namespace
}  // namespace mirra::server
