#include "storage/index_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "storage/durable_file.h"

namespace mirra::storage {

using durable::io_error;

IndexFile::IndexFile(IndexFile&& other) noexcept { *this = std::move(other); }

IndexFile& IndexFile::operator=(IndexFile&& other) noexcept {
  if (this != &other) {
    close();
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
    dirty_ = other.dirty_;
  }
  return *this;
}

IndexFile::~IndexFile() { close(); }

void IndexFile::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Result<IndexFile> IndexFile::open(std::filesystem::path path, std::vector<uint8_t>& content) {
  IndexFile f;
  f.fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (f.fd_ < 0) return io_error("open", path, errno);
  f.path_ = std::move(path);
  const off_t end = ::lseek(f.fd_, 0, SEEK_END);
  if (end < 0) return io_error("lseek", f.path_, errno);
  content.resize(static_cast<size_t>(end));
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n =
        ::pread(f.fd_, content.data() + done, content.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return io_error("read", f.path_, n < 0 ? errno : EIO);
    done += static_cast<size_t>(n);
  }
  f.size_ = end;
  return f;
}

Status IndexFile::append(std::span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done,
                               static_cast<off_t>(size_ + static_cast<int64_t>(done)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io_error("write", path_, errno);
    done += static_cast<size_t>(n);
  }
  size_ += static_cast<int64_t>(bytes.size());
  dirty_ = true;
  return Status();
}

Status IndexFile::truncate(int64_t size) {
  if (::ftruncate(fd_, size) != 0) return io_error("truncate", path_, errno);
  size_ = size;
  dirty_ = true;
  return Status();
}

Status IndexFile::flush() {
  if (!dirty_) return Status();
  if (::fdatasync(fd_) != 0) return io_error("fsync", path_, errno);
  dirty_ = false;
  return Status();
}

Status IndexFile::remove() {
  close();
  if (::unlink(path_.c_str()) != 0 && errno != ENOENT) return io_error("unlink", path_, errno);
  return Status();
}

Status IndexFile::rename(const std::filesystem::path& to) {
  if (::rename(path_.c_str(), to.c_str()) != 0) return io_error("rename", path_, errno);
  path_ = to;
  return Status();
}

}  // namespace mirra::storage
