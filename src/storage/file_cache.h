// Bounded open files. Kafka keeps every segment's files open (three or four descriptors per
// partition), which at the usual process limit of 1024 descriptors caps a broker at a few
// hundred partitions. Here a segment's .log and its index files hold a CachedFile (a path and a
// slot) instead of a descriptor, and get one from the process-wide FileCache when they read or
// write: an LRU of open descriptors whose capacity follows the process limit
// (FileCache::default_capacity), so the number of partitions is bounded by disk and memory,
// not by RLIMIT_NOFILE.
//
// A FileHandle is one open descriptor, closed when its last holder lets go. The cache holds one
// reference per entry; a read that hands a byte range to another thread (FileSlice, the
// cleaner's input) holds another, so evicting an entry never closes a descriptor in use and a
// slice stays readable after the segment was deleted. Descriptors pinned that way are outside
// the capacity (they are bounded by the requests in flight).
//
// fsync through a descriptor opened after the write is fine on Linux: it flushes the inode's
// dirty pages whichever descriptor wrote them, and since Linux 4.16 a write-back error nobody
// has seen yet is reported to a descriptor opened later too.
//
// Threading: FileCache is thread-safe (one mutex; shard threads share it). A CachedFile belongs
// to its owner's thread, like the segment holding it; a FileHandle is immutable and any thread
// may pread or sendfile through it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>

#include "base/status.h"

namespace mirra::storage {

class FileHandle {
 public:
  FileHandle(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  ~FileHandle();
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;

  int fd() const { return fd_; }
  // The name the file had when it was opened (for messages).
  const std::filesystem::path& path() const { return path_; }
  // Reads exactly out.size() bytes at `position`. Short file: CORRUPT_MESSAGE.
  Status read_at(int64_t position, std::span<uint8_t> out) const;

 private:
  int fd_;
  std::filesystem::path path_;
};

class FileCache {
 public:
  // Never fewer than this, whatever the limit says: a partition being appended needs its .log
  // and two indexes at once, and a handful of partitions should not thrash.
  static constexpr size_t kMinCapacity = 16;

  // The process-wide cache (log.open.files.max sets its capacity at broker start).
  static FileCache& instance();
  // Half the soft RLIMIT_NOFILE (at least kMinCapacity): the other half stays for sockets,
  // the metadata log, checkpoints written atomically and descriptors pinned by reads.
  static size_t default_capacity();

  explicit FileCache(size_t capacity) : capacity_(capacity) {}
  void set_capacity(size_t capacity);
  size_t capacity() const;
  size_t size() const;     // descriptors the cache holds now
  uint64_t opens() const;  // descriptors opened so far (for tests and benchmarks)

  // The cached descriptor of `owner`, or a new one from open(path, flags) that evicts the least
  // recently used entries beyond the capacity. EMFILE/ENFILE: the cache gives up half of its
  // entries and tries once more.
  Result<std::shared_ptr<FileHandle>> acquire(const void* owner, const std::filesystem::path& path,
                                              int flags);
  // Drops `owner`'s entry (closed, renamed, removed or destroyed).
  void forget(const void* owner);

 private:
  struct Entry {
    const void* owner;
    std::shared_ptr<FileHandle> handle;
  };
  // Under mu_: moves the entries beyond `keep` out of the cache into `out` (closed by the
  // caller after unlocking).
  void evict_locked(size_t keep, std::list<Entry>& out);

  mutable std::mutex mu_;
  size_t capacity_;
  uint64_t opens_ = 0;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<const void*, std::list<Entry>::iterator> where_;
};

// One file's slot in FileCache::instance(): the path and the flags to (re)open it with. The
// first open() creates the file when asked to; later reopens do not, so a file removed behind
// the owner's back is an error rather than silently recreated empty.
class CachedFile {
 public:
  CachedFile() = default;
  CachedFile(CachedFile&& other) noexcept;
  CachedFile& operator=(CachedFile&& other) noexcept;
  CachedFile(const CachedFile&) = delete;
  CachedFile& operator=(const CachedFile&) = delete;
  ~CachedFile();

  // Opens (O_CREAT with `create`) and caches the descriptor; flags without O_CREAT/O_TRUNC.
  static Result<CachedFile> open(std::filesystem::path path, int flags, bool create);

  Result<std::shared_ptr<FileHandle>> handle() const;
  // The file now has another name (the caller renamed it); the next handle() opens that one.
  void renamed(std::filesystem::path to);
  void close();  // gives the descriptor back; handle() reopens
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int flags_ = 0;
};

}  // namespace mirra::storage
