// TimeIndex: the sparse time index of one segment ("<base>.timeindex"), Kafka's layout: entries
// of 12 bytes, timestamp int64 + relative offset int32, big-endian. An entry (t, o) says "the
// largest timestamp up to offset base + o is t, and o is where it first appeared"; entries are
// added with the offset index (one per index.interval.bytes) only when the largest timestamp
// grew, so timestamps and offsets both ascend. When a segment stops being active its final
// largest timestamp is appended too, so the last entry of an inactive segment is its
// max timestamp (retention reads it there). Format: docs/formats/time-index.md.
//
// Entries live in memory and are appended to the file. Owned by its segment; not thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "base/status.h"
#include "storage/index_file.h"

namespace mirra::storage {

struct TimestampOffset {
  int64_t timestamp = -1;
  int64_t offset = 0;  // absolute
};

class TimeIndex {
 public:
  static constexpr size_t kEntrySize = 12;

  // Loads an existing file; `valid` is false for a torn or non-ascending file (rebuild it).
  static Result<TimeIndex> open(std::filesystem::path path, int64_t base_offset,
                                int64_t max_entries, bool& valid);

  // Appends (timestamp, offset) when timestamp is above the last entry's; else does nothing.
  Status maybe_append(int64_t timestamp, int64_t offset, bool skip_full_check = false);
  // The last entry whose timestamp <= target, or {-1, base}.
  TimestampOffset lookup(int64_t target) const;
  Status truncate_to(int64_t offset);  // drops entries with offset >= `offset`
  Status reset();
  Status flush() { return file_.flush(); }
  Status remove() { return file_.remove(); }
  Status rename(const std::filesystem::path& to) { return file_.rename(to); }

  bool full() const { return static_cast<int64_t>(entries_.size()) >= max_entries_; }
  size_t entry_count() const { return entries_.size(); }
  std::optional<TimestampOffset> last() const;
  void set_max_entries(int64_t n) { max_entries_ = n; }
  const std::filesystem::path& path() const { return file_.path(); }

 private:
  struct Entry {
    int64_t timestamp;
    int32_t relative_offset;
  };
  IndexFile file_;
  int64_t base_ = 0;
  int64_t max_entries_ = 0;
  std::vector<Entry> entries_;
};

}  // namespace mirra::storage
