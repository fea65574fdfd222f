// What survives a restart of a share partition: SharePartition::snapshot/restore
// (share/share_partition.h) and the records of __share_group_state (share/share_store.h).
#include <gtest/gtest.h>

#include "share/share_partition.h"
#include "share/share_store.h"

namespace mirra::share {
namespace {

const ShareLimits kLimits{.lock_duration_ms = 1000, .delivery_count_limit = 3, .max_in_flight = 20};
using Runs = std::vector<ShareSnapshot::Run>;

// 10..19 handed out once; 11 accepted, 12-13 rejected, 14 released, 15-19 still acquired.
SharePartition busy() {
  SharePartition p(10);
  p.acquire("m", 10, 20, 100, 0, kLimits);
  EXPECT_EQ(p.acknowledge("m", 11, 14,
                          {AckType::accept, AckType::reject, AckType::reject, AckType::release}, 0,
                          kLimits),
            ErrorCode::NONE);
  return p;
}

TEST(ShareSnapshot, AcquiredRecordsAreWrittenAsAvailableWithTheirCounts) {
  const ShareSnapshot s = busy().snapshot();
  EXPECT_EQ(s.start_offset, 10);
  EXPECT_EQ(s.runs, (Runs{{10, 10, RecordState::available, 1},
                          {11, 11, RecordState::acknowledged, 1},
                          {12, 13, RecordState::archived, 1},
                          {14, 19, RecordState::available, 1}}));
  auto back = SharePartition::restore(s);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->start_offset(), 10);
  EXPECT_EQ(back->end_offset(), 20);
  EXPECT_EQ(back->state(11), RecordState::acknowledged);
  EXPECT_EQ(back->state(15), RecordState::available);
  // Restored available records go out again with their next delivery count, done ones never.
  EXPECT_EQ(back->acquire("n", 10, 20, 100, 0, kLimits),
            (std::vector<AcquiredRange>{{10, 10, 2}, {14, 19, 2}}));
}

TEST(ShareSnapshot, BrokenSnapshotsAreRefusedNotAsserted) {
  for (const ShareSnapshot& bad : {
           ShareSnapshot{-1, {}},
           ShareSnapshot{5, {{6, 7, RecordState::available, 1}}},  // a hole at 5
           ShareSnapshot{5, {{5, 4, RecordState::available, 1}}},
           ShareSnapshot{5, {{5, 5, RecordState::acquired, 1}}},
           ShareSnapshot{5, {{5, 5, static_cast<RecordState>(3), 1}}},
           ShareSnapshot{5, {{5, 5, RecordState::available, -1}}},
           // Windows no record-lock limit allows, in one run or in many.
           ShareSnapshot{0, {{0, kMaxRestoredWindow, RecordState::archived, 1}}},
           ShareSnapshot{0,
                         {{0, 9, RecordState::available, 1},
                          {10, kMaxRestoredWindow + 3, RecordState::archived, 1}}},
       }) {
    EXPECT_FALSE(SharePartition::restore(bad).ok());
  }
  EXPECT_TRUE(
      SharePartition::restore({0, {{0, kMaxRestoredWindow - 1, RecordState::available, 1}}}).ok());
  // A finished prefix moves the start, as the live window does.
  auto moved = SharePartition::restore(
      {5, {{5, 6, RecordState::acknowledged, 1}, {7, 7, RecordState::available, 1}}});
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(moved->start_offset(), 7);
}

TEST(ShareStateRecords, KeysAndSnapshotsRoundTrip) {
  const ShareKey key{"orders", Uuid::from_bits(7, 9), 3};
  auto k = decode_share_key(encode_share_key(key));
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k.value(), key);
  const ShareSnapshot s = busy().snapshot();
  auto v = decode_share_snapshot(encode_share_snapshot(s));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v.value(), s);
}

TEST(ShareStateRecords, TruncatedOrUnknownRecordsAreErrors) {
  protocol::Bytes key = encode_share_key({"g", Uuid::from_bits(1, 1), 0});
  protocol::Bytes value = encode_share_snapshot(busy().snapshot());
  for (size_t n = 0; n < key.size(); ++n) {
    EXPECT_FALSE(decode_share_key(std::span(key.data(), n)).ok()) << n;
  }
  for (size_t n = 0; n < value.size(); ++n) {
    EXPECT_FALSE(decode_share_snapshot(std::span(value.data(), n)).ok()) << n;
  }
  value[1] = 9;  // a value version this build does not know
  EXPECT_FALSE(decode_share_snapshot(value).ok());
  key.push_back(0);  // trailing garbage
  EXPECT_FALSE(decode_share_key(key).ok());
}

}  // namespace
}  // namespace mirra::share
