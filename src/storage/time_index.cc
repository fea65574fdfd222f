#include "storage/time_index.h"

#include <algorithm>

#include "protocol/records/byte_order.h"

namespace mirra::storage {

using records::load_be32;
using records::load_be64;
using records::store_be32;
using records::store_be64;

Result<TimeIndex> TimeIndex::open(std::filesystem::path path, int64_t base_offset,
                                  int64_t max_entries, bool& valid) {
  std::vector<uint8_t> content;
  auto file = IndexFile::open(std::move(path), content);
  if (!file) return file.status();
  TimeIndex idx;
  idx.file_ = std::move(file.value());
  idx.base_ = base_offset;
  idx.max_entries_ = max_entries;
  valid = content.size() % kEntrySize == 0;
  for (size_t at = 0; valid && at < content.size(); at += kEntrySize) {
    Entry e{static_cast<int64_t>(load_be64(&content[at])),
            static_cast<int32_t>(load_be32(&content[at + 8]))};
    const bool ascends = idx.entries_.empty() ||
                         (e.timestamp > idx.entries_.back().timestamp &&
                          e.relative_offset >= idx.entries_.back().relative_offset);
    valid = ascends && e.relative_offset >= 0;
    idx.entries_.push_back(e);
  }
  if (!valid) idx.entries_.clear();
  return idx;
}

Status TimeIndex::maybe_append(int64_t timestamp, int64_t offset, bool skip_full_check) {
  if (!entries_.empty() && timestamp <= entries_.back().timestamp) return Status();
  if (!skip_full_check && full()) return Status();
  uint8_t buf[kEntrySize];
  const auto rel = static_cast<int32_t>(offset - base_);
  store_be64(buf, static_cast<uint64_t>(timestamp));
  store_be32(buf + 8, static_cast<uint32_t>(rel));
  if (Status st = file_.append(buf); !st) return st;
  entries_.push_back({timestamp, rel});
  return Status();
}

TimestampOffset TimeIndex::lookup(int64_t target) const {
  auto it = std::upper_bound(entries_.begin(), entries_.end(), target,
                             [](int64_t t, const Entry& e) { return t < e.timestamp; });
  if (it == entries_.begin()) return {-1, base_};
  --it;
  return {it->timestamp, base_ + it->relative_offset};
}

std::optional<TimestampOffset> TimeIndex::last() const {
  if (entries_.empty()) return std::nullopt;
  return TimestampOffset{entries_.back().timestamp, base_ + entries_.back().relative_offset};
}

Status TimeIndex::truncate_to(int64_t offset) {
  const int64_t rel = offset - base_;
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [rel](const Entry& e) { return e.relative_offset >= rel; });
  entries_.erase(it, entries_.end());
  return file_.truncate(static_cast<int64_t>(entries_.size() * kEntrySize));
}

Status TimeIndex::reset() {
  entries_.clear();
  return file_.truncate(0);
}

}  // namespace mirra::storage
