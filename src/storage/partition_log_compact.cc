// PartitionLog's side of compaction: what the cleaner may read, and the swap on install.
#include <algorithm>

#include "base/clock.h"
#include "base/log.h"
#include "storage/compaction_internal.h"
#include "storage/partition_log_impl.h"

namespace mirra::storage {
namespace {

constexpr std::string_view kMirraLogComponent = "storage";

// Sealed segments from the start, up to the first one that reaches past the LSO (open
// transactions are never cleaned) or holds data younger than min.compaction.lag.ms.
std::vector<CompactionSegment> cleanable_segments(const PartitionLog::Impl& log, int64_t now_ms) {
  std::vector<CompactionSegment> out;
  const int64_t bound = log.first_unstable_or_leo();
  const int64_t lag = log.config.min_compaction_lag_ms;
  for (auto it = log.segments.begin(); std::next(it) != log.segments.end(); ++it) {
    const LogSegment& seg = *it->second;
    if (seg.next_offset() > bound) break;
    if (lag > 0 && seg.max_timestamp() > now_ms - lag) break;
    const auto entries = std::max(seg.offset_index().entry_count(), seg.time_index().entry_count());
    auto handle = seg.file()->handle();  // the cleaner reads through it, on any thread
    if (!handle) {
      MIRRA_LOG_WARN("not compacting from {} on: {}", seg.file()->path().string(),
                     handle.status().message());
      break;
    }
    out.push_back({seg.base_offset(), seg.next_offset(), seg.size(), static_cast<int64_t>(entries),
                   std::move(handle.value())});
  }
  return out;
}

// Every aborted transaction with data in [from, to), from all segments: an ABORT marker may
// sit beyond the cleanable range while its data is inside.
std::vector<AbortedTxn> aborted_in(const PartitionLog::Impl& log, int64_t from, int64_t to) {
  std::vector<AbortedTxn> out;
  for (const auto& [base, seg] : log.segments)
    for (const AbortedTxn& t : seg->txn_index().entries())
      if (t.first_offset < to && t.last_offset >= from) out.push_back(t);
  std::stable_sort(out.begin(), out.end(), [](const AbortedTxn& a, const AbortedTxn& b) {
    return a.first_offset < b.first_offset;
  });
  return out;
}

// One group: commit the .cleaned files, retire the replaced segments, take the final names.
Status swap_in(PartitionLog::Impl& log, const CleanedGroup& g, int64_t now_ms) {
  if (Status st = compaction::commit_cleaned(log.dir, g.base_offset); !st) return st;
  for (int64_t base : g.replaced) {
    auto it = log.segments.find(base);
    if (Status st = log.retire_segment(*it->second); !st) return st;
    log.segments.erase(it);
  }
  if (Status st = compaction::finish_swap(log.dir, g.base_offset); !st) return st;
  bool indexes_valid = false;
  auto seg = LogSegment::open(log.dir, g.base_offset, log.config, now_ms, indexes_valid);
  if (!seg) return seg.status();
  if (!indexes_valid)
    return Status(ErrorCode::KAFKA_STORAGE_ERROR,
                  log.dir.string() + ": indexes of compacted segment " +
                      std::to_string(g.base_offset) + " fail their checks");
  if (Status st = (*seg)->load_tail(); !st) return st;
  log.segments.emplace(g.base_offset, std::move(seg.value()));
  return Status();
}

}  // namespace

CompactionInput PartitionLog::compaction_input(int64_t now_ms) const {
  const Impl& log = *impl_;
  CompactionInput in;
  in.dir = log.dir;
  in.config = log.config;
  in.now_ms = now_ms;
  in.generation = log.generation;
  if (!log.config.cleanup_compact || log.closed) return in;
  in.segments = cleanable_segments(log, now_ms);
  if (in.segments.empty()) return in;
  in.aborted = aborted_in(log, in.segments.front().base_offset, in.segments.back().next_offset);
  for (const auto& [pid, entry] : log.producers.producers()) {
    ProducerLastBatch last;
    if (!entry.batches.empty()) last.last_data_offset = entry.batches.back().last_offset;
    last.epoch = entry.epoch;
    in.producers.emplace(pid, last);
  }
  return in;
}

Result<CompactionPlan> PartitionLog::prepare_compaction(int64_t now_ms) const {
  return storage::prepare_compaction(compaction_input(now_ms));
}

Result<bool> PartitionLog::install_compaction(CompactionPlan plan) {
  Impl& log = *impl_;
  const int64_t active_base = log.segments.rbegin()->first;
  bool current = plan.generation == log.generation && plan.dir == log.dir && !log.closed;
  for (const CleanedGroup& g : plan.groups)
    for (int64_t base : g.replaced)
      current = current && log.segments.count(base) && base != active_base;
  if (!current) {
    MIRRA_LOG_INFO("{}: log changed while compacting; plan dropped", log.dir.string());
    discard_compaction(plan);
    return false;
  }
  const int64_t now = now_ms();
  for (const CleanedGroup& g : plan.groups) {
    // A failure after a commit leaves the directory for recovery to finish: go offline.
    if (Status st = swap_in(log, g, now); !st) {
      log.closed = true;
      MIRRA_LOG_ERROR("{}: compaction swap failed, log closed: {}", log.dir.string(),
                      st.to_string());
      return st;
    }
  }
  if (!plan.groups.empty()) {
    ++log.generation;
    MIRRA_LOG_INFO("{}: compacted {} segment groups: {} of {} records removed, {} -> {} bytes",
                   log.dir.string(), plan.groups.size(), plan.stats.records_removed,
                   plan.stats.records_read, plan.stats.bytes_read, plan.stats.bytes_written);
  }
  return true;
}

Status PartitionLog::compact(int64_t now_ms) {
  if (!impl_->config.cleanup_compact) return Status();
  // compact,delete: what retention deletes need not be cleaned first.
  if (impl_->config.cleanup_delete) {
    if (Status st = apply_retention(now_ms); !st) return st;
  }
  auto plan = prepare_compaction(now_ms);
  if (!plan) return plan.status();
  auto installed = install_compaction(std::move(plan.value()));
  if (!installed) return installed.status();
  impl_->remove_due_files(/*all=*/false);
  return Status();
}

}  // namespace mirra::storage
