#include "storage/index_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "storage/durable_file.h"

namespace mirra::storage {

using durable::io_error;

Result<IndexFile> IndexFile::open(std::filesystem::path path, std::vector<uint8_t>& content) {
  auto read = durable::read_file(path);
  if (!read) return read.status();
  IndexFile f;
  auto file = CachedFile::open(std::move(path), O_RDWR, /*create=*/!read->has_value());
  if (!file) return file.status();
  f.file_ = std::move(file.value());
  content = read->has_value() ? std::move(**read) : std::vector<uint8_t>();
  f.size_ = static_cast<int64_t>(content.size());
  return f;
}

Status IndexFile::append(std::span<const uint8_t> bytes) {
  auto h = file_.handle();
  if (!h) return h.status();
  dirty_ = true;  // even a failed write may have reached the file (a torn entry is detected)
  if (Status st = durable::pwrite_all((*h)->fd(), bytes, size_, path()); !st) return st;
  size_ += static_cast<int64_t>(bytes.size());
  return Status();
}

Status IndexFile::truncate(int64_t size) {
  if (size == size_) return Status();  // nothing to cut: no write, no descriptor
  auto h = file_.handle();
  if (!h) return h.status();
  if (::ftruncate((*h)->fd(), size) != 0) return io_error("truncate", path(), errno);
  size_ = size;
  dirty_ = true;
  return Status();
}

Status IndexFile::flush() {
  if (!dirty_) return Status();
  auto h = file_.handle();
  if (!h) return h.status();
  if (::fdatasync((*h)->fd()) != 0) return io_error("fsync", path(), errno);
  dirty_ = false;
  return Status();
}

Status IndexFile::remove() {
  file_.close();
  if (::unlink(path().c_str()) != 0 && errno != ENOENT) return io_error("unlink", path(), errno);
  return Status();
}

Status IndexFile::rename(const std::filesystem::path& to) {
  if (::rename(path().c_str(), to.c_str()) != 0) return io_error("rename", path(), errno);
  file_.renamed(to);
  return Status();
}

}  // namespace mirra::storage
