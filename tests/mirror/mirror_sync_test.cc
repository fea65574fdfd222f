// MirrorSync's loop against fakes of the source and the destination (fake_sync.h,
// fake_sink.h): each kind runs every round and keeps its own status. The kinds' own rules have
// their tests in mirror_sync_<kind>_test.cc.
#include "mirror/mirror_sync.h"

#include <gtest/gtest.h>

#include "sync_fixture.h"

namespace mirra::mirror {
namespace {

class MirrorSyncTest : public test::SyncFixture {};

TEST_F(MirrorSyncTest, EveryKindRunsEachRoundAndKeepsItsOwnStatus) {
  auto sync = make_sync();
  run(sync->run_round());
  wall_ms_ = 2000;
  run(sync->run_round());
  for (SyncKind kind : kSyncKinds) {
    const SyncKindStatus& st = sync->status().of(kind);
    EXPECT_EQ(st.runs, 2) << to_string(kind);
    EXPECT_EQ(st.last_run_ms, 2000) << to_string(kind);
    EXPECT_EQ(st.last_success_ms, 2000) << to_string(kind);
    EXPECT_TRUE(st.last_error.ok()) << to_string(kind);
  }
}

TEST_F(MirrorSyncTest, StopEndsTheLoop) {
  auto sync = make_sync();
  sync->start();
  io_.restart();
  io_.poll();  // the first round runs at once
  EXPECT_EQ(sync->status().of(SyncKind::kTopics).runs, 1);
  sync->stop();
  run(sync->stopped());
  EXPECT_TRUE(source_->closed);
}

}  // namespace
}  // namespace mirra::mirror
