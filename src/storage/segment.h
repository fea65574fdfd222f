// A log segment: "<20-digit base offset>.log" holding record batches in their exact v2 wire
// bytes, back to back (docs/formats/segment.md), with its sparse offset index (".index"), time
// index (".timeindex") and aborted-transactions index (".txnindex").
//
// SegmentFile is the .log file: its path and size, and a slot in the file cache (file_cache.h)
// that opens a descriptor when one is needed. Reads that go on after the owner moved on
// (FileSlice, the cleaner) hold a FileHandle from handle(), so a slice stays readable after the
// segment is truncated away or deleted by retention (the descriptor keeps the inode alive).
// Only the owner thread uses a SegmentFile; other threads only pread/sendfile their handles.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "protocol/records/record_batch.h"
#include "storage/file_cache.h"
#include "storage/log_config.h"
#include "storage/offset_index.h"
#include "storage/time_index.h"
#include "storage/txn_index.h"

namespace mirra::storage {

// "<dir>/<20-digit offset><suffix>", e.g. 00000000000000001234.log
std::filesystem::path segment_path(const std::filesystem::path& dir, int64_t base_offset,
                                   std::string_view suffix);
// The base offset encoded in a segment file name, or nullopt if the name is not one.
std::optional<int64_t> parse_segment_name(const std::filesystem::path& file,
                                          std::string_view suffix);

class SegmentFile {
 public:
  // Creates the file when missing; no descriptor stays open (storage/file_cache.h).
  static Result<std::shared_ptr<SegmentFile>> open(std::filesystem::path path);
  SegmentFile(const SegmentFile&) = delete;
  SegmentFile& operator=(const SegmentFile&) = delete;

  const std::filesystem::path& path() const { return file_.path(); }
  int64_t size() const { return size_; }

  // Owner only. An open descriptor (from the file cache) for reads that go on elsewhere:
  // FileSlices and the cleaner hold it, so eviction or deletion does not close it under them.
  Result<std::shared_ptr<const FileHandle>> handle() const;
  // Reads exactly out.size() bytes at `position`. Short file: CORRUPT_MESSAGE.
  Status read_at(int64_t position, std::span<uint8_t> out) const;
  Status append(std::span<const uint8_t> bytes);
  Status truncate(int64_t size);
  Status flush();
  Status rename(const std::filesystem::path& to);

 private:
  SegmentFile() = default;
  CachedFile file_;
  int64_t size_ = 0;
};

// The header fields of one batch as stored, read without its records.
struct BatchHeader {
  int64_t position = 0;  // in the .log file
  int32_t size = 0;      // 12 + batchLength
  int64_t base_offset = 0;
  int64_t last_offset = 0;
  int32_t leader_epoch = -1;
  int64_t max_timestamp = -1;
  int64_t next_offset() const { return last_offset + 1; }
  int64_t end_position() const { return position + size; }
};

// Walks batch headers from a position with buffered preads (8 KiB at a time, so small batches
// cost no syscall each). For data already validated (below the recovery point, or written by
// this process): a header that is impossible is reported as an error, nothing is checksummed.
class HeaderScanner {
 public:
  HeaderScanner(const FileHandle& file, int64_t position, int64_t end);
  // The next header; nullopt at `end`. An error for a malformed or cut header.
  Result<std::optional<BatchHeader>> next();

 private:
  const FileHandle& file_;
  int64_t position_;
  int64_t end_;
  std::vector<uint8_t> buf_;
  int64_t buf_position_ = 0;
  int64_t last_size_ = 0;  // of the previous batch: decides how far to read ahead
};

class LogSegment {
 public:
  // A new, empty segment (truncates files that may be left over from a previous life).
  // `suffix` is appended to every file name: the cleaner writes "<base>.log.cleaned" etc.
  static Result<std::unique_ptr<LogSegment>> create(const std::filesystem::path& dir,
                                                    int64_t base_offset, const LogConfig& config,
                                                    int64_t now_ms, std::string_view suffix = "");
  // An existing segment; its indexes are loaded as they are. `indexes_valid` tells whether
  // they passed the sanity checks (if not, rebuild them with reset_indexes() + index_batch()).
  // Call load_tail() (trusted data) or let recovery scan it before appending.
  static Result<std::unique_ptr<LogSegment>> open(const std::filesystem::path& dir,
                                                  int64_t base_offset, const LogConfig& config,
                                                  int64_t now_ms, bool& indexes_valid,
                                                  std::string_view suffix = "");

  int64_t base_offset() const { return base_; }
  int64_t size() const { return file_->size(); }
  bool empty() const { return file_->size() == 0; }
  // The offset after the last batch (the base offset when empty).
  int64_t next_offset() const { return next_offset_; }
  int64_t max_timestamp() const { return max_timestamp_; }
  int64_t offset_of_max_timestamp() const { return offset_of_max_timestamp_; }
  int64_t created_ms() const { return created_ms_; }
  const std::shared_ptr<SegmentFile>& file() const { return file_; }
  TxnIndex& txn_index() { return txn_; }
  const TxnIndex& txn_index() const { return txn_; }
  const OffsetIndex& offset_index() const { return offset_index_; }
  const TimeIndex& time_index() const { return time_index_; }

  // Kafka's shouldRoll for an incoming batch of `size` bytes, timestamp `max_timestamp`,
  // ending at `last_offset`.
  bool should_roll(const LogConfig& config, int64_t size, int64_t max_timestamp,
                   int64_t last_offset) const;

  // Appends one batch whose bytes are final, then indexes it.
  Status append(const records::BatchView& batch);
  // Indexing of a batch already in the file (append and index rebuild share it).
  Status index_batch(const BatchHeader& h);
  Status reset_indexes();
  // Trusted data: recomputes next offset and max timestamp from the indexes plus a header scan
  // from the last offset-index entry to the end.
  Status load_tail();

  // The first batch whose last offset >= `offset`, or nullopt when there is none.
  Result<std::optional<BatchHeader>> find_batch(int64_t offset) const;
  // Drops every batch at or after `position` (a batch boundary) and the index entries of
  // offsets >= `new_next_offset`; the txn index is the caller's (it knows the offsets).
  Status truncate_at(int64_t position, int64_t new_next_offset);

  // Called when a newer segment takes over appends: records the final largest timestamp in
  // the time index (so it can be loaded from there) and flushes everything.
  Status on_become_inactive();
  // fsyncs the .log and the txn index; with `indexes`, the offset and time indexes too. The
  // recovery point may pass data whose offset/time index entries are not synced: below it a
  // lost entry only makes an index sparser (load_tail scans from the last entry left) and a
  // torn one fails the sanity checks, while a lost aborted-txn entry would be wrong data.
  Status flush(bool indexes = true);
  bool dirty() const { return dirty_; }
  // Renames every file to "<name>.deleted" and removes it. Open FileSlices keep reading.
  Status remove();
  // Only the rename: the files stay on disk under their ".deleted" names (see files()) until
  // the owner removes them, after file.delete.delay.ms, away from the append path.
  Status mark_deleted();
  // The segment's files as currently named (the .txnindex may not exist).
  std::vector<std::filesystem::path> files() const;
  void set_max_index_entries(const LogConfig& config);

 private:
  LogSegment() = default;
  void track_timestamp(int64_t max_timestamp, int64_t last_offset);

  std::filesystem::path dir_;
  int64_t base_ = 0;
  std::shared_ptr<SegmentFile> file_;
  OffsetIndex offset_index_;
  TimeIndex time_index_;
  TxnIndex txn_;
  int32_t index_interval_bytes_ = 4096;
  int64_t bytes_since_last_index_ = 0;
  int64_t next_offset_ = 0;
  int64_t max_timestamp_ = -1;
  int64_t offset_of_max_timestamp_ = -1;  // last offset of the batch that set max_timestamp_
  std::optional<int64_t> rolling_base_timestamp_;  // first batch's max timestamp
  int64_t created_ms_ = 0;
  bool dirty_ = false;
};

}  // namespace mirra::storage
