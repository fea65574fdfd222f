// truncate_to, advance_log_start and retention.
#include <gtest/gtest.h>

#include "log_test_util.h"

namespace mirra::storage::testing {
namespace {

using records::ControlType;

BatchSpec txn_batch(int64_t pid, int32_t seq, int records = 2) {
  return {.records = records,
          .producer_id = pid,
          .producer_epoch = 0,
          .base_sequence = seq,
          .transactional = true};
}

TEST(Truncation, DropsBatchesIndexesAndEpochs) {
  TempDir dir;
  auto log = open_log(dir.path(), small_config());
  for (int i = 0; i < 40; ++i)
    append(*log, make_batch({.records = 2, .value_size = 100}), 1, AppendOrigin::client, i / 10);
  ASSERT_GE(log->segment_count(), 3u);
  ASSERT_TRUE(log->truncate_to(31));  // inside batch 30-31: dropped whole
  EXPECT_EQ(log->log_end_offset(), 30);
  auto seen = read_all(*log);
  ASSERT_EQ(seen.size(), 15u);
  EXPECT_EQ(seen.back().last_offset, 29);
  EXPECT_EQ(log->leader_epochs().latest()->epoch, 1);
  for (int64_t base : log->segment_base_offsets()) EXPECT_LT(base, 30);
  // Appends continue at the new end.
  EXPECT_EQ(append(*log, make_batch({.records = 1})).first_offset, 30);
  ASSERT_TRUE(log->truncate_to(0));
  EXPECT_EQ(log->log_end_offset(), 0);
  EXPECT_EQ(log->segment_count(), 1u);
  EXPECT_TRUE(log->leader_epochs().entries().empty());
}

TEST(Truncation, AtSegmentBoundaryAndAboveEnd) {
  TempDir dir;
  auto log = open_log(dir.path(), small_config());
  for (int i = 0; i < 40; ++i) append(*log, make_batch({.records = 1, .value_size = 200}));
  const auto bases = log->segment_base_offsets();
  ASSERT_TRUE(log->truncate_to(1000));  // above the end: nothing
  EXPECT_EQ(log->log_end_offset(), 40);
  ASSERT_TRUE(log->truncate_to(bases[1]));
  EXPECT_EQ(log->log_end_offset(), bases[1]);
  EXPECT_EQ(read_all(*log).back().last_offset, bases[1] - 1);
}

TEST(Truncation, RestoresProducerStateLsoAndTxnIndex) {
  TempDir dir;
  auto log = open_log(dir.path(), small_config());
  append(*log, make_batch(txn_batch(5, 0)));                                           // 0-1
  append(*log, make_marker(ControlType::ABORT, 5, 0), 1, AppendOrigin::coordinator);   // 2
  append(*log, make_batch(txn_batch(6, 0)));                                           // 3-4
  append(*log, make_batch(txn_batch(5, 2)));                                           // 5-6
  append(*log, make_marker(ControlType::ABORT, 6, 0), 1, AppendOrigin::coordinator);   // 7
  append(*log, make_marker(ControlType::COMMIT, 5, 0), 1, AppendOrigin::coordinator);  // 8
  EXPECT_EQ(log->last_stable_offset(), 9);
  EXPECT_EQ(log->read(0, 1 << 20, ReadBound::last_stable_offset, true)->aborted.size(), 2u);

  ASSERT_TRUE(log->truncate_to(7));  // the ABORT of 6 and the COMMIT of 5 are gone
  EXPECT_EQ(log->log_end_offset(), 7);
  EXPECT_EQ(log->last_stable_offset(), 3);  // both transactions open again
  auto r = log->read(0, 1 << 20, ReadBound::high_watermark, true);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->aborted.empty());  // only the LSO bound collects
  auto lso = log->read(0, 1 << 20, ReadBound::last_stable_offset, true);
  ASSERT_EQ(lso->aborted.size(), 1u);
  EXPECT_EQ(lso->aborted[0], (AbortedTxn{5, 0, 2, 3}));
  ASSERT_NE(log->producer_state().find(6), nullptr);
  EXPECT_EQ(log->producer_state().find(6)->current_txn_first_offset, 3);
  EXPECT_EQ(log->producer_state().find(5)->batches.back().last_seq, 3);

  ASSERT_TRUE(log->truncate_to(3));
  EXPECT_EQ(log->last_stable_offset(), 3);
  EXPECT_EQ(log->producer_state().find(6), nullptr);
  ASSERT_TRUE(log->truncate_to(2));  // the first ABORT goes too
  EXPECT_EQ(log->last_stable_offset(), 0);
  EXPECT_TRUE(log->read(0, 1 << 20, ReadBound::log_end, true)->aborted.empty());
  // Same again after a reopen: the state came from the log, not from memory.
  log.reset();
  log = open_log(dir.path(), small_config());
  EXPECT_EQ(log->log_end_offset(), 2);
  EXPECT_EQ(log->last_stable_offset(), 0);
}

TEST(Truncation, UsesSnapshotsAcrossSegments) {
  TempDir dir;
  auto log = open_log(dir.path(), small_config());
  for (int i = 0; i < 60; ++i)
    append(*log, make_batch({.records = 1,
                             .producer_id = 8,
                             .producer_epoch = 0,
                             .base_sequence = i,
                             .value_size = 200}));
  ASSERT_GT(log->producer_state().snapshot_offsets().size(), 1u);
  ASSERT_TRUE(log->truncate_to(45));
  EXPECT_EQ(log->producer_state().find(8)->batches.back().last_seq, 44);
  for (int64_t s : log->producer_state().snapshot_offsets()) EXPECT_LE(s, 45);
  EXPECT_EQ(
      append(*log,
             make_batch({.records = 1, .producer_id = 8, .producer_epoch = 0, .base_sequence = 45}))
          .first_offset,
      45);
}

TEST(LogStart, AdvanceDeletesWholeSegmentsBelow) {
  TempDir dir;
  auto log = open_log(dir.path(), small_config());
  for (int i = 0; i < 40; ++i)
    append(*log, make_batch({.records = 1, .value_size = 200}), 1, AppendOrigin::client, i / 20);
  const auto bases = log->segment_base_offsets();
  ASSERT_TRUE(log->advance_log_start(bases[2] + 1));
  EXPECT_EQ(log->log_start_offset(), bases[2] + 1);
  EXPECT_EQ(log->segment_base_offsets().front(), bases[2]);
  EXPECT_EQ(log->read(bases[2], 10, ReadBound::log_end, true).status().code(),
            ErrorCode::OFFSET_OUT_OF_RANGE);
  EXPECT_EQ(read_all(*log).front().base_offset, bases[2] + 1);
  EXPECT_EQ(log->advance_log_start(41).code(), ErrorCode::OFFSET_OUT_OF_RANGE);
  // Epoch 0 covered 0-19, epoch 1 starts at 20: below the new start, it is clamped.
  EXPECT_EQ(log->leader_epochs().entries(), (std::vector<EpochEntry>{{1, bases[2] + 1}}));
  ASSERT_TRUE(log->advance_log_start(25));  // lower than the start: nothing
  EXPECT_EQ(log->log_start_offset(), bases[2] + 1);
  // Truncating below the log start empties the log.
  ASSERT_TRUE(log->truncate_to(10));
  EXPECT_EQ(log->log_start_offset(), 10);
  EXPECT_EQ(log->log_end_offset(), 10);
}

TEST(Retention, ByTimeUsesLargestTimestampAndKeepsActive) {
  TempDir dir;
  LogConfig c = small_config();
  c.retention_ms = 1000;
  auto log = open_log(dir.path(), c, {.now_ms = 0});
  for (int i = 0; i < 40; ++i)
    append(*log, make_batch({.records = 1, .timestamp = 10000 + 100 * i, .value_size = 200}));
  const size_t before = log->segment_count();
  ASSERT_GE(before, 3u);
  // Segments hold 15 batches: the first one's newest record is 11400. At 12000 it is 600 ms
  // old and stays; at 12500 it is 1100 ms old and goes, the second (newest 12900) stays.
  ASSERT_TRUE(log->apply_retention(12000));
  EXPECT_EQ(log->segment_count(), before);
  ASSERT_TRUE(log->apply_retention(12500));
  EXPECT_EQ(log->segment_count(), before - 1);
  EXPECT_EQ(log->log_start_offset(), 15);
  EXPECT_EQ(read_all(*log).front().base_offset, 15);
  // Far in the future everything but the active segment goes.
  ASSERT_TRUE(log->apply_retention(1000000));
  EXPECT_EQ(log->segment_count(), 1u);
  EXPECT_EQ(log->log_end_offset(), 40);
}

TEST(Retention, BySize) {
  TempDir dir;
  LogConfig c = small_config();
  c.retention_ms = -1;
  c.retention_bytes = 8000;
  c.file_delete_delay_ms = 0;  // .deleted files go at the end of the same housekeeping call
  auto log = open_log(dir.path(), c, {.now_ms = 0});
  for (int i = 0; i < 80; ++i) append(*log, make_batch({.records = 1, .value_size = 200}));
  ASSERT_TRUE(log->apply_retention(1));
  EXPECT_LE(log->size_bytes(), 8000 + 4096);
  EXPECT_GE(log->size_bytes(), 8000 - 4096);
  EXPECT_EQ(log->log_end_offset(), 80);
  EXPECT_EQ(log->log_start_offset(), log->segment_base_offsets().front());
  for (const auto& e : fs::directory_iterator(dir.path()))
    EXPECT_FALSE(e.path().string().ends_with(".deleted")) << e.path();
}

TEST(Retention, RollsIdleActiveSegmentBySegmentMs) {
  TempDir dir;
  LogConfig c;
  c.segment_ms = 1000;
  c.retention_ms = 500;
  auto log = open_log(dir.path(), c, {.now_ms = 0});
  append(*log, make_batch({.records = 3, .timestamp = 0}));
  ASSERT_TRUE(log->apply_retention(500));
  EXPECT_EQ(log->segment_count(), 1u);
  ASSERT_TRUE(log->apply_retention(2000));  // rolled, then the old one expired
  EXPECT_EQ(log->segment_count(), 1u);
  EXPECT_EQ(log->log_start_offset(), 3);
  EXPECT_EQ(log->log_end_offset(), 3);
}

}  // namespace
}  // namespace mirra::storage::testing
