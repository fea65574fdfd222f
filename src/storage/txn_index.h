// The aborted-transactions index of one segment (".txnindex"): one entry per transaction whose
// ABORT marker is in that segment. A read_committed fetch asks for the entries that overlap the
// range it returns, so the consumer can drop the aborted records. Entry layout:
// docs/formats/txn-index.md (Kafka's layout: 34 bytes, big-endian).
//
// Like Kafka, the file is created lazily by the first append(): most segments never see an
// aborted transaction, and an empty index should cost neither a file nor an open fd. Once it
// exists, its descriptor comes from the file cache when needed (file_cache.h).
// Movable, not copyable.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "base/status.h"
#include "storage/file_cache.h"

namespace mirra::storage {

struct AbortedTxn {
  int64_t producer_id = -1;
  int64_t first_offset = -1;
  int64_t last_offset = -1;         // the ABORT marker's offset
  int64_t last_stable_offset = -1;  // the partition's LSO once the marker was appended
  bool operator==(const AbortedTxn&) const = default;
};

class TxnIndex {
 public:
  static constexpr size_t kEntrySize = 34;
  static constexpr int16_t kVersion = 0;  // the only entry version Kafka has written so far

  TxnIndex() = default;  // no file; open() gives a usable one

  // Opens or creates the file and loads its entries. A torn last entry (kill -9 during a write)
  // is cut off; anything else malformed is an error.
  static Result<TxnIndex> open(std::filesystem::path path);

  Status append(const AbortedTxn& txn);  // entries are appended in marker-offset order
  // Appends to `out` the entries with last_offset >= fetch_offset and first_offset <
  // upper_bound_offset. Returns true when the search is complete: an entry's last_stable_offset
  // reached upper_bound_offset, so no later entry (here or in a later segment) can overlap the
  // range and the caller may stop looking at further segments (Kafka's TxnIndexSearchResult).
  bool collect(int64_t fetch_offset, int64_t upper_bound_offset,
               std::vector<AbortedTxn>& out) const;
  Status truncate_to(int64_t offset);  // drops entries whose last_offset >= offset
  // fsync, only when something was written since the last flush: with flush.messages=1 every
  // append flushes its segment, and most segments never change their txn index.
  Status flush();
  Status remove();  // deletes the file (absent: fine); entries cleared
  Status rename(const std::filesystem::path& to);
  const std::vector<AbortedTxn>& entries() const { return entries_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  Status ensure_exists();  // creates the file on first use
  // Writes `bytes` at the end of the file (which holds entries_.size() entries).
  Status write_entry(std::span<const uint8_t> bytes);

  std::filesystem::path path_;
  std::vector<AbortedTxn> entries_;
  CachedFile file_;     // empty until the file exists
  bool dirty_ = false;  // written or truncated since the last fsync
};

}  // namespace mirra::storage
