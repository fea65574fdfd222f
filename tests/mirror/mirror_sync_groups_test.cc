// The groups sync (mirror_sync_groups.cc) against fakes of the source and the destination: the
// offsets copied with their metadata and epoch, clamped to what the destination holds, the
// group filters and protocol types, groups active on the destination left alone, resets on the
// source followed, nothing committed twice, and one group's failure stopping only that group.
#include <gtest/gtest.h>

#include "sync_fixture.h"

namespace mirra::mirror {
namespace {

using client::CommittedOffset;
using client::TopicPartition;

const TopicPartition kT0{"t", 0};
const TopicPartition kT1{"t", 1};

class MirrorSyncGroupsTest : public test::SyncFixture {
 protected:
  void SetUp() override {
    sink_.add_topic("m", "t", Uuid::random(), 2);
    destination_.partition_bounds[kT0] = {0, 100};
    destination_.partition_bounds[kT1] = {0, 100};
  }

  // A group on the source with its offsets.
  void source_group(const std::string& id, std::vector<CommittedOffset> offsets,
                    const std::string& protocol_type = "consumer") {
    source_->groups.groups.push_back({id, protocol_type, "Empty", "classic"});
    for (CommittedOffset& c : offsets) source_->offsets[id][c.tp] = c;
  }
  static CommittedOffset at(TopicPartition tp, int64_t offset, int32_t epoch = -1,
                            std::optional<std::string> metadata = std::nullopt) {
    return {std::move(tp), Status::OK(), offset, epoch, std::move(metadata)};
  }
  // The offset committed on the destination (-1: none).
  int64_t committed(const std::string& group, const TopicPartition& tp) const {
    auto g = destination_.committed.find(group);
    if (g == destination_.committed.end()) return -1;
    auto o = g->second.find(tp);
    return o == g->second.end() ? -1 : o->second.offset;
  }
  const client::OffsetToCommit& commit_of(const std::string& group, const TopicPartition& tp) {
    return destination_.committed.at(group).at(tp);
  }
  const SyncKindStatus& groups_status(const MirrorSync& s) const {
    return s.status().of(SyncKind::kGroups);
  }
};

TEST_F(MirrorSyncGroupsTest, OffsetsAreCopiedWithMetadataAndLeaderEpochInOneFetch) {
  auto sync = make_sync();
  source_group("g", {at(kT0, 5, 3, "meta"), at(kT1, 7, 2)});
  run(sync->run_round());
  EXPECT_EQ(commit_of("g", kT0).offset, 5);
  EXPECT_EQ(commit_of("g", kT0).leader_epoch, 3);
  EXPECT_EQ(commit_of("g", kT0).metadata, "meta");
  EXPECT_EQ(commit_of("g", kT1).offset, 7);
  EXPECT_EQ(commit_of("g", kT1).leader_epoch, 2);
  EXPECT_EQ(source_->offsets_calls, 1);
  const GroupSyncStatus& g = sync->status().groups.at("g");
  EXPECT_TRUE(g.error.ok());
  EXPECT_FALSE(g.active_on_destination);
  EXPECT_EQ(g.last_synced_ms, 1000);
  EXPECT_EQ(g.offsets_committed, 2);
  EXPECT_TRUE(groups_status(*sync).last_error.ok());
  EXPECT_EQ(groups_status(*sync).looked_at, 1);
  EXPECT_EQ(groups_status(*sync).changed, 2);
}

TEST_F(MirrorSyncGroupsTest, ManyGroupsAreFetchedInOneCall) {
  auto sync = make_sync();
  for (int i = 0; i < 50; ++i) source_group("g" + std::to_string(i), {at(kT0, i)});
  run(sync->run_round());
  EXPECT_EQ(source_->offsets_calls, 1);
  EXPECT_EQ(committed("g49", kT0), 49);
  EXPECT_EQ(groups_status(*sync).changed, 50);
}

TEST_F(MirrorSyncGroupsTest, OffsetsAreClampedToTheLsoAndTheLogStartWithoutEpoch) {
  destination_.partition_bounds[kT0] = {0, 20};   // the destination is behind
  destination_.partition_bounds[kT1] = {10, 30};  // retention removed the start here
  auto sync = make_sync();
  source_group("g", {at(kT0, 50, 3, "meta"), at(kT1, 4, 2)});
  run(sync->run_round());
  EXPECT_EQ(commit_of("g", kT0).offset, 20);
  EXPECT_EQ(commit_of("g", kT0).leader_epoch, -1);
  EXPECT_EQ(commit_of("g", kT0).metadata, "meta");
  EXPECT_EQ(commit_of("g", kT1).offset, 10);
  EXPECT_EQ(commit_of("g", kT1).leader_epoch, -1);
  // Caught up: the source's own offset and epoch.
  destination_.partition_bounds[kT0] = {0, 60};
  run(sync->run_round());
  EXPECT_EQ(commit_of("g", kT0).offset, 50);
  EXPECT_EQ(commit_of("g", kT0).leader_epoch, 3);
}

TEST_F(MirrorSyncGroupsTest, OnlyGroupsTheFiltersTakeAreSynced) {
  auto sync = make_sync(
      {{"mirror.groups.include", "app-.*,billing"}, {"mirror.groups.exclude", "app-test"}});
  source_group("app-1", {at(kT0, 1)});
  source_group("app-test", {at(kT0, 2)});
  source_group("billing", {at(kT0, 3)});
  source_group("other", {at(kT0, 4)});
  run(sync->run_round());
  EXPECT_EQ(committed("app-1", kT0), 1);
  EXPECT_EQ(committed("billing", kT0), 3);
  EXPECT_EQ(committed("app-test", kT0), -1);
  EXPECT_EQ(committed("other", kT0), -1);
  EXPECT_EQ(sync->status().groups.size(), 2u);
  EXPECT_EQ(groups_status(*sync).looked_at, 2);
}

TEST_F(MirrorSyncGroupsTest, OnlyConsumerAndOffsetsOnlyGroupsAreSynced) {
  auto sync = make_sync();
  source_group("consumer", {at(kT0, 1)});
  source_group("offsets-only", {at(kT0, 2)}, "");
  source_group("connect", {at(kT0, 3)}, "connect");
  source_group("share-here", {at(kT0, 4)});
  destination_.groups["share-here"] = {true, "share", 0};
  run(sync->run_round());
  EXPECT_EQ(committed("consumer", kT0), 1);
  EXPECT_EQ(committed("offsets-only", kT0), 2);
  EXPECT_EQ(committed("connect", kT0), -1);
  EXPECT_EQ(sync->status().groups.count("connect"), 0u);
  // A group of another kind on the destination is refused, alone.
  EXPECT_EQ(committed("share-here", kT0), -1);
  EXPECT_EQ(sync->status().groups.at("share-here").error.code(), ErrorCode::GROUP_ID_NOT_FOUND);
  EXPECT_EQ(groups_status(*sync).last_error.message().rfind("1 of 3 groups failed", 0), 0u)
      << groups_status(*sync).last_error.message();
}

TEST_F(MirrorSyncGroupsTest, AGroupActiveOnTheDestinationIsLeftAloneAndShown) {
  auto sync = make_sync();
  source_group("g", {at(kT0, 5)});
  source_group("idle", {at(kT0, 6)});
  destination_.groups["g"] = {true, "consumer", 2};
  run(sync->run_round());
  EXPECT_EQ(committed("g", kT0), -1);
  EXPECT_EQ(committed("idle", kT0), 6);
  const GroupSyncStatus& g = sync->status().groups.at("g");
  EXPECT_TRUE(g.active_on_destination);
  EXPECT_TRUE(g.error.ok());
  EXPECT_TRUE(groups_status(*sync).last_error.ok());
  // Its members left: synced from then on.
  destination_.groups["g"] = {true, "consumer", 0};
  run(sync->run_round());
  EXPECT_EQ(committed("g", kT0), 5);
  EXPECT_FALSE(sync->status().groups.at("g").active_on_destination);
}

TEST_F(MirrorSyncGroupsTest, AResetOnTheSourceIsFollowed) {
  auto sync = make_sync();
  source_group("g", {at(kT0, 80, 4)});
  run(sync->run_round());
  EXPECT_EQ(committed("g", kT0), 80);
  source_->offsets["g"][kT0] = at(kT0, 3, 1);
  run(sync->run_round());
  EXPECT_EQ(committed("g", kT0), 3);
  EXPECT_EQ(commit_of("g", kT0).leader_epoch, 1);
}

TEST_F(MirrorSyncGroupsTest, UnchangedOffsetsAreNotCommittedAgain) {
  auto sync = make_sync();
  source_group("g", {at(kT0, 5), at(kT1, 6)});
  run(sync->run_round());
  run(sync->run_round());
  EXPECT_EQ(destination_.commits, 1);
  EXPECT_EQ(groups_status(*sync).changed, 0);
  source_->offsets["g"][kT1] = at(kT1, 9);
  destination_.committed.clear();
  run(sync->run_round());
  EXPECT_EQ(destination_.commits, 2);
  EXPECT_EQ(committed("g", kT0), -1);  // not sent again
  EXPECT_EQ(committed("g", kT1), 9);
  EXPECT_EQ(sync->status().groups.at("g").offsets_committed, 1);
}

TEST_F(MirrorSyncGroupsTest, PartitionsWithoutAnOffsetAreSkipped) {
  auto sync = make_sync();
  source_group("g", {at(kT1, 4)});  // none for t-0
  run(sync->run_round());
  EXPECT_EQ(committed("g", kT0), -1);
  EXPECT_EQ(committed("g", kT1), 4);
}

TEST_F(MirrorSyncGroupsTest, OneGroupsFetchErrorAndAnothersCommitErrorLeaveTheOthersSynced) {
  auto sync = make_sync();
  source_group("a", {at(kT0, 1)});
  source_group("b", {at(kT0, 2)});
  source_group("c", {at(kT0, 3)});
  source_->group_errors["a"] = Status(ErrorCode::GROUP_AUTHORIZATION_FAILED, "not allowed");
  destination_.commit_errors["b"] = Status(ErrorCode::UNKNOWN_MEMBER_ID, "has members");
  run(sync->run_round());
  EXPECT_EQ(committed("c", kT0), 3);
  const auto& groups = sync->status().groups;
  EXPECT_EQ(groups.at("a").error.code(), ErrorCode::GROUP_AUTHORIZATION_FAILED);
  EXPECT_EQ(groups.at("b").error.code(), ErrorCode::UNKNOWN_MEMBER_ID);
  EXPECT_TRUE(groups.at("c").error.ok());
  const SyncKindStatus& st = groups_status(*sync);
  EXPECT_EQ(st.failures, 1);
  EXPECT_EQ(st.last_error.code(), ErrorCode::GROUP_AUTHORIZATION_FAILED);
  EXPECT_EQ(st.last_error.message(), "2 of 3 groups failed; the first, a: not allowed");
  // Both recover: the round is OK again and the errors are gone.
  source_->group_errors.clear();
  destination_.commit_errors.clear();
  run(sync->run_round());
  EXPECT_EQ(committed("a", kT0), 1);
  EXPECT_EQ(committed("b", kT0), 2);
  EXPECT_TRUE(sync->status().groups.at("a").error.ok());
  EXPECT_TRUE(sync->status().groups.at("b").error.ok());
  EXPECT_TRUE(groups_status(*sync).last_error.ok());
}

TEST_F(MirrorSyncGroupsTest, GroupsGoneFromTheSourceAreDroppedFromTheStatus) {
  auto sync = make_sync();
  source_group("g", {at(kT0, 1)});
  source_group("h", {at(kT0, 1)});
  run(sync->run_round());
  EXPECT_EQ(sync->status().groups.size(), 2u);
  source_->groups.groups.erase(source_->groups.groups.begin());
  run(sync->run_round());
  EXPECT_EQ(sync->status().groups.count("g"), 0u);
  EXPECT_EQ(sync->status().groups.count("h"), 1u);
  // A partial listing (a source broker not answering) drops nothing.
  source_->groups.groups.clear();
  source_->groups.errors.push_back(Status(ErrorCode::NETWORK_EXCEPTION, "broker 2 is down"));
  run(sync->run_round());
  EXPECT_EQ(sync->status().groups.count("h"), 1u);
  EXPECT_EQ(groups_status(*sync).last_error.code(), ErrorCode::NETWORK_EXCEPTION);
}

TEST_F(MirrorSyncGroupsTest, PausedTopicsAreNotSynced) {
  auto sync = make_sync();
  sink_.set_state(kT0, MirrorState::paused);
  source_group("g", {at(kT0, 5), at(kT1, 6)});
  run(sync->run_round());
  EXPECT_EQ(committed("g", kT0), -1);
  EXPECT_EQ(committed("g", kT1), -1);
  EXPECT_EQ(source_->offsets_calls, 0);
}

}  // namespace
}  // namespace mirra::mirror
