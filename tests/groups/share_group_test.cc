// The pure rules of share groups (groups/share_group.h): Kafka's `simple` assignor (spread,
// shared when members outnumber partitions, only subscribed members, deterministic) and the
// epoch transitions of ShareGroup (bump, reconcile, the current-or-previous epoch rule).
#include "groups/share_group.h"

#include <gtest/gtest.h>

namespace mirra::groups {
namespace {

const Uuid kA = Uuid::from_bits(1, 1);
const Uuid kB = Uuid::from_bits(2, 2);

std::map<std::string, std::set<std::string>> subs(
    std::initializer_list<std::pair<std::string, std::set<std::string>>> l) {
  return {l.begin(), l.end()};
}

// How many members hold each partition of topic `id`.
std::map<int32_t, int> holders(const std::map<std::string, ShareAssignment>& a, const Uuid& id) {
  std::map<int32_t, int> out;
  for (const auto& [m, assignment] : a) {
    auto it = assignment.find(id);
    if (it == assignment.end()) continue;
    for (int32_t p : it->second) ++out[p];
  }
  return out;
}

TEST(SimpleAssignor, OneMemberGetsEveryPartition) {
  auto a = simple_assign(subs({{"m1", {"a"}}}), {{"a", {kA, 3}}});
  EXPECT_EQ(a.at("m1").at(kA), (std::vector<int32_t>{0, 1, 2}));
}

TEST(SimpleAssignor, PartitionsAreSpreadWhenTheyOutnumberMembers) {
  auto a = simple_assign(subs({{"m1", {"a"}}, {"m2", {"a"}}}), {{"a", {kA, 2}}});
  EXPECT_EQ(a.at("m1").at(kA).size(), 1u);
  EXPECT_EQ(a.at("m2").at(kA).size(), 1u);
  EXPECT_EQ(holders(a, kA), (std::map<int32_t, int>{{0, 1}, {1, 1}}));

  auto five = simple_assign(subs({{"m1", {"a"}}, {"m2", {"a"}}}), {{"a", {kA, 5}}});
  EXPECT_EQ(five.at("m1").at(kA).size() + five.at("m2").at(kA).size(), 5u);
  EXPECT_LE(std::max(five.at("m1").at(kA).size(), five.at("m2").at(kA).size()), 3u);
  EXPECT_EQ(holders(five, kA).size(), 5u);
}

TEST(SimpleAssignor, PartitionsAreSharedWhenMembersOutnumberThem) {
  auto a = simple_assign(subs({{"m1", {"a"}}, {"m2", {"a"}}, {"m3", {"a"}}}), {{"a", {kA, 2}}});
  for (const char* m : {"m1", "m2", "m3"}) EXPECT_EQ(a.at(m).at(kA).size(), 1u) << m;
  // Every partition is held, one of them by two members.
  const auto h = holders(a, kA);
  ASSERT_EQ(h.size(), 2u);
  EXPECT_EQ(h.at(0) + h.at(1), 3);
  EXPECT_GE(std::min(h.at(0), h.at(1)), 1);
}

TEST(SimpleAssignor, OnlySubscribedMembersGetATopic) {
  auto a = simple_assign(subs({{"m1", {"a"}}, {"m2", {"a", "b"}}, {"m3", {}}}),
                         {{"a", {kA, 2}}, {"b", {kB, 3}}});
  EXPECT_EQ(a.at("m1").count(kB), 0u);
  EXPECT_EQ(a.at("m2").at(kB), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_TRUE(a.at("m3").empty());  // listed, with nothing
  EXPECT_EQ(holders(a, kA).size(), 2u);
}

TEST(SimpleAssignor, TopicsThatDoNotExistAreSkipped) {
  auto a = simple_assign(subs({{"m1", {"a", "gone"}}}), {{"a", {kA, 1}}});
  EXPECT_EQ(a.at("m1").size(), 1u);
}

TEST(SimpleAssignor, IsDeterministicAndBalancedAcrossTopics) {
  const ShareTopics topics{{"a", {kA, 3}}, {"b", {kB, 3}}};
  const auto s = subs({{"m1", {"a", "b"}}, {"m2", {"a", "b"}}});
  EXPECT_EQ(simple_assign(s, topics), simple_assign(s, topics));
  // Each topic leaves one member with an extra partition; the next topic starts at the other.
  const auto a = simple_assign(s, topics);
  EXPECT_EQ(a.at("m1").at(kA).size() + a.at("m1").at(kB).size(), 3u);
  EXPECT_EQ(a.at("m2").at(kA).size() + a.at("m2").at(kB).size(), 3u);
}

ShareGroup group_with(std::initializer_list<std::string> members) {
  ShareGroup g;
  g.id = "g";
  for (const std::string& id : members) {
    ShareMember& m = g.members[id];
    m.id = id;
    m.subscriptions = {"a"};
  }
  return g;
}

TEST(ShareGroup, StatesFollowMembership) {
  ShareGroup g = group_with({});
  EXPECT_EQ(share_state_name(g.state()), "Empty");
  g = group_with({"m1"});
  EXPECT_EQ(share_state_name(g.state()), "Stable");
  EXPECT_EQ(share_state_name(ShareGroupState::dead), "Dead");
}

TEST(ShareGroup, BumpRecomputesTheTargetAtTheNewEpoch) {
  ShareGroup g = group_with({"m1", "m2"});
  g.bump({{"a", {kA, 2}}});
  EXPECT_EQ(g.group_epoch, 1);
  EXPECT_EQ(g.assignment_epoch, 1);
  EXPECT_EQ(g.target.size(), 2u);
  EXPECT_EQ(g.subscribed_topics(), (std::set<std::string>{"a"}));
  g.members.erase("m2");
  g.bump({{"a", {kA, 2}}});
  EXPECT_EQ(g.group_epoch, 2);
  EXPECT_EQ(g.target.at("m1").at(kA), (std::vector<int32_t>{0, 1}));
}

TEST(ShareGroup, ReconcileMovesTheMemberToTheTarget) {
  ShareGroup g = group_with({"m1"});
  g.bump({{"a", {kA, 2}}});
  ShareMember& m = g.members.at("m1");
  EXPECT_TRUE(g.reconcile(m));
  EXPECT_EQ(m.epoch, 1);
  EXPECT_EQ(m.previous_epoch, 0);
  EXPECT_EQ(m.assignment.at(kA), (std::vector<int32_t>{0, 1}));
  EXPECT_FALSE(g.reconcile(m));  // already there
  // A new epoch with the same assignment: the epoch moves, nothing to hand out.
  g.bump({{"a", {kA, 2}}});
  EXPECT_FALSE(g.reconcile(m));
  EXPECT_EQ(m.epoch, 2);
  EXPECT_EQ(m.previous_epoch, 1);
}

TEST(ShareGroup, HeartbeatsMayNameTheCurrentOrPreviousEpoch) {
  ShareMember m;
  m.epoch = 5;
  m.previous_epoch = 3;
  EXPECT_EQ(ShareGroup::check_epoch(m, 5), ErrorCode::NONE);
  EXPECT_EQ(ShareGroup::check_epoch(m, 3), ErrorCode::NONE);
  EXPECT_EQ(ShareGroup::check_epoch(m, 4), ErrorCode::FENCED_MEMBER_EPOCH);
  EXPECT_EQ(ShareGroup::check_epoch(m, 6), ErrorCode::FENCED_MEMBER_EPOCH);
  EXPECT_EQ(ShareGroup::check_epoch(m, 0), ErrorCode::FENCED_MEMBER_EPOCH);
}

}  // namespace
}  // namespace mirra::groups
