#include "storage/durable_file.h"

#include "storage/io_error.h"

#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace mirra::storage::durable {

namespace {

// Closes an fd on every exit path of the helpers below.
class FdGuard {
 public:
  explicit FdGuard(int fd) : fd_(fd) {}
  ~FdGuard() {
    if (fd_ >= 0) ::close(fd_);
  }
  FdGuard(const FdGuard&) = delete;
  FdGuard& operator=(const FdGuard&) = delete;
  int get() const { return fd_; }
  // Closes now, reporting the error (close can report a failed delayed write).
  int close_now() {
    int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

}  // namespace

Status io_error(std::string_view what, const std::filesystem::path& path, int err) {
  const char* name = ::strerrorname_np(err);
  return Status(ErrorCode::KAFKA_STORAGE_ERROR,
                std::string(what) + " " + path.string() + ": " + std::strerror(err) + " (" +
                    (name != nullptr ? name : std::to_string(err)) + ")");
}

Status write_all(int fd, std::span<const uint8_t> bytes, const std::filesystem::path& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error("write", path, errno);
    }
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

Status pwrite_all(int fd, std::span<const uint8_t> bytes, int64_t offset,
                  const std::filesystem::path& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(fd, bytes.data() + done, bytes.size() - done,
                               static_cast<off_t>(offset + static_cast<int64_t>(done)));
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error("write", path, errno);
    }
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

Status fsync_fd(int fd, const std::filesystem::path& path) {
  while (::fsync(fd) != 0) {
    if (errno != EINTR) return io_error("fsync", path, errno);
  }
  return Status::OK();
}

Status fsync_dir(const std::filesystem::path& dir) {
  FdGuard fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return io_error("open directory", dir, errno);
  return fsync_fd(fd.get(), dir);
}

Status write_file_atomically(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
  std::filesystem::path tmp = path;
  tmp += kTempSuffix;
  FdGuard fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) return io_error("create", tmp, errno);
  if (Status st = write_all(fd.get(), bytes, tmp); !st) return st;
  if (Status st = fsync_fd(fd.get(), tmp); !st) return st;
  if (fd.close_now() != 0) return io_error("close", tmp, errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return io_error("rename to", path, errno);
  std::filesystem::path dir = path.parent_path();
  return fsync_dir(dir.empty() ? std::filesystem::path(".") : dir);
}

Result<std::optional<std::vector<uint8_t>>> read_file(const std::filesystem::path& path) {
  FdGuard fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return std::optional<std::vector<uint8_t>>();
    return io_error("open", path, errno);
  }
  std::vector<uint8_t> out;
  uint8_t buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error("read", path, errno);
    }
    if (n == 0) break;
    out.insert(out.end(), buf, buf + n);
  }
  return std::optional<std::vector<uint8_t>>(std::move(out));
}

}  // namespace mirra::storage::durable

namespace mirra::storage {

IoErrorKind io_error_kind(const Status& s) {
  if (s.code() != ErrorCode::KAFKA_STORAGE_ERROR) return IoErrorKind::kOther;
  const std::string& m = s.message();
  auto ends_with = [&m](std::string_view name) {
    const std::string tail = "(" + std::string(name) + ")";
    return m.size() >= tail.size() && m.compare(m.size() - tail.size(), tail.size(), tail) == 0;
  };
  for (std::string_view name : {"ENOSPC", "EDQUOT"}) {
    if (ends_with(name)) return IoErrorKind::kNoSpace;
  }
  for (std::string_view name : {"EIO", "EROFS", "ENXIO", "ENODEV", "EUCLEAN"}) {
    if (ends_with(name)) return IoErrorKind::kDevice;
  }
  return IoErrorKind::kOther;
}

}  // namespace mirra::storage
