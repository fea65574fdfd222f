// LogDirHealth: what the broker knows about the file system of its log directory, learnt from
// the outcome of the storage work posted to the shards (PartitionManager::start) and classified
// by storage::io_error_kind(). The rules (src/cluster/README.md, "Full or failing
// disk"):
//
// - full: an operation fails with ENOSPC or EDQUOT. Logged once (ERROR, with the directory and
//   its free and total bytes from statvfs). Nothing is refused: each append is tried and
//   answered KAFKA_STORAGE_ERROR by storage (which leaves no partial batch behind), so that the
//   first append after space is freed succeeds; that append ends the state (logged once, INFO).
// - offline: an operation fails with a device error (EIO, EROFS, ...), as Kafka marks a log
//   directory offline on its first IOException. Logged once (ERROR); from then on every
//   partition of the directory answers KAFKA_STORAGE_ERROR without touching the disk, and
//   DescribeLogDirs reports the directory with KAFKA_STORAGE_ERROR, until the broker restarts.
// - any other error (a missing file, EMFILE, a malformed checkpoint) stays the failing
//   operation's own: it says nothing about the directory.
//
// Threading: the core thread only, like the PartitionManager that owns it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "base/status.h"

namespace mirra::cluster {

// The file system's size and the bytes an unprivileged writer can still use (statvfs); -1
// for both when statvfs fails.
struct DiskSpace {
  int64_t total_bytes = -1;
  int64_t usable_bytes = -1;
};
DiskSpace disk_space(const std::filesystem::path& dir);

class LogDirHealth {
 public:
  explicit LogDirHealth(std::filesystem::path dir) : dir_(std::move(dir)) {}

  // The outcome of one storage operation on the directory; `append` when the operation
  // appended records (its success is what ends the full state).
  void observe(const Status& outcome, bool append);

  bool full() const { return full_; }
  bool offline() const { return !offline_reason_.empty(); }
  // The device error that took the directory offline (empty while online).
  const std::string& offline_reason() const { return offline_reason_; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  bool full_ = false;
  std::string offline_reason_;
};

}  // namespace mirra::cluster
