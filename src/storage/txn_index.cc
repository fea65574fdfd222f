#include "storage/txn_index.h"

#include <algorithm>
#include <cerrno>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "protocol/records/byte_order.h"
#include "storage/durable_file.h"

namespace mirra::storage {

namespace {

// Byte offsets inside one 34-byte entry (all big-endian).
constexpr size_t kVersionAt = 0;       // int16
constexpr size_t kProducerIdAt = 2;    // int64
constexpr size_t kFirstOffsetAt = 10;  // int64
constexpr size_t kLastOffsetAt = 18;   // int64
constexpr size_t kLsoAt = 26;          // int64
static_assert(kLsoAt + 8 == TxnIndex::kEntrySize);

void encode(const AbortedTxn& t, uint8_t* p) {
  records::store_be16(p + kVersionAt, static_cast<uint16_t>(TxnIndex::kVersion));
  records::store_be64(p + kProducerIdAt, static_cast<uint64_t>(t.producer_id));
  records::store_be64(p + kFirstOffsetAt, static_cast<uint64_t>(t.first_offset));
  records::store_be64(p + kLastOffsetAt, static_cast<uint64_t>(t.last_offset));
  records::store_be64(p + kLsoAt, static_cast<uint64_t>(t.last_stable_offset));
}

AbortedTxn decode(const uint8_t* p) {
  AbortedTxn t;
  t.producer_id = static_cast<int64_t>(records::load_be64(p + kProducerIdAt));
  t.first_offset = static_cast<int64_t>(records::load_be64(p + kFirstOffsetAt));
  t.last_offset = static_cast<int64_t>(records::load_be64(p + kLastOffsetAt));
  t.last_stable_offset = static_cast<int64_t>(records::load_be64(p + kLsoAt));
  return t;
}

Status truncate_file(int fd, const std::filesystem::path& path, size_t size) {
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0)
    return durable::io_error("truncate", path, errno);
  return Status::OK();
}

}  // namespace

Result<TxnIndex> TxnIndex::open(std::filesystem::path path) {
  TxnIndex index;
  index.path_ = std::move(path);
  auto bytes = durable::read_file(index.path_);
  if (!bytes) return bytes.status();
  if (!bytes->has_value()) return index;  // created by the first append
  auto file = CachedFile::open(index.path_, O_RDWR, /*create=*/false);
  if (!file) return file.status();
  index.file_ = std::move(file.value());
  const std::vector<uint8_t>& data = bytes->value();

  size_t whole = data.size() / kEntrySize * kEntrySize;
  for (size_t at = 0; at < whole; at += kEntrySize) {
    int16_t version = static_cast<int16_t>(records::load_be16(data.data() + at + kVersionAt));
    if (version != kVersion) {
      return Status(ErrorCode::KAFKA_STORAGE_ERROR,
                    "txn index " + index.path_.string() + ": entry at byte " + std::to_string(at) +
                        " has unknown version " + std::to_string(version));
    }
    index.entries_.push_back(decode(data.data() + at));
  }
  if (whole != data.size()) {
    // A crash in the middle of append(): the entry never counted, so cutting it loses nothing.
    MIRRA_CLOG_WARN("storage", "txn index {}: cutting a torn last entry ({} of {} bytes)",
                    index.path_.string(), data.size() - whole, kEntrySize);
    auto h = index.file_.handle();
    if (!h) return h.status();
    if (Status st = truncate_file((*h)->fd(), index.path_, whole); !st) return st;
    index.dirty_ = true;
  }
  return index;
}

Status TxnIndex::ensure_exists() {
  if (!file_.path().empty()) return Status::OK();
  auto file = CachedFile::open(path_, O_RDWR, /*create=*/true);
  if (!file) return file.status();
  file_ = std::move(file.value());
  return Status::OK();
}

Status TxnIndex::write_entry(std::span<const uint8_t> bytes) {
  auto h = file_.handle();
  if (!h) return h.status();
  const size_t at = entries_.size() * kEntrySize;
  if (Status st = durable::pwrite_all((*h)->fd(), bytes, static_cast<int64_t>(at), path_); !st) {
    // Drop a partial entry now so that later appends stay aligned on 34-byte boundaries.
    (void)truncate_file((*h)->fd(), path_, at);
    return st;
  }
  return Status::OK();
}

Status TxnIndex::append(const AbortedTxn& txn) {
  if (!entries_.empty() && entries_.back().last_offset >= txn.last_offset) {
    return Status(ErrorCode::INVALID_REQUEST, "txn index " + path_.string() + ": marker offset " +
                                                  std::to_string(txn.last_offset) +
                                                  " is not above the last entry's " +
                                                  std::to_string(entries_.back().last_offset));
  }
  if (Status st = ensure_exists(); !st) return st;
  dirty_ = true;  // even a failed write may have reached the file
  uint8_t buf[kEntrySize];
  encode(txn, buf);
  if (Status st = write_entry(buf); !st) return st;
  entries_.push_back(txn);
  return Status::OK();
}

bool TxnIndex::collect(int64_t fetch_offset, int64_t upper_bound_offset,
                       std::vector<AbortedTxn>& out) const {
  for (const AbortedTxn& t : entries_) {
    if (t.last_offset >= fetch_offset && t.first_offset < upper_bound_offset) out.push_back(t);
    // Every transaction still open when this marker was written started at or after this LSO;
    // once it reaches the bound, nothing later can start below the bound.
    if (t.last_stable_offset >= upper_bound_offset) return true;
  }
  return false;
}

Status TxnIndex::truncate_to(int64_t offset) {
  auto first_dropped = std::find_if(entries_.begin(), entries_.end(),
                                    [&](const AbortedTxn& t) { return t.last_offset >= offset; });
  size_t keep = static_cast<size_t>(first_dropped - entries_.begin());
  if (keep == entries_.size()) return Status::OK();
  auto h = file_.handle();  // entries exist, so the file does
  if (!h) return h.status();
  if (Status st = truncate_file((*h)->fd(), path_, keep * kEntrySize); !st) return st;
  dirty_ = true;
  entries_.resize(keep);
  return Status::OK();
}

Status TxnIndex::flush() {
  if (file_.path().empty() || !dirty_) return Status::OK();
  auto h = file_.handle();
  if (!h) return h.status();
  if (Status st = durable::fsync_fd((*h)->fd(), path_); !st) return st;
  dirty_ = false;
  return Status::OK();
}

Status TxnIndex::remove() {
  file_ = CachedFile();
  dirty_ = false;
  entries_.clear();
  if (::unlink(path_.c_str()) != 0 && errno != ENOENT)
    return durable::io_error("delete", path_, errno);
  return Status::OK();
}

Status TxnIndex::rename(const std::filesystem::path& to) {
  // No file yet: only the name the first append will use changes.
  if (file_.path().empty()) {
    path_ = to;
    return Status::OK();
  }
  if (::rename(path_.c_str(), to.c_str()) != 0) {
    return durable::io_error("rename to " + to.string() + " from", path_, errno);
  }
  file_.renamed(to);
  path_ = to;
  return Status::OK();
}

}  // namespace mirra::storage
