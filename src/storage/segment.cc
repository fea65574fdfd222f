#include "storage/segment.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "base/failpoint.h"
#include "base/log.h"
#include "protocol/records/byte_order.h"
#include "storage/durable_file.h"

namespace mirra::storage {
namespace {

constexpr std::string_view kMirraLogComponent = "storage";
using durable::io_error;
namespace layout = records::layout;

Status corrupt(std::string message) { return {ErrorCode::CORRUPT_MESSAGE, std::move(message)}; }

// Reads the header fields from at least layout::kHeaderSize bytes.
Result<BatchHeader> decode_header(const uint8_t* p, int64_t position) {
  BatchHeader h;
  h.position = position;
  const auto length = static_cast<int32_t>(records::load_be32(p + layout::kBatchLength));
  const auto magic = static_cast<int8_t>(p[layout::kMagic]);
  const auto delta = static_cast<int32_t>(records::load_be32(p + layout::kLastOffsetDelta));
  if (magic != records::kMagicV2 || length < layout::kMinBatchLength || delta < 0)
    return corrupt("impossible batch header at position " + std::to_string(position));
  h.size = static_cast<int32_t>(layout::kLogOverhead) + length;
  h.base_offset = static_cast<int64_t>(records::load_be64(p + layout::kBaseOffset));
  h.last_offset = h.base_offset + delta;
  h.leader_epoch = static_cast<int32_t>(records::load_be32(p + layout::kPartitionLeaderEpoch));
  h.max_timestamp = static_cast<int64_t>(records::load_be64(p + layout::kMaxTimestamp));
  return h;
}

}  // namespace

std::filesystem::path segment_path(const std::filesystem::path& dir, int64_t base_offset,
                                   std::string_view suffix) {
  std::string name = fmt::format("{:020d}", base_offset);
  name += suffix;
  return dir / name;
}

std::optional<int64_t> parse_segment_name(const std::filesystem::path& file,
                                          std::string_view suffix) {
  const std::string name = file.filename().string();
  if (name.size() != 20 + suffix.size() || !name.ends_with(suffix)) return std::nullopt;
  int64_t v = 0;
  for (size_t i = 0; i < 20; ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
    if (v > (INT64_MAX - (name[i] - '0')) / 10) return std::nullopt;
    v = v * 10 + (name[i] - '0');
  }
  return v;
}

// ---- SegmentFile -------------------------------------------------------------------------------

Result<std::shared_ptr<SegmentFile>> SegmentFile::open(std::filesystem::path path) {
  std::shared_ptr<SegmentFile> f(new SegmentFile());
  auto file = CachedFile::open(std::move(path), O_RDWR, /*create=*/true);
  if (!file) return file.status();
  f->file_ = std::move(file.value());
  struct stat st {};
  if (::stat(f->path().c_str(), &st) != 0) return io_error("stat", f->path(), errno);
  f->size_ = st.st_size;
  return f;
}

Result<std::shared_ptr<const FileHandle>> SegmentFile::handle() const {
  auto h = file_.handle();
  if (!h) return h.status();
  return std::shared_ptr<const FileHandle>(std::move(h.value()));
}

Status SegmentFile::read_at(int64_t position, std::span<uint8_t> out) const {
  auto h = file_.handle();
  if (!h) return h.status();
  return (*h)->read_at(position, out);
}

Status SegmentFile::append(std::span<const uint8_t> bytes) {
  // Tests make the device fail here ("storage.segment.write=KAFKA_STORAGE_ERROR"): the append
  // fails as a write that returned EIO would, before any byte is written.
  if (!failpoint("storage.segment.write").ok()) return io_error("write", path(), EIO);
  auto h = file_.handle();
  if (!h) return h.status();
  if (Status st = durable::pwrite_all((*h)->fd(), bytes, size_, path()); !st) {
    // Leave no partial batch behind: the next append must start at a batch boundary.
    if (::ftruncate((*h)->fd(), size_) != 0)
      MIRRA_LOG_ERROR("cannot undo a partial write to {}", path().string());
    return st;
  }
  size_ += static_cast<int64_t>(bytes.size());
  return Status();
}

Status SegmentFile::truncate(int64_t size) {
  auto h = file_.handle();
  if (!h) return h.status();
  if (::ftruncate((*h)->fd(), size) != 0) return io_error("truncate", path(), errno);
  size_ = size;
  return Status();
}

Status SegmentFile::flush() {
  auto h = file_.handle();
  if (!h) return h.status();
  return durable::fsync_fd((*h)->fd(), path());
}

Status SegmentFile::rename(const std::filesystem::path& to) {
  if (::rename(path().c_str(), to.c_str()) != 0) return io_error("rename", path(), errno);
  file_.renamed(to);
  return Status();
}

// ---- HeaderScanner -----------------------------------------------------------------------------

HeaderScanner::HeaderScanner(const FileHandle& file, int64_t position, int64_t end)
    : file_(file), position_(position), end_(end) {}

Result<std::optional<BatchHeader>> HeaderScanner::next() {
  if (position_ >= end_) return std::optional<BatchHeader>();
  constexpr int64_t kHeader = layout::kHeaderSize;
  if (end_ - position_ < kHeader)
    return corrupt(file_.path().string() + ": batch header cut at position " +
                   std::to_string(position_));
  const int64_t buf_end = buf_position_ + static_cast<int64_t>(buf_.size());
  if (position_ < buf_position_ || position_ + kHeader > buf_end) {
    // Small batches: read ahead so that the next headers come free. Large ones: the next
    // header is far away, so read just this one instead of kilobytes of records.
    constexpr int64_t kChunk = 8192;
    const int64_t want = last_size_ > kChunk / 2 ? kHeader : kChunk;
    buf_.resize(static_cast<size_t>(std::min(want, end_ - position_)));
    buf_position_ = position_;
    if (Status st = file_.read_at(position_, buf_); !st) return st;
  }
  auto h = decode_header(buf_.data() + (position_ - buf_position_), position_);
  if (!h) return corrupt(file_.path().string() + ": " + h.status().message());
  if (h->end_position() > end_)
    return corrupt(file_.path().string() + ": batch at position " + std::to_string(position_) +
                   " runs past the end of the segment");
  position_ = h->end_position();
  last_size_ = h->size;
  return std::optional<BatchHeader>(*h);
}

// ---- LogSegment --------------------------------------------------------------------------------

Result<std::unique_ptr<LogSegment>> LogSegment::open(const std::filesystem::path& dir,
                                                     int64_t base_offset, const LogConfig& config,
                                                     int64_t now_ms, bool& indexes_valid,
                                                     std::string_view suffix) {
  auto path = [&](std::string_view kind) {
    auto p = segment_path(dir, base_offset, kind);
    p += suffix;
    return p;
  };
  std::unique_ptr<LogSegment> s(new LogSegment());
  s->dir_ = dir;
  s->base_ = base_offset;
  s->next_offset_ = base_offset;
  s->created_ms_ = now_ms;
  s->index_interval_bytes_ = config.index_interval_bytes;
  auto file = SegmentFile::open(path(".log"));
  if (!file) return file.status();
  s->file_ = std::move(file.value());
  // A missing index next to a non-empty log must be rebuilt, not taken as "no entries".
  const bool indexes_exist = std::filesystem::exists(path(".index")) &&
                             std::filesystem::exists(path(".timeindex"));
  bool offsets_ok = false, times_ok = false;
  auto oi = OffsetIndex::open(path(".index"), base_offset, config.max_offset_index_entries(),
                              s->file_->size(), offsets_ok);
  if (!oi) return oi.status();
  s->offset_index_ = std::move(oi.value());
  auto ti =
      TimeIndex::open(path(".timeindex"), base_offset, config.max_time_index_entries(), times_ok);
  if (!ti) return ti.status();
  s->time_index_ = std::move(ti.value());
  auto txn = TxnIndex::open(path(".txnindex"));
  if (!txn) return txn.status();
  s->txn_ = std::move(txn.value());
  indexes_valid = offsets_ok && times_ok && (indexes_exist || s->file_->size() == 0);
  return s;
}

Result<std::unique_ptr<LogSegment>> LogSegment::create(const std::filesystem::path& dir,
                                                       int64_t base_offset, const LogConfig& config,
                                                       int64_t now_ms, std::string_view suffix) {
  bool valid = false;
  auto s = open(dir, base_offset, config, now_ms, valid, suffix);
  if (!s) return s;
  LogSegment& seg = *s.value();
  if (Status st = seg.file_->truncate(0); !st) return st;
  if (Status st = seg.reset_indexes(); !st) return st;
  if (Status st = seg.txn_.truncate_to(base_offset); !st) return st;
  return s;
}

void LogSegment::set_max_index_entries(const LogConfig& config) {
  offset_index_.set_max_entries(config.max_offset_index_entries());
  time_index_.set_max_entries(config.max_time_index_entries());
  index_interval_bytes_ = config.index_interval_bytes;
}

bool LogSegment::should_roll(const LogConfig& config, int64_t size, int64_t max_timestamp,
                             int64_t last_offset) const {
  if (last_offset - base_ > INT32_MAX) return true;  // relative offsets are int32
  if (empty()) return false;
  if (file_->size() + size > config.segment_bytes) return true;
  if (offset_index_.full() || time_index_.full()) return true;
  // Kafka measures segment.ms between the first batch's timestamp and the incoming one.
  return rolling_base_timestamp_ && max_timestamp - *rolling_base_timestamp_ > config.segment_ms;
}

void LogSegment::track_timestamp(int64_t max_timestamp, int64_t last_offset) {
  if (!rolling_base_timestamp_) rolling_base_timestamp_ = max_timestamp;
  if (max_timestamp > max_timestamp_) {
    max_timestamp_ = max_timestamp;
    offset_of_max_timestamp_ = last_offset;
  }
}

Status LogSegment::index_batch(const BatchHeader& h) {
  track_timestamp(h.max_timestamp, h.last_offset);
  // Kafka's rule: an entry for the batch that starts once more than index.interval.bytes were
  // written since the previous entry. The batch at position 0 needs none (lookup's default).
  if (bytes_since_last_index_ > index_interval_bytes_ && !offset_index_.full()) {
    if (Status st = offset_index_.append(h.last_offset, h.position); !st) return st;
    if (Status st = time_index_.maybe_append(max_timestamp_, offset_of_max_timestamp_); !st)
      return st;
    bytes_since_last_index_ = 0;
  }
  bytes_since_last_index_ += h.size;
  next_offset_ = h.next_offset();
  return Status();
}

Status LogSegment::append(const records::BatchView& batch) {
  const int64_t position = file_->size();
  if (Status st = file_->append(batch.bytes()); !st) return st;
  dirty_ = true;
  auto h = decode_header(batch.bytes().data(), position);
  if (!h) return h.status();
  return index_batch(*h);
}

Status LogSegment::reset_indexes() {
  bytes_since_last_index_ = 0;
  next_offset_ = base_;
  max_timestamp_ = -1;
  offset_of_max_timestamp_ = -1;
  rolling_base_timestamp_.reset();
  if (Status st = offset_index_.reset(); !st) return st;
  return time_index_.reset();
}

Status LogSegment::load_tail() {
  if (auto last = time_index_.last()) {
    max_timestamp_ = last->timestamp;
    offset_of_max_timestamp_ = last->offset;
  }
  int64_t from = 0;
  if (auto last = offset_index_.last()) from = last->position;
  auto handle = file_->handle();
  if (!handle) return handle.status();
  HeaderScanner scan(**handle, from, file_->size());
  bool first = true;
  for (;;) {
    auto h = scan.next();
    if (!h) return h.status();
    if (!*h) break;
    const BatchHeader& b = **h;
    if (first && from == 0) rolling_base_timestamp_ = b.max_timestamp;
    first = false;
    if (b.max_timestamp > max_timestamp_) {
      max_timestamp_ = b.max_timestamp;
      offset_of_max_timestamp_ = b.last_offset;
    }
    next_offset_ = b.next_offset();
  }
  bytes_since_last_index_ = file_->size() - from;
  if (!rolling_base_timestamp_ && !empty()) {
    HeaderScanner head(**handle, 0, file_->size());
    auto h = head.next();
    if (!h) return h.status();
    if (*h) rolling_base_timestamp_ = (*h)->max_timestamp;
  }
  return Status();
}

Result<std::optional<BatchHeader>> LogSegment::find_batch(int64_t offset) const {
  const int64_t from = offset_index_.lookup(offset).position;
  if (from >= file_->size()) return std::optional<BatchHeader>();  // no descriptor needed
  auto handle = file_->handle();
  if (!handle) return handle.status();
  HeaderScanner scan(**handle, from, file_->size());
  for (;;) {
    auto h = scan.next();
    if (!h || !*h) return h;
    if ((*h)->last_offset >= offset) return h;
  }
}

Status LogSegment::truncate_at(int64_t position, int64_t new_next_offset) {
  if (Status st = offset_index_.truncate_to(new_next_offset); !st) return st;
  if (Status st = time_index_.truncate_to(new_next_offset); !st) return st;
  if (Status st = file_->truncate(position); !st) return st;
  dirty_ = true;
  // Timestamps and the index cadence are recomputed from what is left.
  max_timestamp_ = -1;
  offset_of_max_timestamp_ = -1;
  rolling_base_timestamp_.reset();
  next_offset_ = base_;
  return load_tail();
}

Status LogSegment::on_become_inactive() {
  if (max_timestamp_ >= 0) {
    if (Status st = time_index_.maybe_append(max_timestamp_, offset_of_max_timestamp_, true); !st)
      return st;
  }
  return flush();
}

Status LogSegment::flush(bool indexes) {
  if (dirty_) {
    if (Status st = file_->flush(); !st) return st;
  }
  if (Status st = txn_.flush(); !st) return st;
  dirty_ = false;
  if (!indexes) return Status();
  if (Status st = offset_index_.flush(); !st) return st;
  return time_index_.flush();
}

Status LogSegment::mark_deleted() {
  // Renamed first so that a crash before the removal leaves files open() recognises as garbage.
  // The .log goes last: while it has its name, so do all its indexes (a swap's recovery relies
  // on it, see compaction_swap.cc).
  auto deleted = [](const std::filesystem::path& p) { return p.string() + ".deleted"; };
  if (Status st = txn_.rename(deleted(txn_.path())); !st) return st;
  if (Status st = time_index_.rename(deleted(time_index_.path())); !st) return st;
  if (Status st = offset_index_.rename(deleted(offset_index_.path())); !st) return st;
  return file_->rename(deleted(file_->path()));
}

std::vector<std::filesystem::path> LogSegment::files() const {
  return {file_->path(), offset_index_.path(), time_index_.path(), txn_.path()};
}

Status LogSegment::remove() {
  if (Status st = mark_deleted(); !st) return st;
  std::error_code ec;
  std::filesystem::remove(file_->path(), ec);
  if (Status st = txn_.remove(); !st) return st;
  if (Status st = offset_index_.remove(); !st) return st;
  return time_index_.remove();
}

}  // namespace mirra::storage
