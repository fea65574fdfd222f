#include "storage/file_cache.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "storage/durable_file.h"

namespace mirra::storage {

using durable::io_error;

FileHandle::~FileHandle() {
  if (fd_ >= 0) ::close(fd_);
}

Status FileHandle::read_at(int64_t position, std::span<uint8_t> out) const {
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(fd_, out.data() + done, out.size() - done,
                              static_cast<off_t>(position + static_cast<int64_t>(done)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io_error("read", path_, errno);
    if (n == 0)
      return {ErrorCode::CORRUPT_MESSAGE,
              path_.string() + ": unexpected end of file at position " +
                  std::to_string(position + static_cast<int64_t>(done))};
    done += static_cast<size_t>(n);
  }
  return Status();
}

// ---- FileCache ---------------------------------------------------------------------------------

FileCache& FileCache::instance() {
  static FileCache cache(default_capacity());
  return cache;
}

size_t FileCache::default_capacity() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 1u << 16;
  return std::max<size_t>(kMinCapacity, static_cast<size_t>(limit.rlim_cur) / 2);
}

void FileCache::set_capacity(size_t capacity) {
  std::list<Entry> evicted;
  std::lock_guard lock(mu_);
  capacity_ = std::max(capacity, kMinCapacity);
  evict_locked(capacity_, evicted);
}

size_t FileCache::capacity() const {
  std::lock_guard lock(mu_);
  return capacity_;
}

size_t FileCache::size() const {
  std::lock_guard lock(mu_);
  return lru_.size();
}

uint64_t FileCache::opens() const {
  std::lock_guard lock(mu_);
  return opens_;
}

void FileCache::evict_locked(size_t keep, std::list<Entry>& out) {
  while (lru_.size() > keep) {
    where_.erase(lru_.back().owner);
    out.splice(out.begin(), lru_, std::prev(lru_.end()));
  }
}

Result<std::shared_ptr<FileHandle>> FileCache::acquire(const void* owner,
                                                       const std::filesystem::path& path,
                                                       int flags) {
  std::list<Entry> evicted;  // closed after the lock is released (declared first)
  {
    std::lock_guard lock(mu_);
    if (auto it = where_.find(owner); it != where_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      return it->second->handle;
    }
  }
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
    // Descriptors pinned by reads, or a limit lowered under us: make room and retry once.
    {
      std::lock_guard lock(mu_);
      evict_locked(lru_.size() / 2, evicted);
    }
    evicted.clear();
    fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  }
  if (fd < 0) return io_error("open", path, errno);
  auto handle = std::make_shared<FileHandle>(fd, path);
  std::lock_guard lock(mu_);
  ++opens_;
  lru_.push_front(Entry{owner, handle});
  where_[owner] = lru_.begin();
  evict_locked(capacity_, evicted);
  return handle;
}

void FileCache::forget(const void* owner) {
  std::list<Entry> dropped;
  std::lock_guard lock(mu_);
  if (auto it = where_.find(owner); it != where_.end()) {
    dropped.splice(dropped.begin(), lru_, it->second);
    where_.erase(it);
  }
}

// ---- CachedFile --------------------------------------------------------------------------------

CachedFile::CachedFile(CachedFile&& other) noexcept { *this = std::move(other); }

CachedFile& CachedFile::operator=(CachedFile&& other) noexcept {
  if (this != &other) {
    close();
    other.close();  // the cache knows files by their slot's address
    path_ = std::move(other.path_);
    flags_ = other.flags_;
    other.path_.clear();
  }
  return *this;
}

CachedFile::~CachedFile() { close(); }

Result<CachedFile> CachedFile::open(std::filesystem::path path, int flags, bool create) {
  CachedFile f;
  f.flags_ = flags;
  if (create) {
    const int fd = ::open(path.c_str(), flags | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return io_error("open", path, errno);
    ::close(fd);
  }
  f.path_ = std::move(path);
  return f;
}

Result<std::shared_ptr<FileHandle>> CachedFile::handle() const {
  return FileCache::instance().acquire(this, path_, flags_);
}

void CachedFile::renamed(std::filesystem::path to) {
  close();  // the cached descriptor still works, but its messages would name the old file
  path_ = std::move(to);
}

void CachedFile::close() {
  if (!path_.empty()) FileCache::instance().forget(this);
}

}  // namespace mirra::storage
