// OffsetIndex: the sparse offset index of one segment ("<base>.index"), Kafka's layout: entries
// of 8 bytes, relative offset int32 + file position int32, big-endian, ascending. An entry
// (o, p) says "the batch starting at position p ends at offset base + o" (Kafka indexes a
// batch by its last offset), so the batch holding a target offset starts at or after the
// position of the last entry whose offset is <= target. One entry per index.interval.bytes of
// log. Format: docs/formats/offset-index.md.
//
// Entries live in memory and are appended to the file (see index_file.h for why not mmap).
// Owned by its segment; not thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "base/status.h"
#include "storage/index_file.h"

namespace mirra::storage {

struct OffsetPosition {
  int64_t offset = 0;    // absolute
  int64_t position = 0;  // in the .log file
};

class OffsetIndex {
 public:
  static constexpr size_t kEntrySize = 8;

  // Loads an existing file. A size that is not a whole number of entries, offsets that do not
  // ascend, or positions at or past `log_size` make the index invalid: `valid` is set false and
  // the caller rebuilds it (reset() + append()).
  static Result<OffsetIndex> open(std::filesystem::path path, int64_t base_offset,
                                  int64_t max_entries, int64_t log_size, bool& valid);

  // Appends (last offset of a batch, position of that batch). Offsets must ascend.
  Status append(int64_t offset, int64_t position);
  // The last entry whose offset <= target, or {base, 0}.
  OffsetPosition lookup(int64_t target) const;
  Status truncate_to(int64_t offset);  // drops entries with offset >= `offset`
  Status reset();                      // drops every entry
  Status flush() { return file_.flush(); }
  Status remove() { return file_.remove(); }
  Status rename(const std::filesystem::path& to) { return file_.rename(to); }

  bool full() const { return static_cast<int64_t>(entries_.size()) >= max_entries_; }
  size_t entry_count() const { return entries_.size(); }
  std::optional<OffsetPosition> last() const;
  int64_t base_offset() const { return base_; }
  void set_max_entries(int64_t n) { max_entries_ = n; }
  const std::filesystem::path& path() const { return file_.path(); }

 private:
  struct Entry {
    int32_t relative_offset;
    int32_t position;
  };
  IndexFile file_;
  int64_t base_ = 0;
  int64_t max_entries_ = 0;
  std::vector<Entry> entries_;
};

}  // namespace mirra::storage
