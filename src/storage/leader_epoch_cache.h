// Leader-epoch cache of one partition: the start offset of every leader epoch seen in the log
// ("leader-epoch-checkpoint", Kafka's text format: docs/formats/leader-epoch-checkpoint.md).
// Answers OffsetForLeaderEpoch ("where does epoch E end?") and is truncated with the log.
// Not thread-safe; owned by its PartitionLog.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "base/status.h"

namespace mirra::storage {

struct EpochEntry {
  int32_t epoch = -1;
  int64_t start_offset = -1;
  bool operator==(const EpochEntry&) const = default;
};

// Kafka's endOffsetFor over a cache's entries (LeaderEpochCache::end_offset_for says the rule):
// where `epoch` ends in a log ending at `log_end_offset`. A free function so that a copy of the
// entries (a mirror comparing its log with the source's) gets the same answer.
std::pair<int32_t, int64_t> epoch_end_offset(std::span<const EpochEntry> entries, int32_t epoch,
                                             int64_t log_end_offset);

class LeaderEpochCache {
 public:
  // Loads the checkpoint file if it exists (missing file: empty cache). A malformed file is an
  // error (KAFKA_STORAGE_ERROR): the file is only ever replaced whole, so it cannot be torn.
  static Result<LeaderEpochCache> open(std::filesystem::path checkpoint_path);

  // Records that `epoch` starts at `start_offset` (Kafka's LeaderEpochFileCache.assign). No-op
  // when `epoch` is the latest epoch and `start_offset` is not below its start (batches of an
  // epoch arrive in order). Otherwise entries that contradict the new one (epoch >= it, or start
  // offset >= its start) are dropped from the end first, so the cache always describes the log's
  // tail: the same epoch at a lower offset replaces its entry; a lower epoch truncates. Negative
  // epochs or offsets are refused (INVALID_REQUEST). Persists on change.
  Status assign(int32_t epoch, int64_t start_offset);

  std::optional<EpochEntry> latest() const;
  // Kafka's endOffsetFor (OffsetForLeaderEpoch), as Kafka 3.x/4.x implement it:
  //  - epoch -1 (undefined), an empty cache, or an epoch above the latest: {-1, -1};
  //  - the latest epoch: {epoch, log_end_offset};
  //  - otherwise, with F the largest cached epoch <= `epoch` and H the first cached epoch above
  //    it: {F, start of H}; when no cached epoch is <= `epoch` (older epochs fell off with the
  //    log start): {epoch, start of the first entry}. Kafka's javadoc still says UNDEFINED for
  //    this case; its code (and clients validating positions after retention) rely on the
  //    start offset, so that is what is returned.
  std::pair<int32_t, int64_t> end_offset_for(int32_t epoch, int64_t log_end_offset) const;

  // Drops entries starting at or after `end_offset` (log truncated to it).
  Status truncate_from_end(int64_t end_offset);
  // The log start moved to `start_offset`: entries starting at or below it are dropped, except
  // the last of them, which is kept with its start clamped to `start_offset`.
  Status truncate_from_start(int64_t start_offset);
  Status clear();
  const std::vector<EpochEntry>& entries() const { return entries_; }

 private:
  bool apply(EpochEntry entry);  // assign() without persisting; true when the cache changed
  Status persist();              // write tmp, fsync, rename, fsync dir

  std::filesystem::path path_;
  std::vector<EpochEntry> entries_;
};

}  // namespace mirra::storage
