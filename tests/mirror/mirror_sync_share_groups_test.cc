// The share-groups sync (mirror_sync_share_groups.cc) against fakes of the source and the
// destination: start offsets written (the share group created), clamped to what the destination
// holds, written once, the group filters, groups with members on the destination left alone,
// a group id of the other type on either side refused for that group alone, one group's source
// error isolated, nothing once failed over, and the round's listing shared with the groups sync.
#include <gtest/gtest.h>

#include "mirror/mirror_describe.h"
#include "sync_fixture.h"

namespace mirra::mirror {
namespace {

using client::ShareGroupOffset;
using client::TopicPartition;

const TopicPartition kT0{"t", 0};
const TopicPartition kT1{"t", 1};

class MirrorSyncShareGroupsTest : public test::SyncFixture {
 protected:
  void SetUp() override {
    sink_.add_topic("m", "t", Uuid::random(), 2);
    destination_.partition_bounds[kT0] = {0, 100};
    destination_.partition_bounds[kT1] = {0, 100};
  }

  // A share group on the source with its start offsets.
  void share_group(const std::string& id, std::vector<ShareGroupOffset> offsets) {
    source_->groups.groups.push_back({id, "share", "Empty", "share"});
    for (ShareGroupOffset& o : offsets) source_->share_offsets[id][o.tp] = o;
  }
  static ShareGroupOffset at(TopicPartition tp, int64_t start) {
    ShareGroupOffset o;
    o.tp = std::move(tp);
    o.start_offset = start;
    return o;
  }
  // The start offset written on the destination (-1: none).
  int64_t start(const std::string& group, const TopicPartition& tp) const {
    auto g = destination_.share_starts.find(group);
    if (g == destination_.share_starts.end()) return -1;
    auto o = g->second.find(tp);
    return o == g->second.end() ? -1 : o->second;
  }
  const SyncKindStatus& kind_status(const MirrorSync& s) const {
    return s.status().of(SyncKind::kShareGroups);
  }
  const GroupSyncStatus& group_status(const MirrorSync& s, const std::string& g) const {
    return s.status().groups.at(g);
  }
};

TEST_F(MirrorSyncShareGroupsTest, StartOffsetsAreWrittenAndTheShareGroupCreated) {
  auto sync = make_sync();
  share_group("sg", {at(kT0, 5), at(kT1, 7)});
  round(*sync);
  EXPECT_EQ(start("sg", kT0), 5);
  EXPECT_EQ(start("sg", kT1), 7);
  EXPECT_EQ(destination_.groups.at("sg").protocol_type, "share");
  EXPECT_EQ(source_->share_offsets_calls, 1);
  const GroupSyncStatus& g = group_status(*sync, "sg");
  EXPECT_EQ(g.kind, SyncKind::kShareGroups);
  EXPECT_TRUE(g.error.ok());
  EXPECT_EQ(g.last_synced_ms, 1000);
  EXPECT_EQ(g.offsets_committed, 2);
  EXPECT_TRUE(kind_status(*sync).last_error.ok());
  EXPECT_EQ(kind_status(*sync).looked_at, 1);
  EXPECT_EQ(kind_status(*sync).changed, 2);
  // Share groups are not the groups sync's: it committed nothing and looked at none.
  EXPECT_TRUE(destination_.committed.empty());
  EXPECT_EQ(sync->status().of(SyncKind::kGroups).looked_at, 0);
}

TEST_F(MirrorSyncShareGroupsTest, OneListingPerRoundServesBothGroupKinds) {
  auto sync = make_sync();
  share_group("sg", {at(kT0, 5)});
  source_->groups.groups.push_back({"cg", "consumer", "Empty", "classic"});
  source_->offsets["cg"][kT0] = {kT0, Status::OK(), 3, -1, std::nullopt};
  round(*sync);
  EXPECT_EQ(source_->list_groups_calls, 1);
  EXPECT_EQ(start("sg", kT0), 5);
  EXPECT_EQ(destination_.committed.at("cg").at(kT0).offset, 3);
  round(*sync);
  EXPECT_EQ(source_->list_groups_calls, 2);
}

TEST_F(MirrorSyncShareGroupsTest, StartOffsetsAreClampedToTheLsoAndTheLogStart) {
  destination_.partition_bounds[kT0] = {0, 20};   // the destination is behind
  destination_.partition_bounds[kT1] = {10, 30};  // retention removed the start here
  auto sync = make_sync();
  share_group("sg", {at(kT0, 50), at(kT1, 4)});
  round(*sync);
  EXPECT_EQ(start("sg", kT0), 20);
  EXPECT_EQ(start("sg", kT1), 10);
  // Caught up: the source's own start offset.
  destination_.partition_bounds[kT0] = {0, 60};
  round(*sync);
  EXPECT_EQ(start("sg", kT0), 50);
  EXPECT_EQ(group_status(*sync, "sg").offsets_committed, 1);
}

TEST_F(MirrorSyncShareGroupsTest, UnchangedStartOffsetsAreNotWrittenAgainAndMovesAreFollowed) {
  auto sync = make_sync();
  share_group("sg", {at(kT0, 5), at(kT1, 6)});
  round(*sync);
  round(*sync);
  EXPECT_EQ(destination_.share_writes, 1);
  EXPECT_EQ(kind_status(*sync).changed, 0);
  source_->share_offsets["sg"][kT1] = at(kT1, 9);
  destination_.share_starts.clear();
  round(*sync);
  EXPECT_EQ(destination_.share_writes, 2);
  EXPECT_EQ(start("sg", kT0), -1);  // not sent again
  EXPECT_EQ(start("sg", kT1), 9);
  // A reset on the source (backwards) is followed too.
  source_->share_offsets["sg"][kT1] = at(kT1, 2);
  round(*sync);
  EXPECT_EQ(start("sg", kT1), 2);
}

TEST_F(MirrorSyncShareGroupsTest, PartitionsWithoutStateOnTheSourceAreSkipped) {
  auto sync = make_sync();
  share_group("sg", {at(kT1, 4)});  // -1 for t-0: the group never read it
  round(*sync);
  EXPECT_EQ(start("sg", kT0), -1);
  EXPECT_EQ(start("sg", kT1), 4);
  EXPECT_EQ(group_status(*sync, "sg").offsets_committed, 1);
}

TEST_F(MirrorSyncShareGroupsTest, OnlyShareGroupsTheFiltersTakeAreSynced) {
  auto sync = make_sync(
      {{"mirror.groups.include", "queue-.*,jobs"}, {"mirror.groups.exclude", "queue-test"}});
  share_group("queue-1", {at(kT0, 1)});
  share_group("queue-test", {at(kT0, 2)});
  share_group("jobs", {at(kT0, 3)});
  share_group("other", {at(kT0, 4)});
  round(*sync);
  EXPECT_EQ(start("queue-1", kT0), 1);
  EXPECT_EQ(start("jobs", kT0), 3);
  EXPECT_EQ(start("queue-test", kT0), -1);
  EXPECT_EQ(start("other", kT0), -1);
  EXPECT_EQ(sync->status().groups.size(), 2u);
  EXPECT_EQ(kind_status(*sync).looked_at, 2);
}

TEST_F(MirrorSyncShareGroupsTest, AGroupWithMembersOnTheDestinationIsLeftAloneAndShown) {
  auto sync = make_sync();
  share_group("sg", {at(kT0, 5)});
  share_group("idle", {at(kT0, 6)});
  destination_.groups["sg"] = {true, "share", 2};
  round(*sync);
  EXPECT_EQ(start("sg", kT0), -1);
  EXPECT_EQ(start("idle", kT0), 6);
  EXPECT_TRUE(group_status(*sync, "sg").active_on_destination);
  EXPECT_TRUE(group_status(*sync, "sg").error.ok());
  EXPECT_TRUE(kind_status(*sync).last_error.ok());
  const SyncDescription d = describe_sync(sync->status());
  ASSERT_EQ(d.groups.size(), 1u);
  EXPECT_EQ(d.groups[0].first, "sg");
  EXPECT_EQ(d.groups[0].second.kind, SyncKind::kShareGroups);
  // Its members left: synced from then on.
  destination_.groups["sg"] = {true, "share", 0};
  round(*sync);
  EXPECT_EQ(start("sg", kT0), 5);
  EXPECT_FALSE(group_status(*sync, "sg").active_on_destination);
}

// Issue 20: a group id that is a share group on one side and a consumer group on the other
// fails with GROUP_ID_NOT_FOUND for that group alone; the other groups go on.
TEST_F(MirrorSyncShareGroupsTest, AGroupOfTheOtherTypeOnEitherSideFailsAlone) {
  auto sync = make_sync();
  share_group("x", {at(kT0, 5)});  // a consumer group with members on the destination
  destination_.groups["x"] = {true, "consumer", 2};
  share_group("offsets-only", {at(kT0, 8)});  // committed offsets only on the destination
  destination_.groups["offsets-only"] = {true, "", 0};
  source_->groups.groups.push_back(
      {"y", "consumer", "Empty", "classic"});  // a share group on the dest
  source_->offsets["y"][kT0] = {kT0, Status::OK(), 4, -1, std::nullopt};
  destination_.groups["y"] = {true, "share", 0};
  share_group("fine", {at(kT0, 6)});
  source_->groups.groups.push_back({"cg", "consumer", "Empty", "classic"});
  source_->offsets["cg"][kT0] = {kT0, Status::OK(), 3, -1, std::nullopt};
  round(*sync);

  const auto& groups = sync->status().groups;
  EXPECT_EQ(groups.at("x").error.code(), ErrorCode::GROUP_ID_NOT_FOUND);
  EXPECT_FALSE(groups.at("x").active_on_destination);  // the conflict, not its members, is shown
  EXPECT_EQ(groups.at("offsets-only").error.code(), ErrorCode::GROUP_ID_NOT_FOUND);
  EXPECT_EQ(groups.at("y").error.code(), ErrorCode::GROUP_ID_NOT_FOUND);
  EXPECT_NE(groups.at("x").error.message().find("consumer group on the destination, not a share"),
            std::string::npos)
      << groups.at("x").error.message();
  EXPECT_EQ(destination_.share_writes, 1);  // fine's only: x was never asked for
  EXPECT_EQ(start("x", kT0), -1);
  EXPECT_EQ(start("fine", kT0), 6);
  EXPECT_EQ(destination_.committed.count("y"), 0u);
  EXPECT_EQ(destination_.committed.at("cg").at(kT0).offset, 3);
  EXPECT_EQ(kind_status(*sync).last_error.code(), ErrorCode::GROUP_ID_NOT_FOUND);
  EXPECT_EQ(kind_status(*sync).last_error.message().rfind("2 of 3 groups failed; the first", 0), 0u)
      << kind_status(*sync).last_error.message();
  EXPECT_EQ(sync->status()
                .of(SyncKind::kGroups)
                .last_error.message()
                .rfind("1 of 2 groups failed; the first, y", 0),
            0u);
  // Describe shows each with its kind.
  const SyncDescription d = describe_sync(sync->status());
  ASSERT_EQ(d.groups.size(), 3u);
  EXPECT_EQ(d.groups[0].first, "offsets-only");
  EXPECT_EQ(d.groups[0].second.kind, SyncKind::kShareGroups);
  EXPECT_EQ(d.groups[2].first, "y");
  EXPECT_EQ(d.groups[2].second.kind, SyncKind::kGroups);
}

TEST_F(MirrorSyncShareGroupsTest, OneGroupsSourceErrorAndAnothersWriteErrorStopOnlyThem) {
  auto sync = make_sync();
  share_group("a", {at(kT0, 1)});
  share_group("b", {at(kT0, 2)});
  share_group("c", {at(kT0, 3)});
  source_->group_errors["a"] = Status(ErrorCode::GROUP_AUTHORIZATION_FAILED, "not allowed");
  destination_.share_errors["b"] = Status(ErrorCode::KAFKA_STORAGE_ERROR, "not written");
  round(*sync);
  EXPECT_EQ(start("c", kT0), 3);
  EXPECT_EQ(group_status(*sync, "a").error.code(), ErrorCode::GROUP_AUTHORIZATION_FAILED);
  EXPECT_EQ(group_status(*sync, "b").error.code(), ErrorCode::KAFKA_STORAGE_ERROR);
  EXPECT_TRUE(group_status(*sync, "c").error.ok());
  EXPECT_EQ(kind_status(*sync).failures, 1);
  EXPECT_EQ(kind_status(*sync).last_error.message(),
            "2 of 3 groups failed; the first, a: not allowed");
  // Both recover.
  source_->group_errors.clear();
  destination_.share_errors.clear();
  round(*sync);
  EXPECT_EQ(start("a", kT0), 1);
  EXPECT_EQ(start("b", kT0), 2);
  EXPECT_TRUE(group_status(*sync, "a").error.ok());
  EXPECT_TRUE(kind_status(*sync).last_error.ok());
}

TEST_F(MirrorSyncShareGroupsTest, TheSourceCallFailingIsTheKindsErrorAlone) {
  auto sync = make_sync();
  share_group("sg", {at(kT0, 1)});
  source_->share_offsets_error = Status(ErrorCode::UNSUPPORTED_VERSION, "no share groups there");
  round(*sync);
  EXPECT_EQ(kind_status(*sync).last_error.code(), ErrorCode::UNSUPPORTED_VERSION);
  EXPECT_TRUE(sync->status().of(SyncKind::kGroups).last_error.ok());
  EXPECT_EQ(start("sg", kT0), -1);
}

TEST_F(MirrorSyncShareGroupsTest, NothingIsSyncedOnceTheTopicIsFailedOverOrPaused) {
  auto sync = make_sync();
  share_group("sg", {at(kT0, 5), at(kT1, 6)});
  round(*sync);
  EXPECT_EQ(start("sg", kT0), 5);
  // Failed over (RemoveTopicsFromMirror: STOPPED): the group here belongs to the new primary.
  sink_.set_state(kT0, MirrorState::stopped);
  sink_.set_state(kT1, MirrorState::stopped);
  source_->share_offsets["sg"][kT0] = at(kT0, 40);
  round(*sync);
  EXPECT_EQ(source_->share_offsets_calls, 1);
  EXPECT_EQ(destination_.share_writes, 1);
  EXPECT_EQ(start("sg", kT0), 5);
  EXPECT_TRUE(kind_status(*sync).last_error.ok());
}

TEST_F(MirrorSyncShareGroupsTest, GroupsGoneFromTheSourceAreDroppedOnlyFromTheirOwnKind) {
  auto sync = make_sync();
  share_group("sg", {at(kT0, 1)});
  source_->groups.groups.push_back({"cg", "consumer", "Empty", "classic"});
  round(*sync);
  EXPECT_EQ(sync->status().groups.size(), 2u);
  source_->groups.groups.erase(source_->groups.groups.begin());  // sg gone
  round(*sync);
  EXPECT_EQ(sync->status().groups.count("sg"), 0u);
  EXPECT_EQ(sync->status().groups.count("cg"), 1u);
  // Gone and back: written again, since what was written was forgotten with it.
  share_group("sg", {at(kT0, 1)});
  destination_.share_starts.clear();
  round(*sync);
  EXPECT_EQ(start("sg", kT0), 1);
}

}  // namespace
}  // namespace mirra::mirror
