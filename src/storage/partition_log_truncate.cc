// Truncation (from the end and whole), the log start, and retention.
#include <algorithm>

#include "base/clock.h"
#include "base/log.h"
#include "storage/durable_file.h"
#include "storage/partition_log_impl.h"

namespace mirra::storage {
namespace {

constexpr std::string_view kMirraLogComponent = "storage";

// Producer state after the log lost its end: back to the newest snapshot at or below the new
// end, then replay (Kafka's truncateAndReload).
Status reload_producers(PartitionLog::Impl& log, int64_t now_ms) {
  log.producers.delete_snapshots_above(log.leo);
  auto from = log.producers.reload_from_snapshot(log.leo, log.log_start);
  if (!from) return from.status();
  return replay_producer_state(log, *from, log.leo, now_ms);
}

}  // namespace

Status PartitionLog::truncate_to(int64_t offset) {
  Impl& log = *impl_;
  if (offset >= log.leo) return Status();
  if (offset < log.log_start) return truncate_fully_and_start_at(offset);
  auto it = log.floor_segment(offset);
  LogSegment& seg = *it->second;
  const int64_t seg_base = seg.base_offset();
  // Newer segments hold only offsets above `offset`.
  while (log.segments.rbegin()->first > seg_base) {
    if (Status st = log.delete_segment(log.segments.rbegin()->first); !st) return st;
  }
  auto first_dropped = seg.find_batch(offset);
  if (!first_dropped) return first_dropped.status();
  if (*first_dropped) {
    // Index entries name batches by last offset: those of dropped batches are all >= offset.
    if (Status st = seg.truncate_at((*first_dropped)->position, offset); !st) return st;
    ++log.generation;
  }
  log.leo = seg.next_offset();
  if (Status st = seg.txn_index().truncate_to(log.leo); !st) return st;
  // Made durable at once: a truncation that a crash undid would resurrect valid batches.
  if (Status st = seg.flush(); !st) return st;
  if (Status st = durable::fsync_dir(log.dir); !st) return st;
  log.recovery_point = std::min(log.recovery_point, log.leo);
  if (Status st = log.epochs->truncate_from_end(log.leo); !st) return st;
  MIRRA_LOG_INFO("{}: truncated to offset {} (asked {})", log.dir.string(), log.leo, offset);
  return reload_producers(log, now_ms());
}

Status PartitionLog::truncate_fully_and_start_at(int64_t offset) {
  Impl& log = *impl_;
  if (offset < 0) return Status(ErrorCode::INVALID_REQUEST, "negative log start offset");
  std::vector<int64_t> bases;
  for (const auto& [base, seg] : log.segments) bases.push_back(base);
  for (int64_t base : bases) {
    if (Status st = log.delete_segment(base); !st) return st;
  }
  auto seg = LogSegment::create(log.dir, offset, log.config, now_ms());
  if (!seg) return seg.status();
  log.segments.emplace(offset, std::move(seg.value()));
  if (Status st = durable::fsync_dir(log.dir); !st) return st;
  log.log_start = log.leo = log.recovery_point = offset;
  log.unflushed_messages = 0;
  log.producers.delete_snapshots_above(-1);
  log.producers.clear();
  log.producers.set_map_end_offset(offset);
  MIRRA_LOG_INFO("{}: emptied, restarting at offset {}", log.dir.string(), offset);
  return log.epochs->clear();
}

Status PartitionLog::advance_log_start(int64_t offset) {
  Impl& log = *impl_;
  if (offset <= log.log_start) return Status();
  if (offset > log.leo)
    return Status(ErrorCode::OFFSET_OUT_OF_RANGE, "log start " + std::to_string(offset) +
                                                      " above the log end offset " +
                                                      std::to_string(log.leo));
  log.log_start = offset;
  while (log.segments.size() > 1 && std::next(log.segments.begin())->first <= offset) {
    if (Status st = log.delete_segment(log.segments.begin()->first); !st) return st;
  }
  return log.on_log_start_moved();
}

Status PartitionLog::apply_retention(int64_t now_ms) {
  Impl& log = *impl_;
  const LogConfig& c = log.config;
  // An idle active segment never rolls by appends; roll it so retention can reach it.
  if (!log.active().empty() && now_ms - log.active().created_ms() > c.segment_ms) {
    if (Status st = log.roll(log.leo, now_ms); !st) return st;
  }
  if (Status st = log.maybe_flush(now_ms); !st) return st;
  int64_t total = size_bytes();
  bool moved = false;
  while (log.segments.size() > 1) {
    const LogSegment& seg = *log.segments.begin()->second;
    const int64_t next_base = std::next(log.segments.begin())->first;
    const int64_t ts = seg.max_timestamp() >= 0 ? seg.max_timestamp() : seg.created_ms();
    const bool below_start = next_base <= log.log_start;
    const bool too_old = c.cleanup_delete && c.retention_ms >= 0 && now_ms - ts > c.retention_ms;
    const bool too_big = c.cleanup_delete && c.retention_bytes >= 0 &&
                         total - seg.size() >= c.retention_bytes;
    if (!below_start && !too_old && !too_big) break;
    MIRRA_LOG_INFO("{}: deleting segment {} ({})", log.dir.string(), seg.base_offset(),
                   below_start ? "below log start"
                   : too_old   ? "retention.ms"
                               : "retention.bytes");
    total -= seg.size();
    if (Status st = log.delete_segment(seg.base_offset()); !st) return st;
    moved = true;
  }
  if (moved) {
    log.log_start = std::max(log.log_start, log.segments.begin()->first);
    if (Status st = log.on_log_start_moved(); !st) return st;
  }
  log.producers.remove_expired(now_ms);
  log.remove_due_files(/*all=*/false);
  return Status();
}

}  // namespace mirra::storage
