// The pure parts of `mirra groups`: option checks, Kafka's value formats, the reset plan, lag,
// the describe rows and tables.
#include <gtest/gtest.h>

#include "cli/groups_logic.h"

namespace mirra::cli {
namespace {

using client::TopicPartition;

GroupsArgs describe_args() {
  GroupsArgs a;
  a.describe = true;
  a.groups = {"g"};
  return a;
}

GroupsArgs reset_args() {
  GroupsArgs a;
  a.reset = true;
  a.groups = {"g"};
  a.topics = {"t"};
  a.to_earliest = true;
  return a;
}

void expect_refused(const GroupsArgs& a, const std::string& fragment) {
  auto c = check_args(a);
  ASSERT_FALSE(c.ok()) << "accepted; expected: " << fragment;
  EXPECT_NE(c.status().message().find(fragment), std::string::npos) << c.status().message();
}

TEST(GroupsArgs, ExactlyOneAction) {
  expect_refused(GroupsArgs{}, "exactly one action");
  GroupsArgs both = describe_args();
  both.list = true;
  expect_refused(both, "exactly one action");
}

TEST(GroupsArgs, DescribeViews) {
  auto c = check_args(describe_args());
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->action, GroupsAction::describe);
  EXPECT_EQ(c->view, DescribeView::offsets);
  GroupsArgs a = describe_args();
  a.members = true;
  a.verbose = true;
  c = check_args(a);
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->view, DescribeView::members);
  EXPECT_TRUE(c->verbose);
  a = describe_args();
  a.state_given = true;
  a.state = {""};
  c = check_args(a);
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->view, DescribeView::state);
  a.members = true;
  expect_refused(a, "at most one of these options");
  a = describe_args();
  a.verbose = true;
  expect_refused(a, "--verbose can only be used with --members");
  a = describe_args();
  a.groups.clear();
  expect_refused(a, "--describe takes one of these options: --all-groups, --group");
  a.all_groups = true;
  EXPECT_TRUE(check_args(a).ok());
  a.groups = {"g"};
  expect_refused(a, "cannot be used together");
}

TEST(GroupsArgs, ListWithStates) {
  GroupsArgs a;
  a.list = true;
  auto c = check_args(a);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->with_state);
  a.state_given = true;
  for (auto bare : {std::vector<std::string>{}, std::vector<std::string>{""}}) {
    a.state = bare;  // CLI11 stores "" for a bare --state
    c = check_args(a);
    ASSERT_TRUE(c.ok()) << c.status().to_string();
    EXPECT_TRUE(c->with_state);
    EXPECT_TRUE(c->states.empty());
  }
  a.state = {"stable, EMPTY"};
  c = check_args(a);
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->states, (std::vector<std::string>{"Stable", "Empty"}));
  a.state = {"Stable,Sleepy"};
  expect_refused(a, "Invalid state list 'Stable,Sleepy'. Valid states are: PreparingRebalance");
  a.state.clear();
  a.groups = {"g"};
  expect_refused(a, "--group/--all-groups can only be used with");
}

TEST(GroupsArgs, ResetNeedsOneScenarioAndOneScope) {
  auto c = check_args(reset_args());
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->reset.kind, ResetKind::earliest);
  EXPECT_FALSE(c->execute);
  EXPECT_EQ(c->topics, (std::vector<TopicSpec>{{"t", {}}}));
  GroupsArgs a = reset_args();
  a.to_offset = 5;
  expect_refused(a, "exactly one of --to-earliest");
  a = reset_args();
  a.to_earliest = false;
  expect_refused(a, "exactly one of --to-earliest");
  a = reset_args();
  a.all_topics = true;
  expect_refused(a, "exactly one of these scopes");
  a.topics.clear();
  EXPECT_TRUE(check_args(a).ok());
  a.all_topics = false;
  expect_refused(a, "exactly one of these scopes");
  a = reset_args();
  a.execute = a.dry_run = true;
  expect_refused(a, "only accepts one of --execute and --dry-run");
  a = reset_args();
  a.to_earliest = false;
  a.to_datetime = "yesterday";
  expect_refused(a, "--to-datetime 'yesterday' is not of the form");
  a = reset_args();
  a.to_earliest = false;
  a.shift_by = -2;
  c = check_args(a);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->reset.kind, ResetKind::shift_by);
  EXPECT_EQ(c->reset.value, -2);
}

TEST(GroupsArgs, OptionsOfOtherActionsAreRefused) {
  GroupsArgs a = describe_args();
  a.execute = true;
  expect_refused(a, "--execute can only be used with --reset-offsets");
  a = describe_args();
  a.to_latest = true;
  expect_refused(a, "can only be used with --reset-offsets");
  a = describe_args();
  a.topics = {"t"};
  expect_refused(a, "--topic can only be used with");
  a = reset_args();
  a.members = true;
  expect_refused(a, "--members can only be used with --describe");
  a = GroupsArgs{};
  a.remove = true;
  a.groups = {"g"};
  a.topics = {"t"};
  expect_refused(a, "use --delete-offsets");
  a = GroupsArgs{};
  a.delete_offsets = true;
  a.groups = {"g"};
  expect_refused(a, "one --group and at least one --topic");
  a.topics = {"t:1"};
  auto c = check_args(a);
  ASSERT_TRUE(c.ok()) << c.status().to_string();
  EXPECT_EQ(c->topics, (std::vector<TopicSpec>{{"t", {1}}}));
}

TEST(GroupsValues, TopicSpecs) {
  auto s = parse_topic_spec("orders:0,2,5");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.value(), (TopicSpec{"orders", {0, 2, 5}}));
  EXPECT_EQ(parse_topic_spec("orders").value(), (TopicSpec{"orders", {}}));
  for (const char* bad : {"orders:", "orders:x", "orders:1,,2", ":1", "a:1:2", "orders:-1", ""}) {
    EXPECT_FALSE(parse_topic_spec(bad).ok()) << bad;
  }
  EXPECT_NE(parse_topic_spec("orders:1,x")
                .status()
                .message()
                .find("Invalid partition 'x' specified in topic arg 'orders:1,x'"),
            std::string::npos);
}

TEST(GroupsValues, Datetimes) {
  EXPECT_EQ(parse_datetime("1970-01-01T00:00:00.000").value(), 0);
  EXPECT_EQ(parse_datetime("2021-04-20T15:00:00.123").value(), 1618930800123);
  EXPECT_EQ(parse_datetime("2021-04-20T15:00:00.123Z").value(), 1618930800123);
  EXPECT_EQ(parse_datetime("2021-04-20T17:00:00.123+02:00").value(), 1618930800123);
  EXPECT_EQ(parse_datetime("2021-04-20T17:00:00.123+0200").value(), 1618930800123);
  EXPECT_EQ(parse_datetime("2021-04-20T12:30:00.123-02:30").value(), 1618930800123);
  EXPECT_EQ(parse_datetime("2024-02-29T00:00:00.000").value(), 1709164800000);
  for (const char* bad :
       {"2021-04-20", "2021-04-20T15:00:00", "2021-13-01T00:00:00.000", "2023-02-29T00:00:00.000",
        "2021-04-20T24:00:00.000", "2021-04-20T15:00:00.000+", "2021-04-20 15:00:00.000", "now"}) {
    EXPECT_FALSE(parse_datetime(bad).ok()) << bad;
  }
}

TEST(GroupsValues, Durations) {
  EXPECT_EQ(parse_duration("PT1H").value(), 3600000);
  EXPECT_EQ(parse_duration("P1DT2H3M4.5S").value(), 86400000 + 7200000 + 180000 + 4500);
  EXPECT_EQ(parse_duration("pt10m").value(), 600000);
  EXPECT_EQ(parse_duration("P2D").value(), 2 * 86400000);
  EXPECT_EQ(parse_duration("-PT1S").value(), -1000);
  EXPECT_EQ(parse_duration("PT0.001S").value(), 1);
  for (const char* bad :
       {"P", "PT", "1H", "P1H", "PT1D", "PT1.S1", "P1DT", "", "PT99999999999999999999S"}) {
    EXPECT_FALSE(parse_duration(bad).ok()) << bad;
  }
}

TEST(GroupsReset, PlanFollowsKafka) {
  const TopicPartition tp{"t", 0};
  PartitionFacts f;
  f.log_start = 10;
  f.log_end = 50;
  f.committed = 30;
  EXPECT_EQ(plan_offset({ResetKind::earliest, 0}, tp, f).value(), 10);
  EXPECT_EQ(plan_offset({ResetKind::latest, 0}, tp, f).value(), 50);
  EXPECT_EQ(plan_offset({ResetKind::current, 0}, tp, f).value(), 30);
  EXPECT_EQ(plan_offset({ResetKind::offset, 20}, tp, f).value(), 20);
  EXPECT_EQ(plan_offset({ResetKind::offset, 5}, tp, f).value(), 10) << "clamped to log start";
  EXPECT_EQ(plan_offset({ResetKind::offset, 99}, tp, f).value(), 50) << "clamped to log end";
  EXPECT_EQ(plan_offset({ResetKind::shift_by, -5}, tp, f).value(), 25);
  EXPECT_EQ(plan_offset({ResetKind::shift_by, -25}, tp, f).value(), 10);
  EXPECT_EQ(plan_offset({ResetKind::shift_by, 25}, tp, f).value(), 50);
  EXPECT_EQ(plan_offset({ResetKind::datetime, 123}, tp, f).value(), 50) << "no record after";
  f.at_time = 42;
  EXPECT_EQ(plan_offset({ResetKind::datetime, 123}, tp, f).value(), 42);
  EXPECT_EQ(plan_offset({ResetKind::duration, 1000}, tp, f).value(), 42);
  f.committed.reset();
  EXPECT_EQ(plan_offset({ResetKind::current, 0}, tp, f).value(), 50) << "none committed: end";
  auto shift = plan_offset({ResetKind::shift_by, 1}, tp, f);
  ASSERT_FALSE(shift.ok());
  EXPECT_NE(shift.status().message().find("Cannot shift offset for partition t-0"),
            std::string::npos);
}

TEST(GroupsDescribe, Lag) {
  EXPECT_EQ(lag_of(5, 12), 7);
  EXPECT_EQ(lag_of(12, 12), 0);
  EXPECT_EQ(lag_of(std::nullopt, 12), std::nullopt);
  EXPECT_EQ(lag_of(-1, 12), std::nullopt);
  EXPECT_EQ(lag_of(5, std::nullopt), std::nullopt);
  EXPECT_EQ(or_dash(std::nullopt), "-");
  EXPECT_EQ(or_dash(0), "0");
}

TEST(GroupsDescribe, OffsetRowsListMembersThenUnassignedCommits) {
  const std::vector<MemberView> members = {
      {"m-small", "", "/10.0.0.1", "c1", {{"t", 2}}},
      {"m-idle", "", "/10.0.0.3", "c3", {}},
      {"m-big", "", "/10.0.0.2", "c2", {{"t", 1}, {"t", 0}}},
  };
  const std::map<TopicPartition, int64_t> committed = {
      {{"t", 0}, 4}, {{"t", 2}, 9}, {{"old", 0}, 3}};
  const std::map<TopicPartition, int64_t> log_end = {{{"t", 0}, 10}, {{"t", 1}, 8}, {{"t", 2}, 9}};
  auto rows = offset_rows(members, committed, log_end);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].tp, (TopicPartition{"t", 0}));
  EXPECT_EQ(rows[0].consumer_id, "m-big");
  EXPECT_EQ(rows[0].lag, 6);
  EXPECT_EQ(rows[1].tp, (TopicPartition{"t", 1}));
  EXPECT_EQ(rows[1].current, std::nullopt);
  EXPECT_EQ(rows[1].lag, std::nullopt);
  EXPECT_EQ(rows[1].log_end, 8);
  EXPECT_EQ(rows[2].consumer_id, "m-small");
  EXPECT_EQ(rows[2].host, "/10.0.0.1");
  EXPECT_EQ(rows[2].lag, 0);
  EXPECT_EQ(rows[3].tp, (TopicPartition{"old", 0}));
  EXPECT_EQ(rows[3].consumer_id, "-");
  EXPECT_EQ(rows[3].log_end, std::nullopt) << "a partition whose end is unknown";
  EXPECT_EQ(rows[3].lag, std::nullopt);
}

TEST(GroupsDescribe, AssignmentAndTable) {
  EXPECT_EQ(format_assignment({}), "-");
  EXPECT_EQ(format_assignment({{"b", 3}, {"a", 10}, {"a", 2}}), "a(2,10), b(3)");
  Table t({"GROUP", "TOPIC", "LAG"}, {6});
  t.add({"g", "a-long-topic", "7"});
  EXPECT_EQ(t.render(),
            "GROUP  TOPIC        LAG\n"
            "g      a-long-topic 7\n");
}

}  // namespace
}  // namespace mirra::cli
