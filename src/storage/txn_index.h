// The aborted-transactions index of one segment (".txnindex"): one entry per transaction whose
// ABORT marker is in that segment. A read_committed fetch asks for the entries that overlap the
// range it returns, so the consumer can drop the aborted records. Entry layout:
// docs/formats/txn-index.md (Kafka's layout: 34 bytes, big-endian).
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "base/status.h"

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

  // Opens or creates the file and loads its entries. A torn last entry (kill -9 during a write)
  // is cut off; anything else malformed is an error.
  static Result<TxnIndex> open(std::filesystem::path path);

  Status append(const AbortedTxn& txn);   // entries are appended in marker-offset order
  // Entries with last_offset >= fetch_offset and first_offset < upper_bound_offset.
  void collect(int64_t fetch_offset, int64_t upper_bound_offset, std::vector<AbortedTxn>& out) const;
  Status truncate_to(int64_t offset);     // drops entries whose last_offset >= offset
  Status flush();                          // fsync
  Status remove();                         // deletes the file
  Status rename(const std::filesystem::path& to);
  const std::vector<AbortedTxn>& entries() const { return entries_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::vector<AbortedTxn> entries_;
  int fd_ = -1;
};

}  // namespace mirra::storage
