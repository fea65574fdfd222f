// Log compaction (cleanup.policy=compact, and compact,delete): Kafka's LogCleaner semantics.
//
// For every key only its latest record survives; offsets never change (a compacted log has
// gaps). Tombstones (null value) and transaction markers stay until their delete horizon:
// the first cleaning that keeps one stamps its batch with horizon = now + delete.retention.ms
// (attribute bit 6, the horizon in baseTimestamp, as Kafka since KIP-534) and a cleaning after
// the horizon drops them. Records of aborted transactions go (found through the txn indexes);
// a marker stays while its transaction still has batches in the log. Only sealed segments
// wholly below the LSO (and older than min.compaction.lag.ms) are cleaned. The batch holding
// the last data of a producer that still has state is kept, emptied if need be, so that
// sequence numbers and epochs survive a rebuild of producer state from the log (Kafka's
// RETAIN_EMPTY); a rebuilt batch keeps its base offset, lastOffsetDelta, producer id, epoch,
// base sequence and codec.
//
// Threads: three steps so that the expensive one can run off the partition's owner thread.
//   1. PartitionLog::compaction_input(now)  owner thread, cheap: which segments, their files
//      (shared, so reads survive a concurrent delete), aborted transactions, producers.
//   2. prepare_compaction(input)            any thread: reads only the immutable sealed files,
//      writes "<base>.log.cleaned" (+ .index/.timeindex/.txnindex .cleaned), fsynced.
//   3. PartitionLog::install_compaction()   owner thread, short: re-checks that no segment was
//      deleted or truncated since step 1, then swaps (see "Swap" in docs/formats/segment.md).
// PartitionLog::compact(now) does all three on the calling thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "base/status.h"
#include "storage/log_config.h"
#include "storage/txn_index.h"

namespace mirra::storage {

class FileHandle;  // storage/file_cache.h

// File-name suffixes of a swap in progress (docs/formats/segment.md, "Swap").
inline constexpr std::string_view kCleanedSuffix = ".cleaned";
inline constexpr std::string_view kSwapSuffix = ".swap";

struct CompactionSegment {
  int64_t base_offset = 0;
  int64_t next_offset = 0;                 // after its last batch
  int64_t size = 0;                        // bytes of the .log when the input was taken
  int64_t index_entries = 0;               // the larger of its offset and time index entry counts
  std::shared_ptr<const FileHandle> file;  // held open for the cleaner
};

// What a producer's state says about its last batch (Kafka's LastRecord).
struct ProducerLastBatch {
  std::optional<int64_t> last_data_offset;  // last offset of its newest data batch
  int16_t epoch = -1;
};

struct CompactionInput {
  std::filesystem::path dir;
  LogConfig config;
  int64_t now_ms = 0;
  uint64_t generation = 0;                  // PartitionLog's segment-set generation
  std::vector<CompactionSegment> segments;  // cleanable sealed segments, ascending, contiguous
  std::vector<AbortedTxn> aborted;          // overlapping them, by first offset
  std::map<int64_t, ProducerLastBatch> producers;
};

struct CompactionStats {
  int64_t batches_read = 0;
  int64_t records_read = 0;
  int64_t records_removed = 0;
  int64_t bytes_read = 0;
  int64_t bytes_written = 0;
};

// One rewritten group of segments: "<base_offset>.*.cleaned" replaces `replaced`.
struct CleanedGroup {
  int64_t base_offset = 0;
  std::vector<int64_t> replaced;  // base offsets, ascending; the first is base_offset
  int64_t size = 0;
};

struct CompactionPlan {
  std::filesystem::path dir;
  uint64_t generation = 0;
  std::vector<CleanedGroup> groups;  // only groups whose content changed
  CompactionStats stats;
};

// Step 2: builds the offset map and writes the cleaned files. Thread-safe: touches nothing but
// the input. An empty plan when there is nothing to do. On failure no .cleaned file is left.
Result<CompactionPlan> prepare_compaction(const CompactionInput& input);

// Removes the .cleaned files of a plan that will not be installed.
void discard_compaction(const CompactionPlan& plan);

// Recovery (open): finishes swaps whose ".log.swap" exists (the segments it replaces become
// .deleted, the swap files take the final names) and removes .cleaned files and incomplete
// swaps. Must run before leftovers are removed and segments listed.
Status recover_swaps(const std::filesystem::path& dir);

}  // namespace mirra::storage
