// The state behind PartitionLog, shared by its .cc files (open/recovery, append, read,
// truncation/retention). Internal to the storage module. One owner thread, no locks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "storage/partition_log.h"
#include "storage/segment.h"

namespace mirra::storage {

struct PartitionLog::Impl {
  Impl(std::filesystem::path d, LogConfig c)
      : dir(std::move(d)), config(c), producers(dir, c.producer_id_expiration_ms) {}

  std::filesystem::path dir;
  LogConfig config;
  // By base offset; never empty after open. The last one is the active segment.
  std::map<int64_t, std::unique_ptr<LogSegment>> segments;
  ProducerStateManager producers;
  std::optional<LeaderEpochCache> epochs;
  int64_t log_start = 0;
  int64_t leo = 0;
  int64_t recovery_point = 0;
  int64_t unflushed_messages = 0;  // records appended since the last flush (flush.messages)
  int64_t last_flush_ms = 0;       // wall clock of the last flush (flush.ms)
  bool closed = false;
  size_t recovered_segments = 0;  // scanned by open() (recovery.cc)
  // Bumped whenever sealed segments lose data other than by compaction (deletion, truncation)
  // and by a compaction swap: install_compaction refuses a plan prepared at another value.
  uint64_t generation = 0;
  // Segments already renamed to .deleted, removed after file.delete.delay.ms (steady clock) by
  // housekeeping, not by the append or truncation that dropped them.
  struct PendingDelete {
    int64_t due_steady_ms = 0;
    std::vector<std::filesystem::path> files;
  };
  std::vector<PendingDelete> pending_deletes;

  LogSegment& active() { return *segments.rbegin()->second; }
  const LogSegment& active() const { return *segments.rbegin()->second; }
  // The segment holding `offset`: the one with the largest base offset <= offset (or the first).
  std::map<int64_t, std::unique_ptr<LogSegment>>::const_iterator floor_segment(
      int64_t offset) const;

  int64_t first_unstable_or_leo() const;  // the LSO on a single node
  // Makes a new active segment at `base` (the old one is finalised and fsynced first, which
  // also moves the recovery point) and snapshots the producer state there.
  Status roll(int64_t base, int64_t now_ms);
  // Rolls first when the active segment cannot take this batch.
  Status maybe_roll(const records::BatchView& batch, int64_t now_ms);
  // The bookkeeping after a batch is in the active segment: producer state, aborted-txn
  // index, leader-epoch cache, log end offset, flush.messages.
  Status after_append(const records::BatchView& batch, AppendOrigin origin, int64_t now_ms);
  Status maybe_flush(int64_t now_ms);
  // fsyncs what the recovery point needs (see LogSegment::flush); `indexes` for close().
  Status flush(int64_t now_ms, bool indexes = false);
  // Drops a segment: its files are renamed to .deleted now and removed later (remove_due_files).
  Status delete_segment(int64_t base);
  // Renames `seg`'s files to .deleted and queues them for removal; the caller drops `seg`.
  Status retire_segment(LogSegment& seg);
  // Removes queued .deleted files whose delay is over (all of them with `all`).
  void remove_due_files(bool all);
  // The log start moved up: clamps the epoch cache, drops useless producer snapshots.
  Status on_log_start_moved();
};

// Replays batches of [from, to) into the producer state (AppendOrigin::replication), the way
// open() and truncation rebuild it from a snapshot. Reads full batches (control markers need
// their record); trusts the bytes (they were validated when written or recovered).
Status replay_producer_state(PartitionLog::Impl& log, int64_t from, int64_t to, int64_t now_ms);

// Open: lists and loads segments, recovers those at or above the recovery point (recovery.cc).
Status load_log(PartitionLog::Impl& log, const LogOpenOptions& options, int64_t now_ms);

}  // namespace mirra::storage
