// PartitionLog: leader appends, reads, timestamps, rolling, flushing.
#include "storage/partition_log.h"

#include <gtest/gtest.h>

#include "log_test_util.h"
#include "protocol/records/byte_order.h"
#include "protocol/records/crc32c.h"

namespace mirra::storage::testing {
namespace {

using records::ControlType;

TEST(PartitionLog, EmptyLogOpensAtZero) {
  TempDir dir;
  auto log = open_log(dir.path());
  EXPECT_EQ(log->log_start_offset(), 0);
  EXPECT_EQ(log->log_end_offset(), 0);
  EXPECT_EQ(log->high_watermark(), 0);
  EXPECT_EQ(log->last_stable_offset(), 0);
  EXPECT_EQ(log->segment_count(), 1u);
  EXPECT_TRUE(fs::exists(dir.path() / "00000000000000000000.log"));
  auto r = log->read(0, 1000, ReadBound::high_watermark, true);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->slices.empty());
}

TEST(PartitionLog, AppendAssignsOffsetsAndEpochInPlace) {
  TempDir dir;
  auto log = open_log(dir.path());
  auto b1 = make_batch({.records = 3});
  auto r1 = log->append_as_leader(b1, 7, AppendOrigin::client, 10000);
  ASSERT_TRUE(r1);
  EXPECT_EQ(r1->first_offset, 0);
  EXPECT_EQ(r1->last_offset, 2);
  EXPECT_EQ(r1->log_append_time, -1);
  EXPECT_FALSE(r1->duplicate);
  // The caller's buffer now holds the stored bytes.
  EXPECT_EQ(records::load_be32(b1.data() + records::layout::kPartitionLeaderEpoch), 7u);
  auto r2 = append(*log, make_batch({.records = 2}), 10000, AppendOrigin::client, 8);
  EXPECT_EQ(r2.first_offset, 3);
  EXPECT_EQ(r2.last_offset, 4);
  EXPECT_EQ(log->log_end_offset(), 5);
  auto seen = read_all(*log);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], (SeenBatch{0, 2, 7, -1, false}));
  EXPECT_EQ(seen[1], (SeenBatch{3, 4, 8, -1, false}));
  ASSERT_TRUE(log->leader_epochs().latest());
  EXPECT_EQ(log->leader_epochs().entries(), (std::vector<EpochEntry>{{7, 0}, {8, 3}}));
}

TEST(PartitionLog, SeveralBatchesInOneAppend) {
  TempDir dir;
  auto log = open_log(dir.path());
  auto set = concat({make_batch({.records = 2}), make_batch({.records = 4})});
  auto r = append(*log, set);
  EXPECT_EQ(r.first_offset, 0);
  EXPECT_EQ(r.last_offset, 5);
  auto seen = read_all(*log);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].base_offset, 2);
}

TEST(PartitionLog, RejectsBadBatchesAndAppendsNothing) {
  TempDir dir;
  LogConfig c;
  c.max_message_bytes = 500;
  auto log = open_log(dir.path(), c);
  auto big = make_batch({.records = 10, .value_size = 100});
  auto r = log->append_as_leader(big, 0, AppendOrigin::client, 1);
  EXPECT_EQ(r.status().code(), ErrorCode::MESSAGE_TOO_LARGE);

  auto bad_crc = make_batch({.records = 1});
  bad_crc.back() ^= 0xff;
  auto good = make_batch({.records = 1});
  auto set = concat({good, bad_crc});
  EXPECT_EQ(log->append_as_leader(set, 0, AppendOrigin::client, 1).status().code(),
            ErrorCode::CORRUPT_MESSAGE);

  auto old_magic = make_batch({.records = 1});
  old_magic[records::layout::kMagic] = 1;
  EXPECT_FALSE(log->append_as_leader(old_magic, 0, AppendOrigin::client, 1));

  auto marker = make_marker(ControlType::COMMIT, 5, 0);
  EXPECT_EQ(log->append_as_leader(marker, 0, AppendOrigin::client, 1).status().code(),
            ErrorCode::INVALID_RECORD);

  auto cut = make_batch({.records = 2});
  cut.resize(cut.size() - 3);
  EXPECT_EQ(log->append_as_leader(cut, 0, AppendOrigin::client, 1).status().code(),
            ErrorCode::CORRUPT_MESSAGE);
  EXPECT_EQ(log->log_end_offset(), 0);
  EXPECT_EQ(log->size_bytes(), 0);
}

TEST(PartitionLog, RecordCountMustMatchLastOffsetDelta) {
  TempDir dir;
  auto log = open_log(dir.path());
  auto b = make_batch({.records = 3});
  // lastOffsetDelta 5 for 3 records: legal for a compacted batch, not from a producer.
  records::store_be32(b.data() + records::layout::kLastOffsetDelta, 5);
  records::store_be32(
      b.data() + records::layout::kCrc,
      records::crc32c(std::span<const uint8_t>(b).subspan(records::layout::kCrcStart)));
  EXPECT_EQ(log->append_as_leader(b, 0, AppendOrigin::client, 1).status().code(),
            ErrorCode::INVALID_RECORD);
}

TEST(PartitionLog, IdempotentRetryReturnsOriginalOffsets) {
  TempDir dir;
  auto log = open_log(dir.path());
  append(*log, make_batch({.records = 1}));  // offset 0, no producer
  const BatchSpec s{.records = 3, .producer_id = 42, .producer_epoch = 0, .base_sequence = 0};
  auto first = append(*log, make_batch(s));
  EXPECT_EQ(first.first_offset, 1);
  auto retry = append(*log, make_batch(s));
  EXPECT_TRUE(retry.duplicate);
  EXPECT_EQ(retry.first_offset, 1);
  EXPECT_EQ(retry.last_offset, 3);
  EXPECT_EQ(log->log_end_offset(), 4);
  BatchSpec gap = s;
  gap.base_sequence = 10;
  auto gap_batch = make_batch(gap);
  auto r = log->append_as_leader(gap_batch, 0, AppendOrigin::client, 1);
  EXPECT_EQ(r.status().code(), ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
  BatchSpec next = s;
  next.base_sequence = 3;
  EXPECT_EQ(append(*log, make_batch(next)).first_offset, 4);
}

TEST(PartitionLog, LogAppendTimeStampsAndRechecksums) {
  TempDir dir;
  LogConfig c;
  c.timestamp_type = MessageTimestampType::log_append_time;
  auto log = open_log(dir.path(), c);
  auto r = append(*log, make_batch({.records = 2, .timestamp = 5}), 777777);
  EXPECT_EQ(r.log_append_time, 777777);
  auto bytes = slurp(*log->read(0, 1 << 20, ReadBound::log_end, true));
  auto view = records::BatchView::parse(bytes);
  ASSERT_TRUE(view);
  EXPECT_TRUE(view->validate());
  EXPECT_EQ(view->timestamp_type(), records::TimestampType::log_append_time);
  EXPECT_EQ(view->max_timestamp(), 777777);
  EXPECT_EQ(log->max_timestamp_offset(), (std::pair<int64_t, int64_t>{0, 777777}));
}

TEST(PartitionLog, ReadReturnsWholeBatchesWithinLimits) {
  TempDir dir;
  auto log = open_log(dir.path());
  for (int i = 0; i < 5; ++i) append(*log, make_batch({.records = 4}));  // 0..19
  // An offset inside a batch returns that whole batch.
  auto r = log->read(6, 1 << 20, ReadBound::high_watermark, true);
  ASSERT_TRUE(r);
  auto seen = batches_of(slurp(*r));
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[0].base_offset, 4);
  // max_bytes: whole batches only, but at least one when asked.
  const int64_t one = r->total_bytes() / 4;
  auto two = log->read(0, static_cast<int32_t>(2 * one + 1), ReadBound::high_watermark, true);
  EXPECT_EQ(batches_of(slurp(*two)).size(), 2u);
  auto tiny = log->read(0, 1, ReadBound::high_watermark, true);
  EXPECT_EQ(batches_of(slurp(*tiny)).size(), 1u);
  auto none = log->read(0, 1, ReadBound::high_watermark, false);
  EXPECT_TRUE(none->slices.empty());
  // At the end: empty; past it or below the start: out of range.
  EXPECT_TRUE(log->read(20, 100, ReadBound::log_end, true)->slices.empty());
  EXPECT_EQ(log->read(21, 100, ReadBound::log_end, true).status().code(),
            ErrorCode::OFFSET_OUT_OF_RANGE);
  EXPECT_EQ(log->read(-1, 100, ReadBound::log_end, true).status().code(),
            ErrorCode::OFFSET_OUT_OF_RANGE);
}

TEST(PartitionLog, LsoHeldByOpenTransactionBoundsReads) {
  TempDir dir;
  auto log = open_log(dir.path());
  append(*log, make_batch({.records = 2}));  // 0-1
  append(*log, make_batch({.records = 2,
                           .producer_id = 9,
                           .producer_epoch = 0,
                           .base_sequence = 0,
                           .transactional = true}));  // 2-3
  append(*log, make_batch({.records = 2}));           // 4-5
  EXPECT_EQ(log->high_watermark(), 6);
  EXPECT_EQ(log->last_stable_offset(), 2);
  EXPECT_EQ(read_all(*log, 0, ReadBound::last_stable_offset).size(), 1u);
  EXPECT_EQ(read_all(*log, 0, ReadBound::high_watermark).size(), 3u);
  auto r = log->read(2, 1 << 20, ReadBound::last_stable_offset, true);
  EXPECT_TRUE(r->slices.empty());
  append(*log, make_marker(ControlType::ABORT, 9, 0), 10000, AppendOrigin::coordinator);  // 6
  EXPECT_EQ(log->last_stable_offset(), 7);
  auto all = log->read(0, 1 << 20, ReadBound::last_stable_offset, true);
  ASSERT_TRUE(all);
  EXPECT_EQ(batches_of(slurp(*all)).size(), 4u);
  ASSERT_EQ(all->aborted.size(), 1u);
  EXPECT_EQ(all->aborted[0], (AbortedTxn{9, 2, 6, 7}));
}

TEST(PartitionLog, CommitLeavesNoAbortedEntry) {
  TempDir dir;
  auto log = open_log(dir.path());
  append(*log, make_batch({.records = 2,
                           .producer_id = 3,
                           .producer_epoch = 1,
                           .base_sequence = 0,
                           .transactional = true}));
  append(*log, make_marker(ControlType::COMMIT, 3, 1), 10000, AppendOrigin::coordinator);
  auto r = log->read(0, 1 << 20, ReadBound::last_stable_offset, true);
  EXPECT_EQ(batches_of(slurp(*r)).size(), 2u);
  EXPECT_TRUE(r->aborted.empty());
}

TEST(PartitionLog, RollsBySizeAndIndexesEveryInterval) {
  TempDir dir;
  auto log = open_log(dir.path(), small_config());
  for (int i = 0; i < 40; ++i) append(*log, make_batch({.records = 2, .value_size = 100}));
  EXPECT_GE(log->segment_count(), 3u);
  for (int64_t base : log->segment_base_offsets()) {
    EXPECT_TRUE(fs::exists(segment_path(dir.path(), base, ".log")));
    EXPECT_TRUE(fs::exists(segment_path(dir.path(), base, ".index")));
    EXPECT_TRUE(fs::exists(segment_path(dir.path(), base, ".timeindex")));
    EXPECT_LE(fs::file_size(segment_path(dir.path(), base, ".log")), 4096u);
  }
  EXPECT_GT(fs::file_size(segment_path(dir.path(), 0, ".index")), 0u);
  // Every offset can be found again.
  for (int64_t o = 0; o < 80; ++o) {
    auto r = log->read(o, 1, ReadBound::log_end, true);
    ASSERT_TRUE(r);
    auto seen = batches_of(slurp(*r));
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_LE(seen[0].base_offset, o);
    EXPECT_GE(seen[0].last_offset, o);
  }
  EXPECT_EQ(read_all(*log).size(), 40u);
}

TEST(PartitionLog, RollsWhenIndexIsFull) {
  TempDir dir;
  LogConfig c;
  c.index_interval_bytes = 0;     // an entry for every batch but the first
  c.segment_index_bytes = 8 * 3;  // three offset-index entries (two time-index entries)
  auto log = open_log(dir.path(), c);
  for (int i = 0; i < 10; ++i) append(*log, make_batch({.records = 1, .timestamp = 1000 + i}));
  EXPECT_GT(log->segment_count(), 2u);
  EXPECT_EQ(read_all(*log).size(), 10u);
}

TEST(PartitionLog, RollsBySegmentMsBetweenTimestamps) {
  TempDir dir;
  LogConfig c;
  c.segment_ms = 1000;
  auto log = open_log(dir.path(), c);
  append(*log, make_batch({.timestamp = 10000}));
  append(*log, make_batch({.timestamp = 10500}));
  EXPECT_EQ(log->segment_count(), 1u);
  append(*log, make_batch({.timestamp = 11001}));
  EXPECT_EQ(log->segment_count(), 2u);
  EXPECT_EQ(log->segment_base_offsets().back(), 2);
}

TEST(PartitionLog, OffsetForTimestamp) {
  TempDir dir;
  auto log = open_log(dir.path(), small_config());
  // Batches of 4 records; batch i has timestamps 1000 + 10 i .. +3.
  for (int i = 0; i < 30; ++i)
    append(*log, make_batch({.records = 4, .timestamp = 1000 + 10 * i, .value_size = 60}));
  ASSERT_GT(log->segment_count(), 1u);
  using P = std::pair<int64_t, int64_t>;
  EXPECT_EQ(log->offset_for_timestamp(0), (P{0, 1000}));
  EXPECT_EQ(log->offset_for_timestamp(1002), (P{2, 1002}));
  EXPECT_EQ(log->offset_for_timestamp(1005), (P{4, 1010}));
  EXPECT_EQ(log->offset_for_timestamp(1000 + 10 * 17 + 3), (P{17 * 4 + 3, 1173}));
  EXPECT_EQ(log->offset_for_timestamp(1000 + 10 * 29 + 3), (P{119, 1293}));
  EXPECT_FALSE(log->offset_for_timestamp(5000));
  EXPECT_EQ(log->max_timestamp_offset(), (P{119, 1293}));
}

TEST(PartitionLog, MaxTimestampOffsetIsFirstRecordWithIt) {
  TempDir dir;
  auto log = open_log(dir.path());
  append(*log, make_batch({.records = 3, .timestamp = 100}));
  append(*log, make_batch({.records = 3, .timestamp = 50}));
  EXPECT_EQ(log->max_timestamp_offset(), (std::pair<int64_t, int64_t>{2, 102}));
}

TEST(PartitionLog, FlushMessagesAdvancesRecoveryPoint) {
  TempDir dir;
  LogConfig c;
  c.flush_messages = 1;
  auto log = open_log(dir.path(), c);
  append(*log, make_batch({.records = 3}));
  EXPECT_EQ(log->recovery_point(), 3);
  LogConfig lazy;
  auto log2 = open_log(dir.path() / "other", lazy);
  append(*log2, make_batch({.records = 3}));
  EXPECT_EQ(log2->recovery_point(), 0);
  ASSERT_TRUE(log2->flush());
  EXPECT_EQ(log2->recovery_point(), 3);
}

TEST(PartitionLog, ReopenAfterCloseKeepsEverything) {
  TempDir dir;
  {
    auto log = open_log(dir.path(), small_config());
    for (int i = 0; i < 30; ++i)
      append(*log, make_batch({.records = 2,
                               .producer_id = 1,
                               .producer_epoch = 0,
                               .base_sequence = 2 * i,
                               .value_size = 100}));
    ASSERT_TRUE(log->close());
  }
  auto log = open_log(dir.path(), small_config(), {.recovery_point = 60});
  EXPECT_EQ(log->log_end_offset(), 60);
  EXPECT_EQ(read_all(*log).size(), 30u);
  ASSERT_NE(log->producer_state().find(1), nullptr);
  EXPECT_EQ(log->producer_state().find(1)->batches.back().last_seq, 59);
  // Still appendable, sequences continue.
  auto r = append(
      *log, make_batch({.records = 1, .producer_id = 1, .producer_epoch = 0, .base_sequence = 60}));
  EXPECT_EQ(r.first_offset, 60);
}

TEST(PartitionLog, CompressedBatchesKeepTheirBytes) {
  TempDir dir;
  auto log = open_log(dir.path());
  auto batch = make_batch({.records = 10,
                           .timestamp = 500,
                           .value_size = 200,
                           .compression = records::Compression::lz4});
  const std::vector<uint8_t> payload(batch.begin() + records::layout::kCrcStart, batch.end());
  auto r = append(*log, batch);
  EXPECT_EQ(r.last_offset, 9);
  auto stored = slurp(*log->read(0, 1 << 20, ReadBound::log_end, true));
  // Only the offset and the epoch changed: the CRC-covered bytes are the producer's.
  EXPECT_EQ(std::vector<uint8_t>(stored.begin() + records::layout::kCrcStart, stored.end()),
            payload);
  EXPECT_EQ(log->offset_for_timestamp(505), (std::pair<int64_t, int64_t>{5, 505}));
  EXPECT_EQ(read_values(*log).size(), 10u);
}

TEST(PartitionLog, FlushMsFlushesOnLaterAppend) {
  TempDir dir;
  LogConfig c;
  c.flush_ms = 1000;
  auto log = open_log(dir.path(), c, {.now_ms = 0});
  append(*log, make_batch({}), 500);
  EXPECT_EQ(log->recovery_point(), 0);
  append(*log, make_batch({}), 1500);
  EXPECT_EQ(log->recovery_point(), 2);
  append(*log, make_batch({}), 1600);
  ASSERT_TRUE(log->apply_retention(2600));  // housekeeping applies flush.ms too
  EXPECT_EQ(log->recovery_point(), 3);
}

TEST(PartitionLog, FileSliceOutlivesDeletedSegment) {
  TempDir dir;
  auto log = open_log(dir.path(), small_config());
  for (int i = 0; i < 40; ++i) append(*log, make_batch({.records = 1, .value_size = 200}));
  auto r = log->read(0, 100, ReadBound::log_end, true);
  ASSERT_TRUE(r);
  ASSERT_TRUE(log->advance_log_start(30));
  EXPECT_FALSE(fs::exists(dir.path() / "00000000000000000000.log"));
  auto seen = batches_of(slurp(*r));
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].base_offset, 0);
}

}  // namespace
}  // namespace mirra::storage::testing
