// ProducerStateManager: Kafka's idempotence and transaction rules, negative (mirrored) producer
// ids, the LSO input, snapshots and expiry.
#include "storage/producer_state.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include "log_test_util.h"

#include <atomic>
#include <climits>
#include <cstdio>
#include <deque>
#include <fstream>
#include <string>
#include <vector>

#include "protocol/records/batch_builder.h"

namespace mirra::storage {
namespace {

namespace fs = std::filesystem;
using records::ControlType;

class ProducerStateTest : public ::testing::Test {
 protected:
  // A data batch of `count` records at `offset`. Kept alive in `held_` so views stay valid.
  records::BatchView data(int64_t pid, int16_t epoch, int32_t seq, int count, int64_t offset,
                          bool txn = false, int64_t ts = 1000) {
    records::BatchOptions o;
    o.base_offset = offset;
    o.producer_id = pid;
    o.producer_epoch = epoch;
    o.base_sequence = seq;
    o.transactional = txn;
    std::vector<records::RecordInput> recs(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      recs[static_cast<size_t>(i)].value = records::as_bytes("value");
      recs[static_cast<size_t>(i)].timestamp = ts + i;
    }
    auto bytes = records::build_batch(o, recs);
    EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
    return hold(std::move(bytes).value());
  }

  records::BatchView marker(ControlType type, int64_t pid, int16_t epoch, int64_t offset,
                            int32_t coordinator_epoch = 0, int64_t ts = 2000) {
    auto bytes = records::build_control_batch(type, pid, epoch, coordinator_epoch, offset, ts);
    EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
    return hold(std::move(bytes).value());
  }

  records::BatchView hold(std::vector<uint8_t> bytes) {
    held_.push_back(std::move(bytes));
    auto view = records::BatchView::parse(held_.back());
    EXPECT_TRUE(view.ok());
    return view.value();
  }

  // Appends as the log would after a client check passed.
  void append(ProducerStateManager& m, const records::BatchView& b,
              AppendOrigin origin = AppendOrigin::client, int64_t now = 1000) {
    auto r = m.on_batch_appended(b, origin, now);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
  }

  static ErrorCode code(const Result<std::optional<BatchMetadata>>& r) {
    return r.ok() ? ErrorCode::NONE : r.status().code();
  }

  ProducerStateManager manager(int64_t expiration_ms = 3'600'000) {
    return ProducerStateManager(dir_, expiration_ms);
  }

  testing::TempDir tmp_;
  fs::path dir_ = tmp_.path();
  std::deque<std::vector<uint8_t>> held_;  // deque: views into earlier batches stay valid
};

TEST_F(ProducerStateTest, NoProducerIdIsNeverChecked) {
  auto m = manager();
  auto b = data(kNoProducerId, -1, -1, 3, 0);
  auto r = m.check_client_batch(b);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
  append(m, b);
  EXPECT_TRUE(m.producers().empty());
  EXPECT_EQ(m.map_end_offset(), 3);
}

TEST_F(ProducerStateTest, UnknownProducerMayStartAtAnySequence) {
  // Kafka since KIP-360: no state is not an error (state may have expired with the producer alive).
  auto m = manager();
  auto b = data(5, 0, 42, 2, 0);
  EXPECT_EQ(code(m.check_client_batch(b)), ErrorCode::NONE);
  append(m, b);
  EXPECT_EQ(code(m.check_client_batch(data(5, 0, 44, 1, 2))), ErrorCode::NONE);
  EXPECT_EQ(code(m.check_client_batch(data(5, 0, 45, 1, 2))),
            ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
}

TEST_F(ProducerStateTest, SequenceMustFollowTheLastBatch) {
  auto m = manager();
  append(m, data(1, 0, 0, 5, 0));
  EXPECT_EQ(code(m.check_client_batch(data(1, 0, 5, 1, 5))), ErrorCode::NONE);
  EXPECT_EQ(code(m.check_client_batch(data(1, 0, 7, 1, 5))),
            ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
  EXPECT_EQ(code(m.check_client_batch(data(1, 0, 3, 1, 5))),
            ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
  EXPECT_EQ(code(m.check_client_batch(data(1, 0, -1, 1, 5))), ErrorCode::INVALID_RECORD);
}

TEST_F(ProducerStateTest, DuplicateOfEachOfTheLastFiveBatches) {
  auto m = manager();
  for (int i = 0; i < 6; ++i) append(m, data(1, 0, 2 * i, 2, 10 * i));  // seqs 0-1 .. 10-11
  ASSERT_EQ(m.find(1)->batches.size(), kCachedBatchesPerProducer);
  for (int i = 1; i < 6; ++i) {
    auto r = m.check_client_batch(data(1, 0, 2 * i, 2, 999));
    ASSERT_TRUE(r.ok()) << i << ": " << r.status().to_string();
    ASSERT_TRUE(r->has_value()) << i;
    EXPECT_EQ((*r)->first_seq, 2 * i);
    EXPECT_EQ((*r)->last_seq, 2 * i + 1);
    EXPECT_EQ((*r)->first_offset, 10 * i);
    EXPECT_EQ((*r)->last_offset, 10 * i + 1);
  }
  // The sixth-newest batch fell out of the cache: no longer recognised.
  EXPECT_EQ(code(m.check_client_batch(data(1, 0, 0, 2, 999))),
            ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
  // Same first sequence, different last: not a duplicate.
  EXPECT_EQ(code(m.check_client_batch(data(1, 0, 10, 1, 999))),
            ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
}

TEST_F(ProducerStateTest, EpochBumpRestartsSequences) {
  auto m = manager();
  append(m, data(1, 0, 0, 3, 0));
  EXPECT_EQ(code(m.check_client_batch(data(1, 1, 5, 1, 3))),
            ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
  auto bump = data(1, 1, 0, 1, 3);
  EXPECT_EQ(code(m.check_client_batch(bump)), ErrorCode::NONE);
  append(m, bump);
  EXPECT_EQ(m.find(1)->epoch, 1);
  EXPECT_EQ(m.find(1)->batches.size(), 1u);  // the old epoch's batches are gone
  EXPECT_EQ(code(m.check_client_batch(data(1, 0, 3, 1, 4))), ErrorCode::INVALID_PRODUCER_EPOCH);
  // A retry from the fenced epoch is not answered as a duplicate.
  EXPECT_EQ(code(m.check_client_batch(data(1, 0, 0, 3, 4))), ErrorCode::INVALID_PRODUCER_EPOCH);
  EXPECT_EQ(code(m.check_client_batch(data(1, 1, 1, 1, 4))), ErrorCode::NONE);
}

TEST_F(ProducerStateTest, SequenceWrapsAtInt32Max) {
  auto m = manager();
  auto b = data(1, 0, INT32_MAX - 1, 3, 0);  // sequences MAX-1, MAX, 0
  append(m, b);
  EXPECT_EQ(m.find(1)->batches.back().last_seq, 0);
  EXPECT_EQ(code(m.check_client_batch(data(1, 0, 1, 1, 3))), ErrorCode::NONE);
  auto dup = m.check_client_batch(data(1, 0, INT32_MAX - 1, 3, 99));
  ASSERT_TRUE(dup.ok() && dup->has_value());

  auto m2 = manager();
  append(m2, data(2, 0, INT32_MAX - 1, 2, 0));  // ends exactly at MAX
  EXPECT_EQ(code(m2.check_client_batch(data(2, 0, 0, 1, 2))), ErrorCode::NONE);
  EXPECT_EQ(code(m2.check_client_batch(data(2, 0, 1, 1, 2))),
            ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
}

TEST_F(ProducerStateTest, TransactionalFlagMustMatchTheOpenTransaction) {
  auto m = manager();
  append(m, data(3, 0, 0, 2, 0, /*txn=*/true));
  EXPECT_EQ(code(m.check_client_batch(data(3, 0, 2, 1, 2, false))), ErrorCode::INVALID_TXN_STATE);
  EXPECT_EQ(code(m.check_client_batch(data(3, 0, 2, 1, 2, true))), ErrorCode::NONE);
  EXPECT_EQ(code(m.check_client_batch(marker(ControlType::COMMIT, 3, 0, 2))),
            ErrorCode::INVALID_RECORD);
}

TEST_F(ProducerStateTest, NegativeProducerIdsOpenCommitAndAbort) {
  auto m = manager();
  append(m, data(-2, 4, 0, 2, 10, true), AppendOrigin::replication);
  append(m, data(-7, 0, 0, 1, 12, true), AppendOrigin::replication);
  append(m, data(-2, 4, 2, 1, 13, true), AppendOrigin::replication);  // same txn goes on
  EXPECT_EQ(m.find(-2)->current_txn_first_offset, 10);
  EXPECT_EQ(m.first_unstable_offset(), 10);

  auto commit =
      m.on_batch_appended(marker(ControlType::COMMIT, -2, 4, 14), AppendOrigin::replication, 1);
  ASSERT_TRUE(commit.ok() && commit->has_value());
  EXPECT_EQ((*commit)->producer_id, -2);
  EXPECT_EQ((*commit)->first_offset, 10);
  EXPECT_EQ((*commit)->last_offset, 14);
  EXPECT_FALSE((*commit)->aborted);
  EXPECT_EQ(m.first_unstable_offset(), 12);

  auto abort =
      m.on_batch_appended(marker(ControlType::ABORT, -7, 0, 15), AppendOrigin::replication, 1);
  ASSERT_TRUE(abort.ok() && abort->has_value());
  EXPECT_EQ(**abort, (CompletedTxn{-7, 12, 15, true}));
  EXPECT_EQ(m.first_unstable_offset(), std::nullopt);
  EXPECT_EQ(m.map_end_offset(), 16);

  // A new transaction of -7 opens at its own first batch.
  append(m, data(-7, 0, 1, 1, 16, true), AppendOrigin::replication);
  EXPECT_EQ(m.first_unstable_offset(), 16);
}

TEST_F(ProducerStateTest, FirstUnstableOffsetIsTheOldestOpenTransaction) {
  auto m = manager();
  append(m, data(10, 0, 0, 1, 5, true));
  append(m, data(11, 0, 0, 1, 6, true));
  append(m, data(12, 0, 0, 1, 7, true));
  EXPECT_EQ(m.first_unstable_offset(), 5);
  append(m, marker(ControlType::ABORT, 11, 0, 8), AppendOrigin::coordinator);
  EXPECT_EQ(m.first_unstable_offset(), 5);
  append(m, marker(ControlType::COMMIT, 10, 0, 9), AppendOrigin::coordinator);
  EXPECT_EQ(m.first_unstable_offset(), 7);
  append(m, marker(ControlType::COMMIT, 12, 0, 10), AppendOrigin::coordinator);
  EXPECT_EQ(m.first_unstable_offset(), std::nullopt);
}

TEST_F(ProducerStateTest, MarkerWithoutOpenTransactionCompletesNothing) {
  auto m = manager();
  append(m, data(4, 0, 0, 1, 0));
  auto r =
      m.on_batch_appended(marker(ControlType::ABORT, 4, 2, 1, 7), AppendOrigin::coordinator, 1);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
  EXPECT_EQ(m.find(4)->epoch, 2);  // the marker's epoch bump is still recorded
  EXPECT_EQ(m.find(4)->coordinator_epoch, 7);
  EXPECT_TRUE(m.find(4)->batches.empty());
}

TEST_F(ProducerStateTest, StaleMarkerRefusedForCoordinatorButNotForReplication) {
  auto m = manager();
  append(m, data(6, 3, 0, 1, 0, true));
  auto stale = marker(ControlType::COMMIT, 6, 2, 1);
  EXPECT_EQ(m.check_marker(stale).code(), ErrorCode::INVALID_PRODUCER_EPOCH);
  auto refused = m.on_batch_appended(stale, AppendOrigin::coordinator, 1);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::INVALID_PRODUCER_EPOCH);
  EXPECT_EQ(m.find(6)->current_txn_first_offset, 0);  // untouched
  EXPECT_EQ(m.map_end_offset(), 1);

  auto replicated = m.on_batch_appended(stale, AppendOrigin::replication, 1);
  ASSERT_TRUE(replicated.ok() && replicated->has_value());
  EXPECT_EQ(m.first_unstable_offset(), std::nullopt);
}

TEST_F(ProducerStateTest, MarkerFromAnOlderCoordinatorIsFenced) {
  auto m = manager();
  append(m, data(6, 0, 0, 1, 0, true));
  append(m, marker(ControlType::COMMIT, 6, 0, 1, /*coordinator_epoch=*/5),
         AppendOrigin::coordinator);
  append(m, data(6, 0, 1, 1, 2, true));
  auto zombie = marker(ControlType::ABORT, 6, 0, 3, /*coordinator_epoch=*/4);
  EXPECT_EQ(m.check_marker(zombie).code(), ErrorCode::TRANSACTION_COORDINATOR_FENCED);
  EXPECT_FALSE(m.on_batch_appended(zombie, AppendOrigin::coordinator, 1).ok());
  EXPECT_EQ(m.check_marker(marker(ControlType::ABORT, 6, 0, 3, 5)).code(), ErrorCode::NONE);
}

TEST_F(ProducerStateTest, SnapshotRoundTrip) {
  auto m = manager();
  for (int i = 0; i < 7; ++i)
    append(m, data(1, 2, 3 * i, 3, 3 * i, false, 100 + i), AppendOrigin::client, 500 + i);
  append(m, data(-9, 1, 0, 2, 21, true, 300), AppendOrigin::replication, 600);
  append(m, data(8, 0, 0, 1, 23, true), AppendOrigin::client, 700);
  append(m, marker(ControlType::ABORT, 8, 0, 24, 3), AppendOrigin::coordinator, 701);
  ASSERT_EQ(m.map_end_offset(), 25);
  ASSERT_TRUE(m.take_snapshot().ok());
  EXPECT_TRUE(fs::exists(dir_ / "00000000000000000025.snapshot"));
  EXPECT_EQ(m.snapshot_offsets(), std::vector<int64_t>{25});

  auto loaded = manager();
  auto from = loaded.reload_from_snapshot(100, 0);
  ASSERT_TRUE(from.ok()) << from.status().to_string();
  EXPECT_EQ(*from, 25);
  EXPECT_EQ(loaded.map_end_offset(), 25);
  ASSERT_EQ(loaded.producers().size(), m.producers().size());
  for (const auto& [pid, e] : m.producers()) {
    const ProducerEntry* l = loaded.find(pid);
    ASSERT_NE(l, nullptr) << pid;
    EXPECT_EQ(l->epoch, e.epoch);
    EXPECT_EQ(l->coordinator_epoch, e.coordinator_epoch);
    EXPECT_EQ(l->last_timestamp, e.last_timestamp);
    EXPECT_EQ(l->last_update_ms, e.last_update_ms);
    EXPECT_EQ(l->current_txn_first_offset, e.current_txn_first_offset);
    ASSERT_EQ(l->batches.size(), e.batches.size());
    for (size_t i = 0; i < e.batches.size(); ++i) {
      EXPECT_EQ(l->batches[i].first_seq, e.batches[i].first_seq);
      EXPECT_EQ(l->batches[i].last_seq, e.batches[i].last_seq);
      EXPECT_EQ(l->batches[i].first_offset, e.batches[i].first_offset);
      EXPECT_EQ(l->batches[i].last_offset, e.batches[i].last_offset);
      EXPECT_EQ(l->batches[i].max_timestamp, e.batches[i].max_timestamp);
    }
  }
  EXPECT_EQ(loaded.find(1)->batches.size(), kCachedBatchesPerProducer);
  EXPECT_EQ(loaded.first_unstable_offset(), 21);
  // Duplicate detection works from loaded state.
  auto dup = loaded.check_client_batch(data(1, 2, 18, 3, 0));
  ASSERT_TRUE(dup.ok() && dup->has_value());
  EXPECT_EQ((*dup)->first_offset, 18);
}

class ProducerSnapshotFiles : public ProducerStateTest {
 protected:
  // Producer 1 appends one 10-record batch per step; a snapshot after each (at 10, 20, 30).
  void three_snapshots(ProducerStateManager& m) {
    for (int i = 0; i < 3; ++i) {
      append(m, data(1, 0, 10 * i, 10, 10 * i));
      ASSERT_TRUE(m.take_snapshot().ok());
    }
    ASSERT_EQ(m.snapshot_offsets(), (std::vector<int64_t>{10, 20, 30}));
  }
  fs::path snapshot(int64_t offset) {
    char name[64];
    std::snprintf(name, sizeof name, "%020lld.snapshot", static_cast<long long>(offset));
    return dir_ / name;
  }
};

TEST_F(ProducerSnapshotFiles, CorruptSnapshotIsSkippedAndDeleted) {
  auto m = manager();
  three_snapshots(m);
  {  // flip one byte in the body of the newest snapshot
    std::fstream f(snapshot(30), std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(20);
    char c = 0;
    f.read(&c, 1);
    f.seekp(20);
    c = static_cast<char>(c ^ 0x40);
    f.write(&c, 1);
  }
  fs::resize_file(snapshot(20), 9);  // and truncate the next one
  auto loaded = manager();
  auto from = loaded.reload_from_snapshot(30, 0);
  ASSERT_TRUE(from.ok()) << from.status().to_string();
  EXPECT_EQ(*from, 10);
  EXPECT_EQ(loaded.find(1)->batches.back().last_seq, 9);
  EXPECT_EQ(loaded.snapshot_offsets(), std::vector<int64_t>{10});
}

TEST_F(ProducerSnapshotFiles, UnknownVersionIsTreatedAsCorrupt) {
  auto m = manager();
  three_snapshots(m);
  {
    std::fstream f(snapshot(30), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(1);
    f.put(static_cast<char>(99));
  }
  auto loaded = manager();
  EXPECT_EQ(loaded.reload_from_snapshot(100, 0).value(), 20);
}

TEST_F(ProducerSnapshotFiles, ReloadPicksTheNewestAtOrBelowTheOffset) {
  auto m = manager();
  three_snapshots(m);
  auto loaded = manager();
  EXPECT_EQ(loaded.reload_from_snapshot(25, 0).value(), 20);
  EXPECT_EQ(loaded.map_end_offset(), 20);
  EXPECT_EQ(loaded.find(1)->batches.back().last_seq, 19);
  EXPECT_EQ(loaded.reload_from_snapshot(30, 0).value(), 30);
  // Below every snapshot: empty state at the log start.
  EXPECT_EQ(loaded.reload_from_snapshot(9, 0).value(), 0);
  EXPECT_TRUE(loaded.producers().empty());
  // A snapshot below the log start is unusable: its data is gone.
  EXPECT_EQ(loaded.reload_from_snapshot(15, 12).value(), 12);
  EXPECT_TRUE(loaded.producers().empty());
  EXPECT_EQ(loaded.map_end_offset(), 12);
  EXPECT_EQ(loaded.snapshot_offsets().size(), 3u);  // reload deletes nothing that is valid
}

TEST_F(ProducerSnapshotFiles, DeleteAboveAndBelow) {
  auto m = manager();
  three_snapshots(m);
  std::ofstream(dir_ / "00000000000000000040.snapshot.tmp") << "left by a crash";
  std::ofstream(dir_ / "unrelated.txt") << "x";
  m.delete_snapshots_above(20);
  EXPECT_EQ(m.snapshot_offsets(), (std::vector<int64_t>{10, 20}));
  m.delete_snapshots_below(20);
  EXPECT_EQ(m.snapshot_offsets(), std::vector<int64_t>{20});
  EXPECT_TRUE(fs::exists(dir_ / "unrelated.txt"));
}

TEST_F(ProducerStateTest, ExpiryKeepsOpenTransactionsAndRecentProducers) {
  auto m = manager(/*expiration_ms=*/1000);
  append(m, data(1, 0, 0, 1, 0), AppendOrigin::client, 10'000);        // idle
  append(m, data(2, 0, 0, 1, 1, true), AppendOrigin::client, 10'000);  // idle, txn open
  append(m, data(3, 0, 0, 1, 2), AppendOrigin::client, 10'900);        // recent
  m.remove_expired(10'999);
  EXPECT_EQ(m.producers().size(), 3u);
  m.remove_expired(11'000);
  EXPECT_EQ(m.find(1), nullptr);
  EXPECT_NE(m.find(2), nullptr);
  EXPECT_NE(m.find(3), nullptr);
  EXPECT_EQ(m.first_unstable_offset(), 1);
  m.clear();
  EXPECT_TRUE(m.producers().empty());
  EXPECT_EQ(m.first_unstable_offset(), std::nullopt);
  EXPECT_EQ(m.map_end_offset(), 3);
}

}  // namespace
}  // namespace mirra::storage
