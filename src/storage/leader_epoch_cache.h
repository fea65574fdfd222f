// Leader-epoch cache of one partition: the start offset of every leader epoch seen in the log
// ("leader-epoch-checkpoint", Kafka's text format: docs/formats/leader-epoch-checkpoint.md).
// Answers OffsetForLeaderEpoch ("where does epoch E end?") and is truncated with the log.
// Not thread-safe; owned by its PartitionLog.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "base/status.h"

namespace mirra::storage {

struct EpochEntry {
  int32_t epoch = -1;
  int64_t start_offset = -1;
  bool operator==(const EpochEntry&) const = default;
};

class LeaderEpochCache {
 public:
  // Loads the checkpoint file if it exists (missing file: empty cache).
  static Result<LeaderEpochCache> open(std::filesystem::path checkpoint_path);

  // Records that `epoch` starts at `start_offset`. Ignored when epoch is not above the latest
  // (batches of an epoch arrive in order); an epoch above the latest with a start offset below
  // the latest entry's start replaces the entries it contradicts. Persists on change.
  Status assign(int32_t epoch, int64_t start_offset);

  std::optional<EpochEntry> latest() const;
  // Kafka's endOffsetForEpoch: for the largest epoch <= `epoch` in the cache, returns that epoch
  // and its end offset (the next epoch's start, or `log_end_offset` for the latest). Returns
  // {-1, -1} when `epoch` is below every cached epoch (UNDEFINED).
  std::pair<int32_t, int64_t> end_offset_for(int32_t epoch, int64_t log_end_offset) const;

  Status truncate_from_end(int64_t end_offset);      // drops entries starting at or after it
  Status truncate_from_start(int64_t start_offset);  // log start moved: first entry clamped to it
  Status clear();
  const std::vector<EpochEntry>& entries() const { return entries_; }

 private:
  Status persist();  // write tmp, fsync, rename, fsync dir

  std::filesystem::path path_;
  std::vector<EpochEntry> entries_;
};

}  // namespace mirra::storage
