// PartitionLog: open/close, flushing, rolling and the accessors. Appends are in
// partition_log_append.cc, reads in partition_log_read.cc, truncation and retention in
// partition_log_truncate.cc, recovery in recovery.cc.
#include "storage/partition_log.h"

#include <algorithm>

#include "base/clock.h"
#include "base/log.h"
#include "storage/durable_file.h"
#include "storage/partition_log_impl.h"
#include "storage/recovery.h"

namespace mirra::storage {
namespace {
constexpr std::string_view kMirraLogComponent = "storage";
}  // namespace

// ---- Impl helpers ------------------------------------------------------------------------------

std::map<int64_t, std::unique_ptr<LogSegment>>::const_iterator PartitionLog::Impl::floor_segment(
    int64_t offset) const {
  auto it = segments.upper_bound(offset);
  return it == segments.begin() ? it : std::prev(it);
}

int64_t PartitionLog::Impl::first_unstable_or_leo() const {
  return std::min(producers.first_unstable_offset().value_or(leo), leo);
}

Status PartitionLog::Impl::roll(int64_t base, int64_t now_ms) {
  LogSegment& old = active();
  if (old.base_offset() == base && old.empty()) return Status();  // nothing to roll away from
  if (Status st = old.on_become_inactive(); !st) return st;
  auto seg = LogSegment::create(dir, base, config, now_ms);
  if (!seg) return seg.status();
  if (old.empty() && old.base_offset() != base) {
    // An empty segment (e.g. a mirror jumping over a gap) is replaced rather than kept.
    if (Status st = delete_segment(old.base_offset()); !st) return st;
  }
  segments.emplace(base, std::move(seg.value()));
  if (Status st = durable::fsync_dir(dir); !st) return st;
  // Everything before the new segment is fsynced now: on_become_inactive flushed the old one and
  // every older segment was flushed when it stopped being active.
  recovery_point = std::max(recovery_point, std::min(base, leo));
  unflushed_messages = 0;
  // Kafka snapshots producer state at every roll, so recovery replays at most one segment.
  if (producers.map_end_offset() == base) {
    if (Status st = producers.take_snapshot(); !st)
      MIRRA_LOG_WARN("{}: producer snapshot at {} failed: {}", dir.string(), base, st.to_string());
  }
  MIRRA_LOG_DEBUG("{}: rolled new segment at offset {}", dir.string(), base);
  return Status();
}

Status PartitionLog::Impl::maybe_roll(const records::BatchView& batch, int64_t now_ms) {
  LogSegment& seg = active();
  // A mirror append may jump far ahead: relative offsets must still fit in int32.
  if (seg.should_roll(config, static_cast<int64_t>(batch.size()), batch.max_timestamp(),
                      batch.last_offset()))
    return roll(batch.base_offset(), now_ms);
  return Status();
}

Status PartitionLog::Impl::after_append(const records::BatchView& batch, AppendOrigin origin,
                                        int64_t now_ms) {
  leo = batch.next_offset();
  auto done = producers.on_batch_appended(batch, origin, now_ms);
  if (!done) {
    MIRRA_LOG_ERROR("{}: producer state refused batch at {} after it was written: {}", dir.string(),
                    batch.base_offset(), done.status().to_string());
    return done.status();
  }
  if (*done && (*done)->aborted) {
    // The LSO right after the marker: Kafka stores it so a fetch can stop collecting early.
    const AbortedTxn txn{(*done)->producer_id, (*done)->first_offset, (*done)->last_offset,
                         first_unstable_or_leo()};
    if (Status st = active().txn_index().append(txn); !st) return st;
  }
  if (batch.partition_leader_epoch() >= 0) {
    const auto latest = epochs->latest();
    if (!latest || batch.partition_leader_epoch() > latest->epoch) {
      if (Status st = epochs->assign(batch.partition_leader_epoch(), batch.base_offset()); !st)
        return st;
    }
  }
  unflushed_messages += batch.record_count();
  return Status();
}

Status PartitionLog::Impl::maybe_flush(int64_t now_ms) {
  if (unflushed_messages >= config.flush_messages ||
      (config.flush_ms != LogConfig::kNoLimit && now_ms - last_flush_ms >= config.flush_ms &&
       unflushed_messages > 0))
    return flush(now_ms);
  return Status();
}

Status PartitionLog::Impl::flush(int64_t now_ms, bool indexes) {
  for (auto it = floor_segment(recovery_point); it != segments.end(); ++it) {
    if (Status st = it->second->flush(indexes); !st) return st;
  }
  recovery_point = leo;
  unflushed_messages = 0;
  last_flush_ms = now_ms;
  return Status();
}

Status PartitionLog::Impl::delete_segment(int64_t base) {
  auto it = segments.find(base);
  if (it == segments.end()) return Status();
  if (Status st = retire_segment(*it->second); !st) return st;
  segments.erase(it);
  ++generation;
  return Status();
}

Status PartitionLog::Impl::retire_segment(LogSegment& seg) {
  if (Status st = seg.mark_deleted(); !st) return st;
  // Open FileSlices keep reading through their fds either way; the delay is for readers that
  // opened the file by name (Kafka's reason) and keeps large unlinks off the caller's path.
  pending_deletes.push_back(
      {steady_ms() + std::max<int64_t>(config.file_delete_delay_ms, 0), seg.files()});
  return Status();
}

void PartitionLog::Impl::remove_due_files(bool all) {
  const int64_t now = steady_ms();
  std::error_code ec;
  std::erase_if(pending_deletes, [&](const PendingDelete& d) {
    if (!all && d.due_steady_ms > now) return false;
    for (const auto& f : d.files) std::filesystem::remove(f, ec);
    return true;
  });
}

Status PartitionLog::Impl::on_log_start_moved() {
  if (Status st = epochs->truncate_from_start(log_start); !st) return st;
  producers.delete_snapshots_below(segments.begin()->first);
  return Status();
}

// ---- PartitionLog ------------------------------------------------------------------------------

PartitionLog::PartitionLog(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

PartitionLog::~PartitionLog() {
  if (impl_ && !impl_->closed) {
    if (Status st = close(); !st)
      MIRRA_LOG_ERROR("{}: close failed: {}", impl_->dir.string(), st.to_string());
  }
}

Result<std::unique_ptr<PartitionLog>> PartitionLog::open(std::filesystem::path dir,
                                                         LogConfig config, LogOpenOptions options) {
  if (Status st = config.check(); !st) return st;
  const int64_t now = options.now_ms >= 0 ? options.now_ms : now_ms();
  auto impl = std::make_unique<Impl>(std::move(dir), config);
  if (Status st = load_log(*impl, options, now); !st) {
    impl->closed = true;
    return st;
  }
  return std::unique_ptr<PartitionLog>(new PartitionLog(std::move(impl)));
}

Status PartitionLog::flush() { return impl_->flush(now_ms()); }

Status PartitionLog::close() {
  if (impl_->closed) return Status();
  impl_->remove_due_files(/*all=*/true);
  Status st = impl_->flush(now_ms(), /*indexes=*/true);
  if (st && impl_->producers.map_end_offset() == impl_->leo) st = impl_->producers.take_snapshot();
  impl_->closed = true;
  return st;
}

int64_t ReadResult::total_bytes() const {
  int64_t n = 0;
  for (const auto& s : slices) n += s.size;
  return n;
}

int FileSlice::fd() const { return file->fd(); }

Status copy_slices(std::span<const FileSlice> slices, std::vector<uint8_t>& out) {
  const size_t start = out.size();
  int64_t total = 0;
  for (const FileSlice& slice : slices) total += slice.size;
  out.resize(start + static_cast<size_t>(total));
  size_t at = start;
  for (const FileSlice& slice : slices) {
    std::span<uint8_t> dest(out.data() + at, static_cast<size_t>(slice.size));
    if (Status s = slice.file->read_at(slice.position, dest); !s.ok()) {
      out.resize(start);
      return s;
    }
    at += static_cast<size_t>(slice.size);
  }
  return Status::OK();
}

const LogConfig& PartitionLog::config() const { return impl_->config; }

void PartitionLog::update_config(const LogConfig& config) {
  impl_->config = config;
  for (auto& [base, seg] : impl_->segments) seg->set_max_index_entries(config);
}

const ProducerStateManager& PartitionLog::producer_state() const { return impl_->producers; }
const LeaderEpochCache& PartitionLog::leader_epochs() const { return *impl_->epochs; }
int64_t PartitionLog::log_start_offset() const { return impl_->log_start; }
int64_t PartitionLog::log_end_offset() const { return impl_->leo; }
int64_t PartitionLog::high_watermark() const { return impl_->leo; }
int64_t PartitionLog::last_stable_offset() const { return impl_->first_unstable_or_leo(); }
int64_t PartitionLog::recovery_point() const { return impl_->recovery_point; }
size_t PartitionLog::segment_count() const { return impl_->segments.size(); }
const std::filesystem::path& PartitionLog::dir() const { return impl_->dir; }

size_t PartitionLog::recovered_segments() const { return impl_->recovered_segments; }

int64_t PartitionLog::size_bytes() const {
  int64_t n = 0;
  for (const auto& [base, seg] : impl_->segments) n += seg->size();
  return n;
}

std::vector<int64_t> PartitionLog::segment_base_offsets() const {
  std::vector<int64_t> out;
  for (const auto& [base, seg] : impl_->segments) out.push_back(base);
  return out;
}

}  // namespace mirra::storage
