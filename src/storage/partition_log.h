// The log of one topic partition: segments of record batches in Kafka's on-disk format, with
// their indexes, producer state, leader-epoch cache and aborted-transactions index.
//
// Ownership: a PartitionLog belongs to one thread at a time (the partition's owner); it is not
// thread-safe. Reads hand out FileSlices that keep their segment file open (shared_ptr), so the
// network layer may send them with sendfile() after the owner moved on, even if retention has
// deleted the segment meanwhile. Storage never sees sockets.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "base/status.h"
#include "storage/compaction.h"
#include "storage/file_cache.h"
#include "storage/leader_epoch_cache.h"
#include "storage/log_config.h"
#include "storage/producer_state.h"
#include "storage/txn_index.h"

namespace mirra::storage {

// A byte range of a segment file holding whole batches. Send it with sendfile(file->fd(), ...)
// or copy it with file->read_at(); both work from any thread, after retention deleted the
// segment too. Each slice holds its segment's descriptor open until it is dropped.
struct FileSlice {
  std::shared_ptr<const FileHandle> file;
  int64_t position = 0;
  int64_t size = 0;

  int fd() const;  // for sendfile(2)
};

// Appends the slices' bytes to `out` (pread; blocks on disk, so not on a network thread).
Status copy_slices(std::span<const FileSlice> slices, std::vector<uint8_t>& out);

// What the log directory's checkpoint files say about this partition (see checkpoint.h): the
// broker reads them once per log dir and hands each partition its values.
struct LogOpenOptions {
  // recovery-point-offset-checkpoint: everything below is known to be fsynced; segments at or
  // above it are scanned batch by batch (CRC32C) on open. 0 = scan everything.
  int64_t recovery_point = 0;
  // log-start-offset-checkpoint; nullopt = the first segment's base offset.
  std::optional<int64_t> log_start_offset = std::nullopt;
  // The clock for segment creation times and producer expiry; -1 = the wall clock.
  int64_t now_ms = -1;
  // The log directory's clean-shutdown marker was there (docs/formats/checkpoints.md): every
  // log was closed (flushed, producer state snapshotted at its end), so nothing is scanned,
  // whatever the recovery point says, and opening writes nothing (Kafka's hadCleanShutdown).
  bool clean_shutdown = false;
};

struct AppendResult {
  int64_t first_offset = -1;
  int64_t last_offset = -1;
  int64_t log_append_time = -1;  // -1 unless the topic uses LogAppendTime
  int64_t log_start_offset = -1;
  bool duplicate = false;  // an idempotent retry: offsets are those of the first append
};

// How far a read may go (Kafka's FetchIsolation).
enum class ReadBound { log_end, high_watermark, last_stable_offset };

struct ReadResult {
  std::vector<FileSlice> slices;    // whole batches, in order
  std::vector<AbortedTxn> aborted;  // filled for ReadBound::last_stable_offset
  int64_t high_watermark = -1;
  int64_t last_stable_offset = -1;
  int64_t log_start_offset = -1;
  int64_t log_end_offset = -1;
  int64_t total_bytes() const;
  Status copy_to(std::vector<uint8_t>& out) const { return copy_slices(slices, out); }
};

class PartitionLog {
 public:
  // Opens (creating if needed) the partition directory and recovers it: finds the last valid
  // batch after a crash, cuts a torn tail, rebuilds indexes and producer state where needed.
  // Corruption with valid batches after it (not a torn tail) fails with CORRUPT_MESSAGE naming
  // the file, the position and both offsets, and truncates nothing: the partition stays
  // offline until an operator looks (src/storage/README.md, "Crash safety").
  static Result<std::unique_ptr<PartitionLog>> open(std::filesystem::path dir, LogConfig config,
                                                    LogOpenOptions options = {});
  ~PartitionLog();

  // Produce: validates the record set (CRC, sizes, magic, max.message.bytes, producer
  // sequences), assigns offsets in place (base offset and leader epoch are outside the CRC),
  // sets LogAppendTime when configured, appends. `records` is the request's own buffer.
  Result<AppendResult> append_as_leader(std::span<uint8_t> records, int32_t leader_epoch,
                                        AppendOrigin origin, int64_t now_ms);

  // Mirroring: appends batches at their own base offsets, which must not go below the log end
  // offset (jumps forward are fine). No offset assignment, no sequence checks; producer state,
  // aborted-transactions index and LSO are maintained from the batches.
  Result<AppendResult> append_mirrored(std::span<const uint8_t> records, int64_t now_ms);

  // Whole batches from the one containing `offset`, up to max_bytes (at least one batch when
  // `min_one_batch`), not past the bound. OFFSET_OUT_OF_RANGE outside [log start, LEO].
  Result<ReadResult> read(int64_t offset, int32_t max_bytes, ReadBound bound,
                          bool min_one_batch) const;

  // ListOffsets: the first offset whose timestamp is >= ts (nullopt: none), and the offset of
  // the largest timestamp.
  std::optional<std::pair<int64_t, int64_t>> offset_for_timestamp(
      int64_t ts) const;                                     // {offset, ts}
  std::pair<int64_t, int64_t> max_timestamp_offset() const;  // {offset, ts}

  // Drops everything at and above `offset`: segments, indexes, producer state, txn index and
  // leader-epoch cache included. Truncation is at batch boundaries: a batch that straddles
  // `offset` is dropped whole, and the log end offset becomes the end of the last batch kept
  // (or the active segment's base offset), which can be below `offset`. Unlike Kafka, which
  // sets the LEO to `offset` anyway, the log never claims offsets it does not hold, so the LEO
  // after a restart is the same. Below the log start: truncate_fully_and_start_at(offset).
  Status truncate_to(int64_t offset);
  // Empties the log and restarts it at `offset` (a mirror whose source moved past it).
  Status truncate_fully_and_start_at(int64_t offset);
  // Raises the log start (DeleteRecords, retention, a mirror following its source); segments
  // wholly below it are deleted. Above the log end offset: OFFSET_OUT_OF_RANGE (a mirror whose
  // source moved past its end uses truncate_fully_and_start_at instead).
  Status advance_log_start(int64_t offset);

  int64_t log_start_offset() const;
  int64_t log_end_offset() const;
  int64_t high_watermark() const;      // single node: the log end offset
  int64_t last_stable_offset() const;  // min(first unstable offset, high watermark)
  int64_t recovery_point() const;      // everything below is fsynced (for the checkpoint file)

  // Periodic housekeeping: rolls an idle active segment older than segment.ms (wall clock, so
  // that retention can reach it), deletes whole segments by retention.ms (the segment's largest
  // timestamp) and retention.bytes, never the active one, raises the log start, flushes by
  // flush.ms, expires producers and removes the files of deleted segments whose
  // file.delete.delay.ms is over (deleted segments are renamed to .deleted at once; the delay
  // runs on the steady clock, not on `now_ms`).
  Status apply_retention(int64_t now_ms);
  // Compaction (cleanup.policy contains "compact"; semantics and threads in compaction.h).
  // compaction_input: owner thread; a snapshot of what the cleaner may read (no segments when
  // the policy has no "compact"). Hand it to prepare_compaction() on any thread, then give the
  // plan back to install_compaction() on the owner thread: false when the log changed in the
  // meantime (segments deleted or truncated), in which case the plan's files are discarded.
  CompactionInput compaction_input(int64_t now_ms) const;
  Result<CompactionPlan> prepare_compaction(int64_t now_ms) const;  // input + prepare, this thread
  Result<bool> install_compaction(CompactionPlan plan);
  // All of it on this thread; with compact,delete, retention (apply_retention) runs first.
  Status compact(int64_t now_ms);

  Status flush();  // fsync everything appended so far; advances the recovery point
  Status close();  // flush, snapshot producer state, checkpoint

  const LogConfig& config() const;
  void update_config(const LogConfig& config);
  const ProducerStateManager& producer_state() const;
  const LeaderEpochCache& leader_epochs() const;
  int64_t size_bytes() const;
  size_t segment_count() const;
  std::vector<int64_t> segment_base_offsets() const;
  const std::filesystem::path& dir() const;
  // Segments open() scanned batch by batch (recovery); 0 after a clean shutdown.
  size_t recovered_segments() const;

  struct Impl;  // partition_log_impl.h; public so that the module's .cc files can share it

 private:
  explicit PartitionLog(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mirra::storage
