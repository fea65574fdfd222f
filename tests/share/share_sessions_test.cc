// ShareSessionCache (share/share_sessions.h) and ShareState (share/share_state.h): session
// epochs and limits, and the events that give a member's records back.
#include <gtest/gtest.h>

#include "share/share_sessions.h"
#include "share/share_state.h"

namespace mirra::share {
namespace {

const Uuid kTopic = Uuid::from_bits(1, 2);
const ShareLimits kLimits{
    .lock_duration_ms = 1'000, .delivery_count_limit = 3, .max_in_flight = 10};

TEST(ShareSessionCache, EpochsFollowOnFromOpenAndWrapToOne) {
  ShareSessionCache cache(10);
  auto opened = cache.open("g", "m", 7);
  ASSERT_EQ(opened.error, ErrorCode::NONE);
  EXPECT_FALSE(opened.replaced);
  ShareSession* s = nullptr;
  EXPECT_EQ(cache.continue_session("g", "m", 2, s), ErrorCode::INVALID_SHARE_SESSION_EPOCH);
  EXPECT_EQ(s, nullptr);
  ASSERT_EQ(cache.continue_session("g", "m", 1, s), ErrorCode::NONE);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->next_epoch, 2);
  s->next_epoch = INT32_MAX;
  ASSERT_EQ(cache.continue_session("g", "m", INT32_MAX, s), ErrorCode::NONE);
  EXPECT_EQ(s->next_epoch, 1);
  EXPECT_EQ(cache.continue_session("g", "other", 1, s), ErrorCode::SHARE_SESSION_NOT_FOUND);
}

TEST(ShareSessionCache, OpeningAgainReplacesTheMembersSession) {
  ShareSessionCache cache(10);
  cache.open("g", "m", 7).session->partitions.insert({kTopic, 0});
  auto again = cache.open("g", "m", 8);
  ASSERT_TRUE(again.replaced);
  EXPECT_EQ(again.replaced->partitions.size(), 1u);
  EXPECT_EQ(again.session->connection, 8u);
  EXPECT_TRUE(again.session->partitions.empty());
  EXPECT_EQ(cache.size(), 1u);
}

TEST(ShareSessionCache, TheLimitRefusesNewSessionsOnly) {
  ShareSessionCache cache(2);
  ASSERT_EQ(cache.open("g", "a", 1).error, ErrorCode::NONE);
  ASSERT_EQ(cache.open("g", "b", 1).error, ErrorCode::NONE);
  EXPECT_EQ(cache.open("g", "c", 1).error, ErrorCode::SHARE_SESSION_LIMIT_REACHED);
  EXPECT_EQ(cache.open("g", "a", 2).error, ErrorCode::NONE);  // a replacement takes its place
  ASSERT_TRUE(cache.close("g", "b"));
  EXPECT_FALSE(cache.close("g", "b"));
  EXPECT_EQ(cache.open("g", "c", 1).error, ErrorCode::NONE);
}

TEST(ShareSessionCache, AConnectionTakesItsSessionsWithIt) {
  ShareSessionCache cache(10);
  cache.open("g", "a", 1);
  cache.open("h", "b", 1);
  cache.open("g", "c", 2);
  EXPECT_EQ(cache.drop_connection(1).size(), 2u);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_NE(cache.find("g", "c"), nullptr);
}

// Member "m" holds offsets 0-3 of partition 0 and "n" holds 4-5.
ShareState state_with_records() {
  ShareState state(kLimits, 10);
  SharePartition& p = state.get_or_create({"g", kTopic, 0}, 0);
  p.acquire("m", 0, 4, 100, 0, kLimits);
  p.acquire("n", 0, 6, 100, 0, kLimits);
  return state;
}

TEST(ShareState, AClosedConnectionGivesBackWhatItsSessionsHeld) {
  ShareState state = state_with_records();
  state.sessions().open("g", "m", 5).session->partitions.insert({kTopic, 0});
  state.sessions().open("g", "n", 6).session->partitions.insert({kTopic, 0});
  state.connection_closed(5);
  const SharePartition& p = *state.find({"g", kTopic, 0});
  EXPECT_EQ(p.state(0), RecordState::available);
  EXPECT_EQ(p.state(3), RecordState::available);
  EXPECT_EQ(p.state(4), RecordState::acquired);  // n's session is on another connection
}

TEST(ShareState, ALeavingMemberGivesBackOnlyItsOwnGroupsRecords) {
  ShareState state = state_with_records();
  state.get_or_create({"other", kTopic, 0}, 0).acquire("m", 0, 2, 100, 0, kLimits);
  state.member_gone("g", "m");
  EXPECT_EQ(state.find({"g", kTopic, 0})->state(1), RecordState::available);
  EXPECT_EQ(state.find({"other", kTopic, 0})->state(1), RecordState::acquired);
}

TEST(ShareState, LocksExpireWhenThePartitionIsLookedUpAfterTheirDeadline) {
  ShareState state = state_with_records();
  EXPECT_EQ(state.find_current({"g", kTopic, 0}, 999)->state(0), RecordState::acquired);
  EXPECT_EQ(state.find_current({"g", kTopic, 0}, 1'000)->state(0), RecordState::available);
}

TEST(ShareState, ADeletedGroupLosesItsPartitionsAndNoOtherGroup) {
  ShareState state = state_with_records();
  state.get_or_create({"g", kTopic, 1}, 0);
  state.get_or_create({"g2", kTopic, 0}, 0);
  state.get_or_create({"f", kTopic, 0}, 0);
  state.group_deleted("g");
  EXPECT_EQ(state.find({"g", kTopic, 0}), nullptr);
  EXPECT_EQ(state.find({"g", kTopic, 1}), nullptr);
  EXPECT_EQ(state.partition_count(), 2u);
}

}  // namespace
}  // namespace mirra::share
