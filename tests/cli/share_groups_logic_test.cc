// The pure parts of `mirra share-groups`: its option rules over those of `mirra groups`, and
// the rows of its describe views; with the pieces it shares with `mirra groups` (the --list
// output, the members table).
#include <gtest/gtest.h>

#include "cli/share_groups_logic.h"

namespace mirra::cli {
namespace {

using client::ShareGroupOffset;
using client::TopicPartition;

GroupsArgs reset_args() {
  GroupsArgs a;
  a.reset = true;
  a.groups = {"g"};
  a.topics = {"t:0,2"};
  a.to_earliest = true;
  return a;
}

void expect_refused(const GroupsArgs& a, const std::string& fragment) {
  auto c = check_share_args(a);
  ASSERT_FALSE(c.ok()) << "accepted; expected: " << fragment;
  EXPECT_NE(c.status().message().find(fragment), std::string::npos) << c.status().message();
}

TEST(ShareGroupsArgs, ResetScenarios) {
  auto c = check_share_args(reset_args());
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->action, GroupsAction::reset);
  EXPECT_EQ(c->reset.kind, ResetKind::earliest);
  EXPECT_FALSE(c->execute) << "a dry run unless --execute";
  ASSERT_EQ(c->topics.size(), 1u);
  EXPECT_EQ(c->topics[0].partitions, (std::vector<int32_t>{0, 2}));

  GroupsArgs a = reset_args();
  a.to_earliest = false;
  a.to_offset = 42;
  a.execute = true;
  c = check_share_args(a);
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->reset.kind, ResetKind::offset);
  EXPECT_EQ(c->reset.value, 42);
  EXPECT_TRUE(c->execute);

  a = reset_args();
  a.to_earliest = false;
  a.to_datetime = "2026-12-06T01:00:00.000";
  c = check_share_args(a);
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->reset.kind, ResetKind::datetime);

  // The message names the share-group scenarios only.
  a = reset_args();
  a.to_latest = true;
  expect_refused(a, "exactly one of --to-earliest, --to-latest, --to-offset, --to-datetime");
  a = reset_args();
  a.to_earliest = false;
  expect_refused(a, "exactly one of --to-earliest, --to-latest, --to-offset, --to-datetime");
  // The groups rules still hold.
  a = reset_args();
  a.dry_run = a.execute = true;
  expect_refused(a, "only accepts one of --execute and --dry-run");
  a = reset_args();
  a.all_topics = true;
  expect_refused(a, "exactly one of these scopes");
  a = reset_args();
  a.groups.clear();
  expect_refused(a, "--reset-offsets takes one of these options: --all-groups, --group");
  a = reset_args();
  a.to_earliest = false;
  a.to_datetime = "yesterday";
  expect_refused(a, "is not of the form");
}

TEST(ShareGroupsArgs, DeleteOffsetsTakesWholeTopics) {
  GroupsArgs a;
  a.delete_offsets = true;
  a.groups = {"g"};
  a.topics = {"t", "u"};
  auto c = check_share_args(a);
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->action, GroupsAction::delete_offsets);
  a.topics = {"t:1"};
  expect_refused(a, "takes whole topics: --topic t");
  a.topics.clear();
  expect_refused(a, "one --group and at least one --topic");
}

TEST(ShareGroupsArgs, ListStatesAreShareGroupStates) {
  GroupsArgs a;
  a.list = true;
  a.state_given = true;
  a.state = {"stable,EMPTY"};
  auto c = check_share_args(a);
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_TRUE(c->with_state);
  EXPECT_EQ(c->states, (std::vector<std::string>{"Stable", "Empty"}));
  a.state = {"PreparingRebalance"};
  expect_refused(a, "Valid states are: Stable, Empty, Dead");
}

TEST(ShareGroupsArgs, DescribeAndDelete) {
  GroupsArgs a;
  a.describe = true;
  a.all_groups = true;
  a.members = true;
  auto c = check_share_args(a);
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->view, DescribeView::members);
  a.offsets = true;
  expect_refused(a, "at most one of these options");
  GroupsArgs d;
  d.remove = true;
  d.groups = {"g1", "g2"};
  c = check_share_args(d);
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->groups, (std::vector<std::string>{"g1", "g2"}));
  d.topics = {"t"};
  expect_refused(d, "use --delete-offsets");
  expect_refused(GroupsArgs{}, "exactly one action");
}

ShareGroupOffset offset(TopicPartition tp, int64_t start, int64_t lag) {
  ShareGroupOffset o;
  o.tp = std::move(tp);
  o.start_offset = start;
  o.lag = lag;
  return o;
}

TEST(ShareGroupsDescribe, OffsetsTableTakesTheBrokersLagElseComputesIt) {
  std::vector<ShareGroupOffset> offsets = {
      offset({"t", 0}, 10, 3),   // v1: the broker's lag
      offset({"t", 1}, 4, -1),   // v0: log end - start
      offset({"t", 2}, -1, -1),  // no state
      offset({"u", 0}, 7, -1),   // v0, log end unknown
  };
  offsets.push_back(offset({"v", 0}, 5, 1));
  offsets.back().status = Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "gone");
  EXPECT_EQ(lag_unknown(offsets), (std::vector<TopicPartition>{{"t", 1}, {"u", 0}}));
  const std::map<TopicPartition, int64_t> log_end = {{{"t", 1}, 9}, {{"t", 2}, 9}};
  EXPECT_EQ(share_offsets_table("sg", offsets, log_end),
            "GROUP           TOPIC           PARTITION  START-OFFSET    LAG\n"
            "sg              t               0          10              3\n"
            "sg              t               1          4               5\n"
            "sg              t               2          -               -\n"
            "sg              u               0          7               -\n"
            "sg              v               0          -               -\n");
  EXPECT_EQ(share_offsets_table("sg", {}, log_end), "");
}

client::ShareGroupDescription described() {
  client::ShareGroupDescription d;
  d.group_id = "sg";
  d.state = "Stable";
  d.group_epoch = 5;
  d.assignment_epoch = 5;
  d.coordinator = {"sg", Status::OK(), 1, "127.0.0.1", 9092};
  client::ShareGroupMember m;
  m.member_id = "m-1";
  m.client_id = "c1";
  m.client_host = "/127.0.0.1";
  m.assignment = {{"t", 0}, {"t", 1}, {"u", 0}};
  d.members.push_back(m);
  m.member_id = "m-2";
  m.client_id = "c2";
  m.assignment = {};
  d.members.push_back(m);
  return d;
}

TEST(ShareGroupsDescribe, MembersWithTheirAssignments) {
  EXPECT_EQ(members_table("sg", share_member_views(described()), true),
            "GROUP           CONSUMER-ID     HOST            CLIENT-ID       #PARTITIONS     "
            "ASSIGNMENT\n"
            "sg              m-1             /127.0.0.1      c1              3               "
            "t(0,1), u(0)\n"
            "sg              m-2             /127.0.0.1      c2              0               -\n");
}

TEST(ShareGroupsDescribe, State) {
  EXPECT_EQ(share_state_table(described()),
            "GROUP           COORDINATOR (ID)          STATE      GROUP-EPOCH  ASSIGNMENT-EPOCH  "
            "#MEMBERS\n"
            "sg              127.0.0.1:9092  (1)       Stable     5            5                 "
            "2\n");
}

TEST(ShareGroupsList, IdsOrATableWithStates) {
  const std::vector<client::GroupListing> groups = {{"a", "share", "Stable", "share"},
                                                    {"b", "share", "", ""}};
  EXPECT_EQ(group_listing(groups, false), "a\nb\n");
  EXPECT_EQ(group_listing(groups, true),
            "GROUP           STATE\n"
            "a               Stable\n"
            "b               Unknown\n");
}

}  // namespace
}  // namespace mirra::cli
