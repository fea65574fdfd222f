// Recovery: what PartitionLog::open does with the files it finds.
//
//  0. A compaction swap interrupted by a crash is finished if it was committed ("<base>.log.swap"
//     exists) or undone (".cleaned" files, other ".swap" files); see compaction_swap.cc.
//  1. Leftovers of interrupted deletes and atomic writes (*.deleted, *.tmp) are removed, and
//     index files without a .log.
//  2. Segments wholly below the recovery point are trusted: their indexes are loaded (rebuilt
//     from the .log when missing or failing sanity checks) and only the tail after the last
//     offset-index entry is read, to find the next offset and largest timestamp.
//  3. Producer state is loaded from the newest snapshot at or below the first segment to scan,
//     and the trusted batches after the snapshot are replayed into it.
//  4. Every other segment is scanned batch by batch: length, magic, CRC32C (BatchView::parse +
//     validate) and offsets that ascend. Indexes and the aborted-transactions index are rebuilt
//     as it goes, producer state and leader-epoch cache are replayed.
//  5. At the first bad batch the rest of the log is searched for a valid batch. None: the bad
//     bytes are a torn tail (a write cut by a crash) and are truncated, with a warning saying how
//     many bytes went. One found: that is corruption in the middle of the log; open() fails with
//     CORRUPT_MESSAGE and truncates nothing (a partition must not silently lose acknowledged
//     data because one sector went bad).
//  6. The scanned segments are fsynced, so the recovery point becomes the log end offset.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>

#include "base/status.h"
#include "storage/partition_log_impl.h"

namespace mirra::storage {

// A read-only mapping of a whole file (recovery reads each byte once, sequentially).
class MappedFile {
 public:
  static Result<MappedFile> map(const std::filesystem::path& path, int64_t size);
  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();
  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// The position of the first complete, checksum-valid batch at or after `from` whose base
// offset is >= min_base_offset, or nullopt. Used after a bad batch to tell a torn tail (none)
// from corruption in the middle (one).
std::optional<int64_t> find_valid_batch(std::span<const uint8_t> data, int64_t from,
                                        int64_t min_base_offset);

}  // namespace mirra::storage
