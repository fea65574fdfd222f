#include "storage/recovery.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <utility>
#include <vector>

#include "base/log.h"
#include "protocol/records/byte_order.h"
#include "protocol/records/record_set.h"
#include "storage/compaction.h"
#include "storage/durable_file.h"

namespace mirra::storage {
namespace {

constexpr std::string_view kMirraLogComponent = "storage";
namespace fs = std::filesystem;
namespace layout = records::layout;

// ---- files -------------------------------------------------------------------------------------

bool ends_with(const std::string& s, std::string_view suffix) { return s.ends_with(suffix); }

// Interrupted deletes and atomic writes leave *.deleted and *.tmp behind; index files whose
// .log is gone belong to a segment that was being deleted.
Status remove_leftovers(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> doomed;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const fs::path& p = entry.path();
    const std::string name = p.filename().string();
    if (ends_with(name, ".deleted") || ends_with(name, durable::kTempSuffix)) {
      doomed.push_back(p);
      continue;
    }
    for (std::string_view suffix : {".index", ".timeindex", ".txnindex"}) {
      auto base = parse_segment_name(p, suffix);
      if (base && !fs::exists(segment_path(dir, *base, ".log"))) doomed.push_back(p);
    }
  }
  if (ec) return durable::io_error("list", dir, ec.value());
  for (const auto& p : doomed) {
    MIRRA_LOG_INFO("removing leftover file {}", p.string());
    fs::remove(p, ec);
  }
  return Status();
}

std::vector<int64_t> list_segment_bases(const fs::path& dir) {
  std::vector<int64_t> bases;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (auto base = parse_segment_name(entry.path(), ".log")) bases.push_back(*base);
  std::sort(bases.begin(), bases.end());
  return bases;
}

// ---- scanning ----------------------------------------------------------------------------------

struct ScanResult {
  int64_t valid_end = 0;    // position after the last good batch
  bool bad = false;         // a bad batch starts at valid_end
  std::string why;          // what was wrong with it
  int64_t next_offset = 0;  // after the last good batch
};

// Validates one batch at `pos`: parse (length, magic), validate (CRC32C, counts), and offsets
// that ascend and fit the segment's int32 relative offsets.
Result<records::BatchView> check_batch(std::span<const uint8_t> data, int64_t pos, int64_t min_base,
                                       int64_t segment_base) {
  auto view = records::BatchView::parse(data.subspan(static_cast<size_t>(pos)));
  if (!view) return view.status();
  if (Status st = view->validate(); !st) return st;
  if (view->base_offset() < min_base || view->last_offset() - segment_base > INT32_MAX)
    return Status(ErrorCode::CORRUPT_MESSAGE,
                  "batch offset " + std::to_string(view->base_offset()) +
                      " out of order (expected at least " + std::to_string(min_base) + ")");
  return view;
}

// Scans a segment from position 0, rebuilding its offset and time indexes from every good batch
// and, with `replay`, also its aborted-txn index, the epoch cache and producer state; stops at
// the first bad batch.
Result<ScanResult> scan_segment(PartitionLog::Impl& log, LogSegment& seg, int64_t min_base,
                                int64_t now_ms, bool replay) {
  auto mapped = MappedFile::map(seg.file()->path(), seg.size());
  if (!mapped) return mapped.status();
  const auto data = mapped->bytes();
  if (Status st = seg.reset_indexes(); !st) return st;
  if (replay) {
    if (Status st = seg.txn_index().truncate_to(seg.base_offset()); !st) return st;
  }
  ScanResult r;
  r.next_offset = std::max(min_base, seg.base_offset());
  while (r.valid_end < static_cast<int64_t>(data.size())) {
    auto view = check_batch(data, r.valid_end, r.next_offset, seg.base_offset());
    if (!view) {
      r.bad = true;
      r.why = view.status().message();
      break;
    }
    const BatchHeader h{
        r.valid_end,         static_cast<int32_t>(view->size()), view->base_offset(),
        view->last_offset(), view->partition_leader_epoch(),     view->max_timestamp()};
    if (Status st = seg.index_batch(h); !st) return st;
    r.valid_end = h.end_position();
    r.next_offset = h.next_offset();
    if (!replay) continue;
    if (h.leader_epoch >= 0) {
      if (Status st = log.epochs->assign(h.leader_epoch, h.base_offset); !st) return st;
    }
    if (h.next_offset() > log.producers.map_end_offset()) {
      auto done = log.producers.on_batch_appended(*view, AppendOrigin::replication, now_ms);
      if (!done) return done.status();
      if (*done && (*done)->aborted) {
        const int64_t lso = log.producers.first_unstable_offset().value_or(h.next_offset());
        const AbortedTxn txn{(*done)->producer_id, (*done)->first_offset, (*done)->last_offset,
                             lso};
        if (Status st = seg.txn_index().append(txn); !st) return st;
      }
    }
  }
  return r;
}

// After a bad batch: a valid batch later in this segment or at the start of a later one means
// the damage is in the middle of the log.
Status check_torn_tail(const PartitionLog::Impl& log, const LogSegment& seg, const ScanResult& r) {
  auto mapped = MappedFile::map(seg.file()->path(), seg.size());
  if (!mapped) return mapped.status();
  std::optional<int64_t> found = find_valid_batch(mapped->bytes(), r.valid_end + 1, r.next_offset);
  fs::path where = seg.file()->path();
  for (auto it = log.segments.upper_bound(seg.base_offset()); !found && it != log.segments.end();
       ++it) {
    auto later = MappedFile::map(it->second->file()->path(), it->second->size());
    if (!later) return later.status();
    auto view = check_batch(later->bytes(), 0, r.next_offset, it->first);
    if (it->second->size() > 0 && view) {
      found = 0;
      where = it->second->file()->path();
    }
  }
  if (!found) return Status();
  return {ErrorCode::CORRUPT_MESSAGE,
          fmt::format("{}: corrupt batch at position {} (expected offset >= {}): {}; valid data "
                      "follows at position {} of {}. This is not a torn write: refusing to open "
                      "the partition rather than drop acknowledged records",
                      seg.file()->path().string(), r.valid_end, r.next_offset, r.why, *found,
                      where.string())};
}

// ---- loading -----------------------------------------------------------------------------------

// A trusted segment: indexes as they are (rebuilt if unusable) and a tail read.
Status load_clean_segment(PartitionLog::Impl& log, LogSegment& seg, bool indexes_valid,
                          int64_t now_ms) {
  if (indexes_valid) {
    if (Status st = seg.load_tail(); st) return Status();
    MIRRA_LOG_WARN("{}: indexes disagree with the log, rebuilding them",
                   seg.file()->path().string());
  }
  // Only the offset and time indexes are rebuilt: producer state, epochs and the txn index of
  // a trusted segment are already right.
  auto r = scan_segment(log, seg, seg.base_offset(), now_ms, false);
  if (!r) return r.status();
  if (r->bad)
    return {ErrorCode::CORRUPT_MESSAGE,
            fmt::format("{}: corrupt batch at position {} below the recovery point: {}",
                        seg.file()->path().string(), r->valid_end, r->why)};
  return Status();
}

// Drops the torn tail of `seg` and every segment after it (they hold no valid batch).
Status cut_torn_tail(PartitionLog::Impl& log, LogSegment& seg, const ScanResult& r) {
  MIRRA_LOG_WARN("{}: torn tail at position {} ({} bytes after offset {}): {}; truncating",
                 seg.file()->path().string(), r.valid_end, seg.size() - r.valid_end,
                 r.next_offset - 1, r.why);
  if (Status st = seg.file()->truncate(r.valid_end); !st) return st;
  while (log.segments.rbegin()->first > seg.base_offset()) {
    const int64_t base = log.segments.rbegin()->first;
    MIRRA_LOG_WARN("removing segment {} after the torn tail", base);
    if (Status st = log.segments.rbegin()->second->remove(); !st) return st;
    log.segments.erase(base);
  }
  return Status();
}

// Steps 4-5 for the segments from `first` on.
Status recover_segments(PartitionLog::Impl& log, int64_t first, int64_t now_ms) {
  int64_t min_base = 0;
  if (auto it = log.segments.find(first); it != log.segments.begin())
    min_base = std::prev(it)->second->next_offset();
  for (auto it = log.segments.find(first); it != log.segments.end(); ++it) {
    LogSegment& seg = *it->second;
    ++log.recovered_segments;
    auto r = scan_segment(log, seg, min_base, now_ms, true);
    if (!r) return r.status();
    if (r->bad) {
      if (Status st = check_torn_tail(log, seg, *r); !st) return st;
      if (Status st = cut_torn_tail(log, seg, *r); !st) return st;
    }
    if (Status st = seg.flush(); !st) return st;
    if (r->bad) break;
    min_base = seg.next_offset();
  }
  return Status();
}

Status load_segments(PartitionLog::Impl& log, const std::vector<int64_t>& bases,
                     const LogOpenOptions& options, int64_t now_ms) {
  // The first segment to scan: the one holding the recovery point; the last one also when its
  // tail does not end exactly at the recovery point (a clean close leaves it there).
  int64_t first_dirty = INT64_MAX;
  for (size_t i = 0; i < bases.size(); ++i) {
    bool indexes_valid = false;
    auto seg = LogSegment::open(log.dir, bases[i], log.config, now_ms, indexes_valid);
    if (!seg) return seg.status();
    LogSegment& s = *seg.value();
    log.segments.emplace(bases[i], std::move(seg.value()));
    if (first_dirty != INT64_MAX) continue;
    const bool last = i + 1 == bases.size();
    if (options.clean_shutdown) {
      // Every segment was closed whole: trusted like those below the recovery point.
      if (Status st = load_clean_segment(log, s, indexes_valid, now_ms); !st) return st;
      continue;
    }
    const bool below = last ? bases[i] < options.recovery_point
                            : bases[i + 1] <= options.recovery_point;
    if (!below) {
      first_dirty = bases[i];
      continue;
    }
    if (last) {
      // Data above the recovery point may be torn: anything but a tail that ends exactly at
      // the recovery point (a clean close) means a scan.
      if (!indexes_valid || !s.load_tail() || s.next_offset() != options.recovery_point)
        first_dirty = bases[i];
      continue;
    }
    if (Status st = load_clean_segment(log, s, indexes_valid, now_ms); !st) return st;
  }
  const int64_t replay_to = first_dirty == INT64_MAX ? log.active().next_offset() : first_dirty;
  auto from = log.producers.reload_from_snapshot(replay_to, log.log_start);
  if (!from) return from.status();
  if (Status st = replay_producer_state(log, *from, replay_to, now_ms); !st) return st;
  if (first_dirty != INT64_MAX) return recover_segments(log, first_dirty, now_ms);
  return Status();
}

}  // namespace

// ---- MappedFile --------------------------------------------------------------------------------

Result<MappedFile> MappedFile::map(const std::filesystem::path& path, int64_t size) {
  MappedFile m;
  if (size <= 0) return m;
  // The mapping needs no descriptor once made: this one is closed at once, outside the cache.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return durable::io_error("open", path, errno);
  void* p = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_SHARED, fd, 0);
  const int err = errno;
  ::close(fd);
  if (p == MAP_FAILED) return durable::io_error("mmap", path, err);
  ::madvise(p, static_cast<size_t>(size), MADV_SEQUENTIAL);
  m.data_ = static_cast<const uint8_t*>(p);
  m.size_ = static_cast<size_t>(size);
  return m;
}

MappedFile::MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

std::optional<int64_t> find_valid_batch(std::span<const uint8_t> data, int64_t from,
                                        int64_t min_base_offset) {
  const auto n = static_cast<int64_t>(data.size());
  for (int64_t q = std::max<int64_t>(from, 0); q + static_cast<int64_t>(layout::kHeaderSize) <= n;
       ++q) {
    const uint8_t* p = data.data() + q;
    // Cheap filters first: magic byte, a length that fits, an offset that could come next.
    if (p[layout::kMagic] != records::kMagicV2) continue;
    const auto length = static_cast<int32_t>(records::load_be32(p + layout::kBatchLength));
    if (length < layout::kMinBatchLength ||
        q + static_cast<int64_t>(layout::kLogOverhead) + length > n)
      continue;
    if (static_cast<int64_t>(records::load_be64(p + layout::kBaseOffset)) < min_base_offset)
      continue;
    auto view = records::BatchView::parse(data.subspan(static_cast<size_t>(q)));
    if (view && view->validate()) return q;
  }
  return std::nullopt;
}

// ---- entry points ------------------------------------------------------------------------------

Status replay_producer_state(PartitionLog::Impl& log, int64_t from, int64_t to, int64_t now_ms) {
  if (from >= to) {
    log.producers.set_map_end_offset(std::max(log.producers.map_end_offset(), to));
    return Status();
  }
  for (auto it = log.floor_segment(from); it != log.segments.end() && it->first < to; ++it) {
    const LogSegment& seg = *it->second;
    auto mapped = MappedFile::map(seg.file()->path(), seg.size());
    if (!mapped) return mapped.status();
    records::RecordSetIterator batches(mapped->bytes());
    records::BatchView view;
    while (batches.next(view) == records::RecordSetStep::batch) {
      if (view.base_offset() >= to) break;
      if (view.next_offset() <= from) continue;
      auto done = log.producers.on_batch_appended(view, AppendOrigin::replication, now_ms);
      if (!done) return done.status();
    }
  }
  log.producers.set_map_end_offset(to);
  return Status();
}

Status load_log(PartitionLog::Impl& log, const LogOpenOptions& options, int64_t now_ms) {
  std::error_code ec;
  fs::create_directories(log.dir, ec);
  if (ec) return durable::io_error("mkdir", log.dir, ec.value());
  // A compaction swap cut by a crash is finished or undone first: it decides which segment
  // files exist at all (and leaves .deleted files for the next step).
  if (Status st = recover_swaps(log.dir); !st) return st;
  if (Status st = remove_leftovers(log.dir); !st) return st;
  auto epochs = LeaderEpochCache::open(log.dir / "leader-epoch-checkpoint");
  if (!epochs) return epochs.status();
  log.epochs.emplace(std::move(epochs.value()));

  std::vector<int64_t> bases = list_segment_bases(log.dir);
  if (bases.empty()) {
    const int64_t start = std::max<int64_t>(options.log_start_offset.value_or(0), 0);
    auto seg = LogSegment::create(log.dir, start, log.config, now_ms);  // files only
    if (!seg) return seg.status();
    if (Status st = durable::fsync_dir(log.dir); !st) return st;
    bases.push_back(start);
  }
  log.log_start = std::max(options.log_start_offset.value_or(bases.front()), bases.front());
  if (Status st = load_segments(log, bases, options, now_ms); !st) return st;

  log.leo = log.active().next_offset();
  log.log_start = std::min(log.log_start, log.leo);
  log.recovery_point = log.leo;  // scanned segments were fsynced
  log.producers.delete_snapshots_above(log.leo);
  if (Status st = log.epochs->truncate_from_end(log.leo); !st) return st;
  if (Status st = log.epochs->truncate_from_start(log.log_start); !st) return st;
  log.last_flush_ms = now_ms;
  MIRRA_LOG_DEBUG("opened {}: {} segments, log start {}, log end {}", log.dir.string(),
                  log.segments.size(), log.log_start, log.leo);
  return Status();
}

}  // namespace mirra::storage
