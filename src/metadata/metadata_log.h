// MetadataLog: the broker's durable metadata store on local disk (KRaft-like, one node): a log
// of metadata records plus snapshots of the image.
//
// Layout under the metadata directory `dir`:
//   <dir>/__cluster_metadata-0/                  a storage::PartitionLog; each append() is one
//                                               Kafka v2 record batch (key null, value =
//                                               encode_record), so CRCs, recovery and torn-tail
//                                               handling are storage's
//   <dir>/__cluster_metadata-0/<end>.checkpoint  snapshots (metadata/snapshot.h)
// Formats: docs/formats/metadata.md.
//
// Threads: a MetadataLog belongs to one owner thread and takes no locks. Every call blocks on
// disk (append fsyncs; open recovers and replays), so the owner is never the network core
// thread: the core posts appends to it and applies the records to its image when the append
// has returned (the log never touches an image after open).
//
// Failures: an I/O error in append() leaves it unknown whether the batch is on disk, so the
// log refuses every later append and snapshot with that error; the owner closes it and opens
// it again (open settles what survived), as Kafka halts on a metadata log write failure.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>

#include "base/status.h"
#include "metadata/image.h"
#include "metadata/records.h"

namespace mirra::storage {
class PartitionLog;
}

namespace mirra::metadata {

// The partition directory of the log under the metadata directory.
inline constexpr std::string_view kMetadataPartitionDir = "__cluster_metadata-0";

struct MetadataLogOptions {
  // A segment rolls at this size; snapshots delete only whole segments, so smaller segments
  // free disk sooner (Kafka's metadata.log.segment.bytes is 1 GiB; metadata is small).
  int32_t segment_bytes = 64 << 20;
  // The largest append (one batch); a larger one is refused with MESSAGE_TOO_LARGE.
  int32_t max_batch_bytes = 8 << 20;
};

class MetadataLog {
 public:
  // Opens dir (creating it), loads the newest valid snapshot and replays the records after it
  // into *image (must be empty). A snapshot that does not read back whole (torn, bad CRC,
  // bad record) is skipped with a warning in favour of an older one plus the log. Fails with
  // CORRUPT_MESSAGE when the log lacks records that no valid snapshot covers, or a record does
  // not decode or apply; *image is left empty on failure.
  static Result<std::unique_ptr<MetadataLog>> open(const std::filesystem::path& dir,
                                                   MetadataImage* image,
                                                   MetadataLogOptions options = {});
  ~MetadataLog();
  MetadataLog(const MetadataLog&) = delete;
  MetadataLog& operator=(const MetadataLog&) = delete;

  // Appends records as ONE atomic batch (all or nothing after a crash), fsyncs before
  // returning; returns the offset of the first record (record i gets first + i). Does not
  // touch any image. An empty span is INVALID_REQUEST.
  Result<int64_t> append(std::span<const MetadataRecord> records);

  // Snapshot of image covering up to image.last_offset(): written atomically (temp file,
  // fsync, rename, dir fsync); then older snapshots and log segments wholly covered by it are
  // deleted. The image must not be ahead of the log nor behind the newest snapshot
  // (INVALID_REQUEST).
  Status write_snapshot(const MetadataImage& image);

  // The offset the next appended record gets.
  int64_t next_offset() const;
  // Records appended after the newest snapshot (all of them when there is none); for a
  // "snapshot every N records" policy.
  int64_t records_since_snapshot() const;
  // End offset of the newest snapshot (image.last_offset() + 1 when written), 0 if none.
  int64_t snapshot_end_offset() const { return snapshot_end_; }
  // The directory holding the log's segments and snapshots.
  const std::filesystem::path& partition_dir() const { return partition_dir_; }

  // Flushes and closes the record log; later calls other than close() are refused.
  Status close();

 private:
  MetadataLog(std::filesystem::path partition_dir, std::unique_ptr<storage::PartitionLog> log,
              MetadataLogOptions options);
  Status usable() const;
  Status delete_snapshots_below(int64_t end_offset);

  std::filesystem::path partition_dir_;
  std::unique_ptr<storage::PartitionLog> log_;
  MetadataLogOptions options_;
  int64_t snapshot_end_ = 0;
  Status failed_;  // sticky I/O failure of an append
  bool closed_ = false;
};

}  // namespace mirra::metadata
