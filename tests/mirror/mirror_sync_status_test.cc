// The sync tasks' status as describe shows it (docs/mirroring-design.md §12): a round whose
// source Metadata fails is a failure of every kind that works from it (topics, configs,
// partitions) and not of groups; the errors clear at the next good round; describe_sync()
// lists every kind in round order and only the groups with something to say.
#include <gtest/gtest.h>

#include "mirror/mirror_describe.h"
#include "sync_fixture.h"

namespace mirra::mirror {
namespace {

class MirrorSyncStatusTest : public test::SyncFixture {};

TEST_F(MirrorSyncStatusTest, FailedSourceMetadataIsAFailureOfTheKindsThatNeedIt) {
  auto sync = make_sync();
  round(*sync);
  source_->metadata_error = Status(ErrorCode::NETWORK_EXCEPTION, "source down");
  wall_ms_ = 2000;
  round(*sync);
  for (SyncKind kind : {SyncKind::kTopics, SyncKind::kConfigs, SyncKind::kPartitions}) {
    const SyncKindStatus& st = sync->status().of(kind);
    EXPECT_EQ(st.runs, 2) << to_string(kind);
    EXPECT_EQ(st.failures, 1) << to_string(kind);
    EXPECT_EQ(st.last_success_ms, 1000) << to_string(kind);
    EXPECT_EQ(st.last_error_ms, 2000) << to_string(kind);
    EXPECT_EQ(st.last_error.code(), ErrorCode::NETWORK_EXCEPTION) << to_string(kind);
    EXPECT_NE(st.last_error.message().find("source down"), std::string::npos)
        << st.last_error.message();
  }
  const SyncKindStatus& groups = sync->status().of(SyncKind::kGroups);
  EXPECT_EQ(groups.failures, 0);  // the groups' calls are their own (ListGroups, OffsetFetch)
  EXPECT_EQ(groups.last_success_ms, 2000);

  source_->metadata_error = Status::OK();
  wall_ms_ = 3000;
  round(*sync);
  for (SyncKind kind : kSyncKinds) {
    const SyncKindStatus& st = sync->status().of(kind);
    EXPECT_TRUE(st.last_error.ok()) << to_string(kind);
    EXPECT_EQ(st.last_success_ms, 3000) << to_string(kind);
    EXPECT_EQ(st.runs, 3) << to_string(kind);
  }
  EXPECT_EQ(sync->status().of(SyncKind::kTopics).failures, 1);  // a count, never reset
}

TEST(MirrorSyncDescribe, EveryKindInRoundOrderAndOnlyGroupsWithSomethingToSay) {
  MirrorSyncStatus st;
  st.of(SyncKind::kConfigs).runs = 7;
  st.of(SyncKind::kConfigs).last_error = Status(ErrorCode::POLICY_VIOLATION, "refused");
  st.groups["fine"] = GroupSyncStatus{Status::OK(), false, 500, 20};
  st.groups["active"] = GroupSyncStatus{Status::OK(), true, 400, 0};
  st.groups["broken"] =
      GroupSyncStatus{Status(ErrorCode::GROUP_ID_NOT_FOUND, "gone"), false, 300, 0};

  const SyncDescription d = describe_sync(st);
  ASSERT_EQ(d.kinds.size(), kSyncKinds.size());
  for (size_t i = 0; i < kSyncKinds.size(); ++i) EXPECT_EQ(d.kinds[i].first, kSyncKinds[i]);
  EXPECT_EQ(d.kinds[1].second.runs, 7);
  EXPECT_EQ(d.kinds[1].second.last_error.code(), ErrorCode::POLICY_VIOLATION);
  ASSERT_EQ(d.groups.size(), 2u);  // by group id; "fine" has nothing to say
  EXPECT_EQ(d.groups[0].first, "active");
  EXPECT_TRUE(d.groups[0].second.active_on_destination);
  EXPECT_EQ(d.groups[1].first, "broken");
  EXPECT_EQ(d.groups[1].second.error.code(), ErrorCode::GROUP_ID_NOT_FOUND);
  EXPECT_EQ(d.groups[1].second.last_synced_ms, 300);
}

}  // namespace
}  // namespace mirra::mirror
