// append_mirrored: source offsets kept, gaps, rewritten (negative) producer ids, transactions.
#include <gtest/gtest.h>

#include "log_test_util.h"

namespace mirra::storage::testing {
namespace {

using records::ControlType;

std::vector<uint8_t> mirrored(BatchSpec s) {
  if (s.producer_id >= 0) s.producer_id = records::mirrored_producer_id(s.producer_id);
  return make_batch(s);
}

TEST(MirrorAppend, KeepsOffsetsAndEpochsWithGaps) {
  TempDir dir;
  auto log = open_log(dir.path());
  auto set = concat({make_batch({.records = 2, .base_offset = 0, .leader_epoch = 3}),
                     make_batch({.records = 1, .base_offset = 10, .leader_epoch = 3}),
                     make_batch({.records = 3, .base_offset = 50, .leader_epoch = 5})});
  auto r = log->append_mirrored(set, 1000);
  ASSERT_TRUE(r) << r.status().to_string();
  EXPECT_EQ(r->first_offset, 0);
  EXPECT_EQ(r->last_offset, 52);
  EXPECT_EQ(log->log_end_offset(), 53);
  EXPECT_EQ(log->high_watermark(), 53);
  auto seen = read_all(*log);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[1], (SeenBatch{10, 10, 3, -1, false}));
  EXPECT_EQ(seen[2], (SeenBatch{50, 52, 5, -1, false}));
  EXPECT_EQ(log->leader_epochs().entries(), (std::vector<EpochEntry>{{3, 0}, {5, 50}}));
  // Reading an offset in a gap returns the next batch.
  auto gap = log->read(20, 1 << 20, ReadBound::high_watermark, true);
  ASSERT_TRUE(gap);
  EXPECT_EQ(batches_of(slurp(*gap)).front().base_offset, 50);
}

TEST(MirrorAppend, RefusesOffsetsGoingBackwards) {
  TempDir dir;
  auto log = open_log(dir.path());
  ASSERT_TRUE(log->append_mirrored(make_batch({.records = 5, .base_offset = 100}), 1));
  auto back = log->append_mirrored(make_batch({.records = 1, .base_offset = 104}), 1);
  EXPECT_FALSE(back);
  auto overlap = concat({make_batch({.base_offset = 105}), make_batch({.base_offset = 105})});
  EXPECT_FALSE(log->append_mirrored(overlap, 1));
  EXPECT_EQ(log->log_end_offset(), 105);
  auto corrupt = make_batch({.base_offset = 200});
  corrupt[corrupt.size() - 1] ^= 1;
  EXPECT_EQ(log->append_mirrored(corrupt, 1).status().code(), ErrorCode::CORRUPT_MESSAGE);
}

TEST(MirrorAppend, NoSequenceChecksAndNegativeProducerIds) {
  TempDir dir;
  auto log = open_log(dir.path());
  // Sequences that a leader would refuse (a gap) are taken as they come.
  ASSERT_TRUE(log->append_mirrored(
      mirrored({.records = 2, .producer_id = 7, .producer_epoch = 0, .base_sequence = 0}), 1));
  ASSERT_TRUE(log->append_mirrored(mirrored({.records = 2,
                                             .producer_id = 7,
                                             .producer_epoch = 0,
                                             .base_sequence = 40,
                                             .base_offset = 2}),
                                   1));
  const ProducerEntry* p = log->producer_state().find(-9);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->batches.back().last_seq, 41);
  EXPECT_EQ(log->producer_state().find(7), nullptr);
}

TEST(MirrorAppend, AbortedTransactionVisibleWithLsoBound) {
  TempDir dir;
  auto log = open_log(dir.path());
  const int64_t pid = records::mirrored_producer_id(4);  // -6
  auto txn = [&](int64_t base, int32_t seq) {
    return make_batch({.records = 2,
                       .producer_id = pid,
                       .producer_epoch = 1,
                       .base_sequence = seq,
                       .transactional = true,
                       .base_offset = base});
  };
  ASSERT_TRUE(log->append_mirrored(make_batch({.records = 2, .base_offset = 0}), 1));
  ASSERT_TRUE(log->append_mirrored(txn(2, 0), 1));
  EXPECT_EQ(log->last_stable_offset(), 2);          // held by the open transaction
  ASSERT_TRUE(log->append_mirrored(txn(6, 2), 1));  // a gap inside the transaction
  ASSERT_TRUE(log->append_mirrored(make_batch({.records = 1, .base_offset = 8}), 1));
  EXPECT_EQ(log->last_stable_offset(), 2);
  EXPECT_EQ(read_all(*log, 0, ReadBound::last_stable_offset).size(), 1u);
  ASSERT_TRUE(log->append_mirrored(make_marker(ControlType::ABORT, pid, 1, 9), 1));
  EXPECT_EQ(log->last_stable_offset(), 10);
  auto r = log->read(0, 1 << 20, ReadBound::last_stable_offset, true);
  ASSERT_TRUE(r);
  auto seen = batches_of(slurp(*r));
  ASSERT_EQ(seen.size(), 5u);
  EXPECT_TRUE(seen.back().control);
  EXPECT_EQ(seen.back().producer_id, pid);
  ASSERT_EQ(r->aborted.size(), 1u);
  EXPECT_EQ(r->aborted[0], (AbortedTxn{pid, 2, 9, 10}));
  // A fetch starting after the transaction does not see it.
  auto later = log->read(10, 1 << 20, ReadBound::last_stable_offset, true);
  ASSERT_TRUE(later);
  EXPECT_TRUE(later->aborted.empty());
}

TEST(MirrorAppend, AbortedTxnSurvivesReopen) {
  TempDir dir;
  const int64_t pid = -2;
  {
    auto log = open_log(dir.path());
    ASSERT_TRUE(log->append_mirrored(make_batch({.records = 1,
                                                 .producer_id = pid,
                                                 .producer_epoch = 0,
                                                 .base_sequence = 0,
                                                 .transactional = true,
                                                 .base_offset = 5}),
                                     1));
    ASSERT_TRUE(log->append_mirrored(make_marker(ControlType::ABORT, pid, 0, 6), 1));
    ASSERT_TRUE(log->append_mirrored(make_batch({.records = 1,
                                                 .producer_id = pid,
                                                 .producer_epoch = 0,
                                                 .base_sequence = 1,
                                                 .transactional = true,
                                                 .base_offset = 7}),
                                     1));
  }
  // Not a clean recovery point: the whole log is rescanned and the txn index rebuilt.
  auto log = open_log(dir.path());
  EXPECT_EQ(log->log_end_offset(), 8);
  EXPECT_EQ(log->last_stable_offset(), 7);
  auto r = log->read(5, 1 << 20, ReadBound::last_stable_offset, true);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->aborted.size(), 1u);
  EXPECT_EQ(r->aborted[0], (AbortedTxn{pid, 5, 6, 7}));
}

TEST(MirrorAppend, SourceMovedPastUs) {
  TempDir dir;
  auto log = open_log(dir.path());
  ASSERT_TRUE(log->append_mirrored(make_batch({.records = 5, .leader_epoch = 1}), 1));
  ASSERT_TRUE(log->truncate_fully_and_start_at(1000));
  EXPECT_EQ(log->log_start_offset(), 1000);
  EXPECT_EQ(log->log_end_offset(), 1000);
  EXPECT_TRUE(log->leader_epochs().entries().empty());
  EXPECT_EQ(log->segment_base_offsets(), (std::vector<int64_t>{1000}));
  ASSERT_TRUE(log->append_mirrored(make_batch({.records = 1, .base_offset = 1000}), 1));
  EXPECT_EQ(log->read(999, 10, ReadBound::log_end, true).status().code(),
            ErrorCode::OFFSET_OUT_OF_RANGE);
  log.reset();
  auto reopened = open_log(dir.path());
  EXPECT_EQ(reopened->log_start_offset(), 1000);
  EXPECT_EQ(reopened->log_end_offset(), 1001);
}

}  // namespace
}  // namespace mirra::storage::testing
