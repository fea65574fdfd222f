// IndexFile: the append-only file under an offset or time index. The indexes keep their entries
// in memory (a vector: lookups are binary searches with no page faults and no mmap window to
// manage) and append each new entry to the file with pwrite, so the file is always an exact
// array of entries. A torn last entry after a crash is detected by a size that is not a multiple
// of the entry size; recovery then rebuilds the index from the .log (docs/formats/offset-index.md).
//
// No descriptor stays open: the file is reached through the file cache (file_cache.h) when an
// entry is written or the index is truncated or flushed; lookups never touch it.
// Owned by one segment; not thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "base/status.h"
#include "storage/file_cache.h"

namespace mirra::storage {

class IndexFile {
 public:
  IndexFile() = default;

  // Opens or creates the file and returns its whole content in `content`.
  static Result<IndexFile> open(std::filesystem::path path, std::vector<uint8_t>& content);

  Status append(std::span<const uint8_t> bytes);  // at the end
  Status truncate(int64_t size);
  Status flush();
  Status remove();
  Status rename(const std::filesystem::path& to);
  int64_t size() const { return size_; }
  const std::filesystem::path& path() const { return file_.path(); }

 private:
  CachedFile file_;
  int64_t size_ = 0;
  bool dirty_ = false;
};

}  // namespace mirra::storage
