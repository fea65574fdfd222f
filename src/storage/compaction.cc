// prepare_compaction: the offset map, the grouping of segments and the rewriting of each group
// into ".cleaned" files (Kafka's Cleaner.doClean / cleanSegments / cleanInto).
#include "storage/compaction.h"

#include <algorithm>
#include <climits>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/log.h"
#include "storage/compaction_internal.h"
#include "storage/producer_state.h"

namespace mirra::storage {
namespace {

constexpr std::string_view kMirraLogComponent = "storage";
using compaction::BatchReader;
using compaction::TxnTracker;

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// key -> offset of its latest record in the cleanable range. Exact keys rather than Kafka's
// fixed-size MD5 table: no collisions to reason about; memory grows with distinct keys.
struct OffsetMap {
  std::unordered_map<std::string, int64_t, StringHash, std::equal_to<>> latest;
  int64_t latest_offset = -1;  // last offset of the range
};

Status build_offset_map(const CompactionInput& in, OffsetMap& map) {
  TxnTracker txns(in.aborted);
  std::vector<uint8_t> scratch;
  for (const CompactionSegment& seg : in.segments) {
    BatchReader reader(*seg.file, seg.size);
    for (;;) {
      auto b = reader.next();
      if (!b) return b.status();
      if (!*b) break;
      const records::BatchView& batch = **b;
      map.latest_offset = std::max(map.latest_offset, batch.last_offset());
      if (batch.is_control()) {
        std::optional<AbortedTxn> unused;
        if (auto r = txns.on_control(batch, scratch, unused); !r) return r.status();
        continue;
      }
      if (txns.on_data(batch)) continue;  // aborted: its keys must not shadow older records
      Status st = records::for_each_record(batch, scratch, [&](const records::RecordView& r) {
        if (r.key)
          map.latest[std::string(records::as_string(*r.key))] = batch.base_offset() +
                                                                r.offset_delta;
        return Status();
      });
      if (!st) return st;
    }
  }
  return Status();
}

// Consecutive non-empty segments whose total fits segment.bytes, the index bounds and int32
// relative offsets: each group becomes one segment. Empty segments split groups and stay as
// they are, so a group's offset range holds exactly its segments (what recovery relies on).
std::vector<std::vector<const CompactionSegment*>> group_segments(const CompactionInput& in) {
  std::vector<std::vector<const CompactionSegment*>> groups;
  std::vector<const CompactionSegment*> cur;
  int64_t bytes = 0, entries = 0;
  const int64_t max_entries =
      std::min(in.config.max_offset_index_entries(), in.config.max_time_index_entries());
  auto close_group = [&] {
    if (!cur.empty()) groups.push_back(std::move(cur));
    cur.clear();
    bytes = entries = 0;
  };
  for (const CompactionSegment& seg : in.segments) {
    if (seg.size == 0) {
      close_group();
      continue;
    }
    if (!cur.empty() &&
        (bytes + seg.size > in.config.segment_bytes || entries + seg.index_entries > max_entries ||
         seg.next_offset - 1 - cur.front()->base_offset > INT32_MAX))
      close_group();
    cur.push_back(&seg);
    bytes += seg.size;
    entries += seg.index_entries;
  }
  close_group();
  return groups;
}

int64_t saturating_add(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

// Rewrites one group. The output is opened lazily: a single-segment group whose batches all
// stay as they are is not rewritten at all (the common case for an already compacted log).
class GroupCleaner {
 public:
  GroupCleaner(const CompactionInput& in, const OffsetMap& map, TxnTracker& txns,
               std::vector<const CompactionSegment*> group, CompactionStats& stats)
      : in_(in),
        map_(map),
        txns_(txns),
        group_(std::move(group)),
        stats_(stats),
        end_offset_(group_.back()->next_offset) {}
  ~GroupCleaner() {
    if (out_) (void)out_->remove();  // not handed over by finish(): failed or abandoned
  }

  // The cleaned group, or nullopt when nothing changed.
  Result<std::optional<CleanedGroup>> run();

 private:
  Status process(const records::BatchView& b, const CompactionSegment& seg, int64_t position);
  Status filter_records(const records::BatchView& b, bool& all_kept, bool& tombstone);
  bool last_of_producer(const records::BatchView& b) const;
  // Opens the output, first copying the batches before `position` of the group's first
  // segment (the unchanged prefix so far).
  Status changed(const CompactionSegment& seg, int64_t position);
  Status write(std::span<const uint8_t> bytes);

  const CompactionInput& in_;
  const OffsetMap& map_;
  TxnTracker& txns_;
  std::vector<const CompactionSegment*> group_;
  CompactionStats& stats_;
  int64_t end_offset_;
  std::unique_ptr<LogSegment> out_;
  std::vector<AbortedTxn> kept_aborts_;
  std::vector<uint8_t> scratch_;
  std::vector<records::RecordView> kept_;
};

Result<std::optional<CleanedGroup>> GroupCleaner::run() {
  for (const CompactionSegment* seg : group_) {
    // Merging segments is a change in itself.
    if (seg != group_.front()) {
      if (Status st = changed(*group_.front(), group_.front()->size); !st) return st;
    }
    BatchReader reader(*seg->file, seg->size);
    for (;;) {
      auto b = reader.next();
      if (!b) return b.status();
      if (!*b) break;
      if (Status st = process(**b, *seg, reader.position()); !st) return st;
    }
  }
  if (!out_) return std::optional<CleanedGroup>();
  for (const AbortedTxn& t : kept_aborts_) {
    if (Status st = out_->txn_index().append(t); !st) return st;
  }
  // Records the final largest timestamp in the time index and fsyncs every file.
  if (Status st = out_->on_become_inactive(); !st) return st;
  CleanedGroup g;
  g.base_offset = group_.front()->base_offset;
  for (const CompactionSegment* seg : group_) g.replaced.push_back(seg->base_offset);
  g.size = out_->size();
  stats_.bytes_written += g.size;
  out_.reset();  // closes the files; they stay as .cleaned for install
  return std::optional<CleanedGroup>(std::move(g));
}

Status GroupCleaner::changed(const CompactionSegment& seg, int64_t position) {
  if (out_) return Status();
  auto out = LogSegment::create(in_.dir, group_.front()->base_offset, in_.config, in_.now_ms,
                                kCleanedSuffix);
  if (!out) return out.status();
  out_ = std::move(out.value());
  BatchReader prefix(*seg.file, position);
  for (;;) {
    auto b = prefix.next();
    if (!b) return b.status();
    if (!*b) return Status();
    if (Status st = out_->append(**b); !st) return st;
  }
}

Status GroupCleaner::write(std::span<const uint8_t> bytes) {
  auto view = records::BatchView::parse(bytes);
  if (!view) return view.status();
  return out_->append(*view);
}

bool GroupCleaner::last_of_producer(const records::BatchView& b) const {
  if (b.producer_id() == kNoProducerId) return false;
  auto it = in_.producers.find(b.producer_id());
  if (it == in_.producers.end()) return false;
  if (it->second.last_data_offset) return b.last_offset() == *it->second.last_data_offset;
  return b.is_control() && b.producer_epoch() == it->second.epoch;
}

// Kafka's shouldRetainRecord: the latest record of its key; a tombstone only until the batch's
// delete horizon. Keyless records cannot be compacted and go (appends refuse them anyway).
Status GroupCleaner::filter_records(const records::BatchView& b, bool& all_kept, bool& tombstone) {
  const bool horizon_passed = b.has_delete_horizon() && b.base_timestamp() <= in_.now_ms;
  return records::for_each_record(b, scratch_, [&](const records::RecordView& r) {
    const int64_t offset = b.base_offset() + r.offset_delta;
    bool keep = offset > map_.latest_offset;
    if (!keep && r.key) {
      auto it = map_.latest.find(records::as_string(*r.key));
      keep = (it == map_.latest.end() || offset >= it->second) && (r.value || !horizon_passed);
    }
    if (keep) {
      kept_.push_back(r);
      tombstone |= !r.value;
    } else {
      all_kept = false;
    }
    return Status();
  });
}

Status GroupCleaner::process(const records::BatchView& b, const CompactionSegment& seg,
                             int64_t position) {
  ++stats_.batches_read;
  stats_.records_read += b.record_count();
  stats_.bytes_read += static_cast<int64_t>(b.size());
  std::optional<AbortedTxn> abort_entry;
  bool can_discard = false;
  if (b.is_control()) {
    auto r = txns_.on_control(b, scratch_, abort_entry);
    if (!r) return r.status();
    can_discard = *r;
  } else {
    can_discard = txns_.on_data(b);
  }
  if (abort_entry) kept_aborts_.push_back(*abort_entry);
  // Markers piggy-back on the tombstone horizon: one whose transaction has no data left goes
  // once a cleaning stamped it and the horizon passed.
  const bool discard_records = b.is_control() ? can_discard && b.has_delete_horizon() &&
                                                    b.base_timestamp() <= in_.now_ms
                                              : can_discard;
  // Kept even if emptied: the last batch of a live producer (sequence, epoch), and the group's
  // last batch (the new segment must end where the old ones did).
  const bool retain_empty = last_of_producer(b) || b.next_offset() == end_offset_;

  kept_.clear();
  bool all_kept = true, tombstone = false;
  if (discard_records) {
    all_kept = b.record_count() == 0;
  } else if (b.is_control()) {
    Status st = records::for_each_record(b, scratch_, [&](const records::RecordView& r) {
      kept_.push_back(r);
      return Status();
    });
    if (!st) return st;
  } else if (Status st = filter_records(b, all_kept, tombstone); !st) {
    return st;
  }
  stats_.records_removed += b.record_count() - static_cast<int64_t>(kept_.size());

  if (kept_.empty()) {
    if (!retain_empty) return changed(seg, position);  // dropped
    if (b.record_count() == 0) return out_ ? write(b.bytes()) : Status();
    if (Status st = changed(seg, position); !st) return st;
    return write(compaction::empty_batch(b));
  }
  const bool marker_without_data = b.is_control() && can_discard;
  const bool stamp = (tombstone || marker_without_data) && !b.has_delete_horizon();
  if (all_kept && !stamp) return out_ ? write(b.bytes()) : Status();
  if (Status st = changed(seg, position); !st) return st;
  std::optional<int64_t> horizon;
  if (stamp) horizon = saturating_add(in_.now_ms, in_.config.delete_retention_ms);
  else if (b.has_delete_horizon()) horizon = b.base_timestamp();
  auto rebuilt = compaction::rebuild_batch(b, kept_, horizon);
  if (!rebuilt) return rebuilt.status();
  return write(*rebuilt);
}

}  // namespace

Result<CompactionPlan> prepare_compaction(const CompactionInput& in) {
  CompactionPlan plan;
  plan.dir = in.dir;
  plan.generation = in.generation;
  if (in.segments.empty()) return plan;
  OffsetMap map;
  if (Status st = build_offset_map(in, map); !st) return st;
  TxnTracker txns(in.aborted);
  for (auto& group : group_segments(in)) {
    GroupCleaner cleaner(in, map, txns, std::move(group), plan.stats);
    auto done = cleaner.run();
    if (!done) {
      discard_compaction(plan);
      return done.status();
    }
    if (*done) plan.groups.push_back(std::move(**done));
  }
  MIRRA_LOG_DEBUG("{}: compaction prepared: {} groups rewritten, {} of {} records removed",
                  in.dir.string(), plan.groups.size(), plan.stats.records_removed,
                  plan.stats.records_read);
  return plan;
}

void discard_compaction(const CompactionPlan& plan) {
  std::error_code ec;
  for (const CleanedGroup& g : plan.groups)
    for (std::string_view kind : compaction::kKinds)
      std::filesystem::remove(compaction::file_path(plan.dir, g.base_offset, kind, kCleanedSuffix),
                              ec);
}

}  // namespace mirra::storage
