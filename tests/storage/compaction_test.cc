// Log compaction: latest record per key with offsets kept, tombstones and markers until their
// delete horizon, aborted data removed, nothing at or above the LSO touched, producer state
// intact, crash-safe swaps, compact,delete, keyless records refused, delayed file deletion.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "log_test_util.h"
#include "storage/compaction.h"

namespace mirra::storage::testing {
namespace {

using records::Compression;

struct Rec {
  std::optional<std::string> key;
  std::optional<std::string> value;  // nullopt = tombstone
};

struct KeyedOpts {
  int64_t timestamp = 1000;
  int64_t producer_id = -1;
  int16_t epoch = -1;
  int32_t sequence = -1;
  bool transactional = false;
  Compression compression = Compression::none;
};

std::vector<uint8_t> keyed(const std::vector<Rec>& recs, const KeyedOpts& o = {}) {
  records::BatchOptions b;
  b.producer_id = o.producer_id;
  b.producer_epoch = o.epoch;
  b.base_sequence = o.sequence;
  b.transactional = o.transactional;
  b.compression = o.compression;
  std::vector<records::RecordInput> in(recs.size());
  for (size_t i = 0; i < recs.size(); ++i) {
    if (recs[i].key) in[i].key = records::as_bytes(*recs[i].key);
    if (recs[i].value) in[i].value = records::as_bytes(*recs[i].value);
    in[i].timestamp = o.timestamp + static_cast<int64_t>(i);
  }
  auto out = records::build_batch(b, in);
  EXPECT_TRUE(out) << out.status().to_string();
  return std::move(out).value();
}

struct Seen {
  int64_t offset;
  std::string key;
  std::optional<std::string> value;
  bool operator==(const Seen&) const = default;
};

struct LogView {
  std::vector<Seen> records;  // data records only
  std::vector<records::BatchView> batches;
  std::vector<uint8_t> bytes;  // backs `batches`
  int control_records_at(int64_t offset) const {
    for (const auto& b : batches)
      if (b.is_control() && b.base_offset() == offset) return b.record_count();
    return 0;
  }
};

LogView view_log(const PartitionLog& log) {
  LogView v;
  auto r = log.read(log.log_start_offset(), 1 << 24, ReadBound::log_end, true);
  EXPECT_TRUE(r);
  v.bytes = slurp(*r);
  records::RecordSetIterator it(v.bytes, /*validate=*/true);
  records::BatchView b;
  std::vector<uint8_t> scratch;
  while (it.next(b) == records::RecordSetStep::batch) {
    v.batches.push_back(b);
    if (b.is_control()) continue;
    EXPECT_TRUE(records::for_each_record(b, scratch, [&](const records::RecordView& rec) {
      std::optional<std::string> value;
      if (rec.value) value = std::string(records::as_string(*rec.value));
      v.records.push_back({b.base_offset() + rec.offset_delta,
                           std::string(records::as_string(rec.key.value_or(records::Bytes{}))),
                           value});
      return Status();
    }));
  }
  return v;
}

// What compaction must leave: below `bound`, the latest record of each key; the rest as is.
std::vector<Seen> expected_after(const std::vector<Seen>& all, int64_t bound) {
  std::map<std::string, int64_t> latest;
  for (const Seen& s : all)
    if (s.offset < bound) latest[s.key] = s.offset;
  std::vector<Seen> out;
  for (const Seen& s : all)
    if (s.offset >= bound || latest[s.key] == s.offset) out.push_back(s);
  return out;
}

LogConfig compact_config() {
  LogConfig c;
  c.segment_bytes = 1024;
  c.index_interval_bytes = 128;
  c.cleanup_compact = true;
  c.cleanup_delete = false;
  c.delete_retention_ms = 1000;
  return c;
}

// 5 keys overwritten round after round, one record per batch: many segments of duplicates.
void fill(PartitionLog& log, int rounds, int keys = 5, int64_t ts = 1000) {
  for (int r = 0; r < rounds; ++r)
    for (int k = 0; k < keys; ++k)
      append(log, keyed({{"f" + std::to_string(k), "r" + std::to_string(r)}}, {.timestamp = ts}));
}

int64_t active_base(const PartitionLog& log) { return log.segment_base_offsets().back(); }

TEST(Compaction, KeepsLatestPerKeyWithOffsets) {
  TempDir dir;
  auto log = open_log(dir.path(), compact_config());
  fill(*log, 20);
  const auto before = view_log(*log);
  const int64_t bound = active_base(*log);
  const size_t segments = log->segment_count();
  ASSERT_GT(segments, 3u);
  ASSERT_TRUE(log->compact(10000));
  const auto after = view_log(*log);
  EXPECT_EQ(after.records, expected_after(before.records, bound));
  EXPECT_EQ(log->log_end_offset(), 100);
  // A read from inside a gap starts at the next batch that is there.
  auto r = log->read(1, 1 << 20, ReadBound::log_end, true);
  ASSERT_TRUE(r);
  auto seen = batches_of(slurp(*r));
  ASSERT_FALSE(seen.empty());
  EXPECT_GE(seen.front().last_offset, 1);
  // A second pass merges the now small segments (groups are sized by their files, as in
  // Kafka) and removes nothing more; reopening (every batch re-checked) gives the same log.
  ASSERT_TRUE(log->compact(10000));
  EXPECT_EQ(view_log(*log).records, after.records);
  EXPECT_LT(log->segment_count(), segments);
  log.reset();
  log = open_log(dir.path(), compact_config());
  EXPECT_EQ(view_log(*log).records, after.records);
  EXPECT_EQ(log->log_end_offset(), 100);
  append(*log, keyed({{"f0", "new"}}));
  EXPECT_EQ(log->log_end_offset(), 101);
}

TEST(Compaction, TombstonesStayUntilDeleteHorizon) {
  TempDir dir;
  auto log = open_log(dir.path(), compact_config());
  append(*log, keyed({{"a", "1"}, {"b", "1"}}));
  append(*log, keyed({{"a", std::nullopt}}));  // offset 2: tombstone
  fill(*log, 12);
  ASSERT_TRUE(log->compact(5000));
  auto v = view_log(*log);
  ASSERT_FALSE(v.records.empty());
  EXPECT_EQ(v.records[0], (Seen{1, "b", "1"}));
  EXPECT_EQ(v.records[1], (Seen{2, "a", std::nullopt}));
  for (const auto& b : v.batches)
    if (b.base_offset() == 2) {
      EXPECT_TRUE(b.has_delete_horizon());
      EXPECT_EQ(b.base_timestamp(), 5000 + 1000);
    }
  ASSERT_TRUE(log->compact(5999));  // before the horizon
  EXPECT_EQ(view_log(*log).records[1], (Seen{2, "a", std::nullopt}));
  ASSERT_TRUE(log->compact(6000));
  v = view_log(*log);
  EXPECT_EQ(v.records[0], (Seen{1, "b", "1"}));
  EXPECT_NE(v.records[1].key, "a");
}

TEST(Compaction, MinCompactionLag) {
  TempDir dir;
  LogConfig c = compact_config();
  c.min_compaction_lag_ms = 5000;
  auto log = open_log(dir.path(), c);
  fill(*log, 10, 5, /*ts=*/10000);
  const auto before = view_log(*log);
  ASSERT_TRUE(log->compact(12000));  // every sealed segment is younger than the lag
  EXPECT_EQ(view_log(*log).records, before.records);
  ASSERT_TRUE(log->compact(16000));
  EXPECT_EQ(view_log(*log).records, expected_after(before.records, active_base(*log)));
}

class CompressedCompaction : public ::testing::TestWithParam<Compression> {};

TEST_P(CompressedCompaction, BatchesStayCompressed) {
  TempDir dir;
  LogConfig c = compact_config();
  auto log = open_log(dir.path(), c);
  for (int r = 0; r < 40; ++r)
    append(*log, keyed({{"x", "v" + std::to_string(r)},
                        {"y" + std::to_string(r), "w"},
                        {"x", "u" + std::to_string(r)}},
                       {.compression = GetParam()}));
  const auto before = view_log(*log);
  const int64_t bound = active_base(*log);
  ASSERT_TRUE(log->compact(10000));
  const auto after = view_log(*log);
  EXPECT_EQ(after.records, expected_after(before.records, bound));
  bool rebuilt = false;
  for (const auto& b : after.batches) {
    EXPECT_EQ(b.compression(), GetParam());
    EXPECT_EQ(b.last_offset_delta(), 2);  // lastOffsetDelta survives removed records
    rebuilt |= b.record_count() < 3;
  }
  EXPECT_TRUE(rebuilt);
}

INSTANTIATE_TEST_SUITE_P(Codecs, CompressedCompaction,
                         ::testing::Values(Compression::lz4, Compression::zstd));

void marker(PartitionLog& log, records::ControlType type, int64_t pid) {
  append(log, make_marker(type, pid, 0), 10000, AppendOrigin::coordinator);
}

TEST(Compaction, TransactionsAbortedDataGoesMarkersAfterHorizon) {
  TempDir dir;
  auto log = open_log(dir.path(), compact_config());
  using records::ControlType;
  const KeyedOpts p7{.producer_id = 7, .epoch = 0, .sequence = 0, .transactional = true};
  append(*log, keyed({{"k1", "a"}, {"k2", "a"}}, p7));  // 0-1
  marker(*log, ControlType::COMMIT, 7);                 // 2
  KeyedOpts p8{.producer_id = 8, .epoch = 0, .sequence = 0, .transactional = true};
  append(*log, keyed({{"k3", "x"}, {"k1", "x"}}, p8));  // 3-4
  marker(*log, ControlType::ABORT, 8);                  // 5
  KeyedOpts p7b = p7;
  p7b.sequence = 2;
  append(*log, keyed({{"k5", "z"}}, p7b));  // 6
  marker(*log, ControlType::COMMIT, 7);     // 7
  KeyedOpts p8b = p8;
  p8b.sequence = 2;
  append(*log, keyed({{"k6", "z"}}, p8b));  // 8
  marker(*log, ControlType::COMMIT, 8);     // 9
  append(*log, keyed({{"k1", "b"}}));       // 10
  append(*log, keyed({{"k2", "b"}}));       // 11
  fill(*log, 12);
  ASSERT_EQ(log->last_stable_offset(), log->log_end_offset());

  ASSERT_TRUE(log->compact(5000));
  auto v = view_log(*log);
  for (const Seen& s : v.records) {
    EXPECT_NE(s.key, "k3");  // aborted
    if (s.key == "k1") {
      EXPECT_EQ(s.value, "b");
    }
  }
  EXPECT_EQ(v.records[0], (Seen{6, "k5", "z"}));
  EXPECT_EQ(v.control_records_at(2), 1);  // its data was still there in this pass
  EXPECT_EQ(v.control_records_at(5), 1);
  // Second pass: no data left for either marker: stamped with a horizon, still there.
  ASSERT_TRUE(log->compact(5000));
  v = view_log(*log);
  EXPECT_EQ(v.control_records_at(2), 1);
  EXPECT_EQ(v.control_records_at(5), 1);
  for (const auto& b : v.batches)
    if (b.base_offset() == 2 || b.base_offset() == 5) {
      EXPECT_TRUE(b.has_delete_horizon());
    }
  ASSERT_TRUE(log->compact(6000));
  v = view_log(*log);
  EXPECT_EQ(v.control_records_at(2), 0);
  EXPECT_EQ(v.control_records_at(5), 0);
  EXPECT_EQ(v.control_records_at(7), 1);  // guards k5
  // read_committed still sees k5, k6 and the latest k1/k2.
  auto rc = log->read(0, 1 << 20, ReadBound::last_stable_offset, true);
  ASSERT_TRUE(rc);
  for (const AbortedTxn& t : rc->aborted) EXPECT_NE(t.producer_id, 7);
}

TEST(Compaction, OpenTransactionNotCompactedPastLso) {
  TempDir dir;
  auto log = open_log(dir.path(), compact_config());
  fill(*log, 6);  // 0-29
  append(*log, keyed({{"t", "open"}},
                     {.producer_id = 9, .epoch = 0, .sequence = 0, .transactional = true}));  // 30
  fill(*log, 10);
  const int64_t lso = log->last_stable_offset();
  ASSERT_EQ(lso, 30);
  const auto before = view_log(*log);
  ASSERT_TRUE(log->compact(10000));
  const auto after = view_log(*log);
  // Only segments wholly below the LSO were cleaned: every record from the segment holding
  // offset 30 on is still there.
  int64_t first_kept_segment = 0;
  for (int64_t base : log->segment_base_offsets())
    if (base <= lso) first_kept_segment = base;
  for (const Seen& s : before.records)
    if (s.offset >= first_kept_segment) {
      EXPECT_NE(std::find(after.records.begin(), after.records.end(), s), after.records.end())
          << s.offset;
    }
  EXPECT_LT(after.records.size(), before.records.size());
  EXPECT_EQ(log->last_stable_offset(), 30);
}

TEST(Compaction, IdempotentProducerStateSurvivesCompactionAndReopen) {
  TempDir dir;
  auto log = open_log(dir.path(), compact_config());
  for (int i = 0; i < 5; ++i)
    append(*log, keyed({{"a", "p" + std::to_string(i)}},
                       {.producer_id = 11, .epoch = 0, .sequence = i}));  // 0-4
  append(*log, keyed({{"a", "later"}}));  // supersedes the producer's last record
  fill(*log, 12);
  ASSERT_TRUE(log->compact(10000));
  auto v = view_log(*log);
  bool empty_kept = false;
  for (const auto& b : v.batches)
    if (b.producer_id() == 11) {
      EXPECT_EQ(b.base_offset(), 4);  // only the producer's last batch, emptied
      EXPECT_EQ(b.record_count(), 0);
      EXPECT_EQ(b.base_sequence(), 4);
      empty_kept = true;
    }
  EXPECT_TRUE(empty_kept);
  log.reset();
  for (const auto& e : fs::directory_iterator(dir.path()))  // force a replay from the log
    if (e.path().extension() == ".snapshot") fs::remove(e.path());
  log = open_log(dir.path(), compact_config());
  const ProducerEntry* p = log->producer_state().find(11);
  ASSERT_NE(p, nullptr);
  ASSERT_FALSE(p->batches.empty());
  EXPECT_EQ(p->batches.back().last_seq, 4);
  // A retry of sequence 4 is a duplicate; sequence 5 is next.
  auto retry = keyed({{"a", "p4"}}, {.producer_id = 11, .epoch = 0, .sequence = 4});
  auto dup = log->append_as_leader(retry, 0, AppendOrigin::client, 20000);
  ASSERT_TRUE(dup);
  EXPECT_TRUE(dup->duplicate);
  append(*log, keyed({{"a", "p5"}}, {.producer_id = 11, .epoch = 0, .sequence = 5}), 20000);
}

// Leaves the prepared (.cleaned) files of a compaction in the directory without installing it.
std::vector<CleanedGroup> prepare_only(PartitionLog& log, int64_t now) {
  auto plan = log.prepare_compaction(now);
  EXPECT_TRUE(plan) << plan.status().to_string();
  EXPECT_FALSE(plan->groups.empty());
  return plan->groups;
}

fs::path with(const fs::path& dir, int64_t base, std::string_view kind, std::string_view suffix) {
  auto p = segment_path(dir, base, kind);
  p += suffix;
  return p;
}

TEST(CompactionCrash, CleanedFilesAreRolledBack) {
  TempDir dir;
  auto log = open_log(dir.path(), compact_config());
  fill(*log, 12);
  const auto before = view_log(*log);
  auto groups = prepare_only(*log, 10000);
  EXPECT_TRUE(fs::exists(with(dir.path(), groups[0].base_offset, ".log", kCleanedSuffix)));
  // A commit cut short: some index files already .swap, the .log still .cleaned.
  fs::rename(with(dir.path(), groups[0].base_offset, ".index", kCleanedSuffix),
             with(dir.path(), groups[0].base_offset, ".index", kSwapSuffix));
  log.reset();
  log = open_log(dir.path(), compact_config());
  EXPECT_EQ(view_log(*log).records, before.records);
  for (const auto& e : fs::directory_iterator(dir.path())) {
    EXPECT_FALSE(e.path().string().ends_with(".cleaned")) << e.path();
    EXPECT_FALSE(e.path().string().ends_with(".swap")) << e.path();
  }
}

// Commits every group by hand (the .cleaned -> .swap renames), then `extra` for a later step.
void commit_by_hand(const fs::path& dir, const std::vector<CleanedGroup>& groups) {
  for (const auto& g : groups)
    for (std::string_view kind : {".txnindex", ".timeindex", ".index", ".log"})
      if (fs::exists(with(dir, g.base_offset, kind, kCleanedSuffix)))
        fs::rename(with(dir, g.base_offset, kind, kCleanedSuffix),
                   with(dir, g.base_offset, kind, kSwapSuffix));
}

TEST(CompactionCrash, CommittedSwapIsFinished) {
  TempDir dir;
  auto log = open_log(dir.path(), compact_config());
  fill(*log, 12);
  const auto before = view_log(*log);
  const int64_t bound = active_base(*log);
  auto groups = prepare_only(*log, 10000);
  log.reset();
  commit_by_hand(dir.path(), groups);
  log = open_log(dir.path(), compact_config());
  EXPECT_EQ(view_log(*log).records, expected_after(before.records, bound));
  EXPECT_EQ(log->segment_base_offsets().front(), groups[0].base_offset);
}

TEST(CompactionCrash, SwapCutBetweenRenamesIsFinished) {
  TempDir dir;
  auto log = open_log(dir.path(), compact_config());
  fill(*log, 12);
  const auto before = view_log(*log);
  const int64_t bound = active_base(*log);
  auto groups = prepare_only(*log, 10000);
  log.reset();
  commit_by_hand(dir.path(), groups);
  // Group 0: old segments retired, indexes already under their final names, .log still .swap.
  const auto& g = groups[0];
  for (int64_t base : g.replaced)
    for (std::string_view kind : {".txnindex", ".timeindex", ".index", ".log"})
      if (fs::exists(segment_path(dir.path(), base, kind)))
        fs::rename(segment_path(dir.path(), base, kind), with(dir.path(), base, kind, ".deleted"));
  for (std::string_view kind : {".timeindex", ".index"})
    fs::rename(with(dir.path(), g.base_offset, kind, kSwapSuffix),
               segment_path(dir.path(), g.base_offset, kind));
  log = open_log(dir.path(), compact_config());
  EXPECT_EQ(view_log(*log).records, expected_after(before.records, bound));
}

TEST(Compaction, StalePlanIsDropped) {
  TempDir dir;
  auto log = open_log(dir.path(), compact_config());
  fill(*log, 12);
  auto plan = log->prepare_compaction(10000);
  ASSERT_TRUE(plan);
  ASSERT_FALSE(plan->groups.empty());
  const int64_t base = plan->groups[0].base_offset;
  ASSERT_TRUE(log->truncate_to(40));
  auto installed = log->install_compaction(std::move(plan.value()));
  ASSERT_TRUE(installed);
  EXPECT_FALSE(*installed);
  EXPECT_FALSE(fs::exists(with(dir.path(), base, ".log", kCleanedSuffix)));
  EXPECT_EQ(view_log(*log).records.size(), 40u);
}

TEST(Compaction, CompactDeleteAppliesRetentionToo) {
  TempDir dir;
  LogConfig c = compact_config();
  c.cleanup_delete = true;
  c.retention_ms = 5000;
  auto log = open_log(dir.path(), c);
  fill(*log, 8, 5, /*ts=*/1000);  // old: deleted by retention
  fill(*log, 8, 5, /*ts=*/9000);  // recent: compacted
  const auto before = view_log(*log);
  ASSERT_TRUE(log->compact(10000));
  EXPECT_GT(log->log_start_offset(), 0);
  std::vector<Seen> remaining;
  for (const Seen& s : before.records)
    if (s.offset >= log->log_start_offset()) remaining.push_back(s);
  EXPECT_EQ(view_log(*log).records, expected_after(remaining, active_base(*log)));
}

TEST(Compaction, KeylessRecordRefusedOnCompactedTopic) {
  TempDir dir;
  auto log = open_log(dir.path(), compact_config());
  for (Compression codec : {Compression::none, Compression::zstd}) {
    auto batch = keyed({{"k", "v"}, {std::nullopt, "v"}}, {.compression = codec});
    auto r = log->append_as_leader(batch, 0, AppendOrigin::client, 1000);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.status().code(), ErrorCode::INVALID_RECORD);
  }
  EXPECT_EQ(log->log_end_offset(), 0);
  append(*log, keyed({{"k", "v"}}));
  LogConfig del = compact_config();
  del.cleanup_compact = false;
  del.cleanup_delete = true;
  log->update_config(del);
  append(*log, keyed({{std::nullopt, "v"}}));  // fine on a delete-only topic
}

TEST(SegmentDeletion, FilesGoAfterFileDeleteDelay) {
  TempDir dir;
  LogConfig c = small_config();
  c.retention_ms = 1000;
  c.file_delete_delay_ms = 60000;
  auto log = open_log(dir.path(), c, {.now_ms = 0});
  for (int i = 0; i < 40; ++i) append(*log, make_batch({.records = 1, .value_size = 200}));
  ASSERT_TRUE(log->apply_retention(1000000));
  EXPECT_FALSE(fs::exists(dir.path() / "00000000000000000000.log"));
  EXPECT_TRUE(fs::exists(dir.path() / "00000000000000000000.log.deleted"));  // delay not over
  ASSERT_TRUE(log->close());
  EXPECT_FALSE(fs::exists(dir.path() / "00000000000000000000.log.deleted"));
}

}  // namespace
}  // namespace mirra::storage::testing
