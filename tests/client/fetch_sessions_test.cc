// FetchSessions' bookkeeping on its own (no broker): epochs, resets, what an incremental
// request sends and forgets. fetch_session_test.cc checks the same against a real broker.
#include "client/fetch_sessions.h"

#include <gtest/gtest.h>

namespace mirra::client {
namespace {

constexpr Uuid kTopicId = Uuid::from_bits(0x0d4f8c2e6a1b4c3d, 0x9e8f7a6b5c4d3e2f);
constexpr Uuid kRecreatedId = Uuid::from_bits(0x1d4f8c2e6a1b4c3d, 0x9e8f7a6b5c4d3e2f);

std::vector<FetchTarget> targets(std::vector<int64_t> offsets, Uuid id = kTopicId) {
  std::vector<FetchTarget> out;
  for (size_t p = 0; p < offsets.size(); ++p) {
    out.push_back(FetchTarget{{"t", static_cast<int32_t>(p)}, id, offsets[p], 1024, -1});
  }
  return out;
}

// A session with broker 1 at `version` holding partitions 0..n-1 at offset 0, answered.
void establish(FetchSessions& s, int16_t version, size_t n, int32_t id = 42) {
  const auto ts = targets(std::vector<int64_t>(n, 0));
  auto r = s.prepare(1, version, ts);
  ASSERT_EQ(r.epoch, 0);
  ASSERT_TRUE(s.complete(r, ts, id));
  for (const auto& t : ts) s.record(1, t.tp, 5, 5, 0);
}

TEST(FetchSessions, EpochWrapsFromIntMaxToOne) {
  EXPECT_EQ(next_fetch_session_epoch(1), 2);
  EXPECT_EQ(next_fetch_session_epoch(INT32_MAX - 1), INT32_MAX);
  EXPECT_EQ(next_fetch_session_epoch(INT32_MAX), 1);
  EXPECT_EQ(next_fetch_session_epoch(-1), -1);
}

TEST(FetchSessions, IncrementalSendsChangedAndForgetsRemoved) {
  FetchSessions s;
  establish(s, 13, 3);
  std::vector<FetchTarget> next = targets({0, 7});
  next[0].max_bytes = 2048;                                          // changed limit: sent again
  next.push_back(FetchTarget{{"u", 0}, kRecreatedId, 0, 1024, -1});  // new: sent
  auto r = s.prepare(1, 13, next);
  EXPECT_EQ(r.session_id, 42);
  EXPECT_EQ(r.epoch, 1);
  EXPECT_EQ(r.send, (std::vector<size_t>{0, 1, 2}));
  ASSERT_EQ(r.forget.size(), 1u);
  EXPECT_EQ(r.forget[0].first, (TopicPartition{"t", 2}));
  EXPECT_EQ(r.forget[0].second, kTopicId);
  ASSERT_TRUE(s.complete(r, next, 42));
  EXPECT_EQ(s.session(1)->epoch, 2);
  EXPECT_EQ(s.session(1)->partitions.size(), 3u);
  // Known partitions keep their last answer; the new one has none yet.
  ASSERT_NE(s.answered(1, {"t", 1}), nullptr);
  EXPECT_EQ(s.answered(1, {"t", 1})->high_watermark, 5);
  EXPECT_EQ(s.answered(1, {"u", 0}), nullptr);
  EXPECT_EQ(s.answered(1, {"t", 2}), nullptr);

  auto unchanged = s.prepare(1, 13, next);
  EXPECT_TRUE(unchanged.send.empty());
  EXPECT_TRUE(unchanged.forget.empty());
}

TEST(FetchSessions, RecreatedTopicIsForgottenByOldIdAndSentWithNew) {
  FetchSessions s;
  establish(s, 13, 1);
  auto next = targets({0}, kRecreatedId);
  auto r = s.prepare(1, 13, next);
  EXPECT_EQ(r.send, (std::vector<size_t>{0}));
  ASSERT_EQ(r.forget.size(), 1u);
  EXPECT_EQ(r.forget[0].second, kTopicId);
  ASSERT_TRUE(s.complete(r, next, 42));
  EXPECT_EQ(s.session(1)->partitions.at({"t", 0}).topic_id, kRecreatedId);
  EXPECT_EQ(s.answered(1, {"t", 0}), nullptr);
}

TEST(FetchSessions, SessionNotFoundForgetsTheIdOtherErrorsCloseIt) {
  FetchSessions s;
  establish(s, 13, 2);
  auto r = s.prepare(1, 13, targets({0, 0}));
  s.fail(r, ErrorCode::FETCH_SESSION_ID_NOT_FOUND);
  auto after = s.prepare(1, 13, targets({0, 0}));
  EXPECT_EQ(after.session_id, 0);
  EXPECT_EQ(after.epoch, 0);
  EXPECT_EQ(after.send.size(), 2u);

  FetchSessions t;
  establish(t, 13, 2);
  auto lost = t.prepare(1, 13, targets({0, 0}));
  t.fail(lost, ErrorCode::NETWORK_EXCEPTION);
  auto closing = t.prepare(1, 13, targets({0, 0}));
  EXPECT_EQ(closing.session_id, 42);  // closes the old session while making a new one
  EXPECT_EQ(closing.epoch, 0);
  EXPECT_EQ(t.stats().resets, 1u);
}

TEST(FetchSessions, IncrementalAnswerFromAnotherSessionResets) {
  FetchSessions s;
  establish(s, 13, 2);
  auto r = s.prepare(1, 13, targets({1, 1}));
  EXPECT_FALSE(s.complete(r, targets({1, 1}), 7));
  EXPECT_EQ(s.session(1)->id, 0);
  EXPECT_EQ(s.prepare(1, 13, targets({1, 1})).epoch, 0);
}

TEST(FetchSessions, NoSessionOfferedStaysFull) {
  FetchSessions s;
  establish(s, 13, 2, /*id=*/0);
  auto r = s.prepare(1, 13, targets({1, 1}));
  EXPECT_EQ(r.session_id, 0);
  EXPECT_EQ(r.epoch, 0);
  EXPECT_EQ(r.send.size(), 2u);
}

TEST(FetchSessions, OverlappingRequestAndOldVersionsAreSessionless) {
  FetchSessions s;
  establish(s, 13, 2);
  auto first = s.prepare(1, 13, targets({1, 1}));
  EXPECT_TRUE(first.uses_session());
  auto overlapping = s.prepare(1, 13, targets({1, 1}));
  EXPECT_FALSE(overlapping.uses_session());
  EXPECT_EQ(overlapping.send.size(), 2u);
  ASSERT_TRUE(s.complete(first, targets({1, 1}), 42));
  EXPECT_EQ(s.session(1)->epoch, 2);

  auto old = s.prepare(2, 6, targets({0}));
  EXPECT_FALSE(old.uses_session());
  EXPECT_EQ(s.stats().sessionless, 2u);
}

TEST(FetchSessions, VersionChangeStartsOver) {
  FetchSessions s;
  establish(s, 13, 2);
  auto r = s.prepare(1, 12, targets({0, 0}));
  EXPECT_EQ(r.session_id, 42);
  EXPECT_EQ(r.epoch, 0);
  EXPECT_EQ(r.send.size(), 2u);
}

}  // namespace
}  // namespace mirra::client
