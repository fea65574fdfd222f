#include "storage/offset_index.h"

#include <algorithm>

#include "protocol/records/byte_order.h"

namespace mirra::storage {

using records::load_be32;
using records::store_be32;

Result<OffsetIndex> OffsetIndex::open(std::filesystem::path path, int64_t base_offset,
                                      int64_t max_entries, int64_t log_size, bool& valid) {
  std::vector<uint8_t> content;
  auto file = IndexFile::open(std::move(path), content);
  if (!file) return file.status();
  OffsetIndex idx;
  idx.file_ = std::move(file.value());
  idx.base_ = base_offset;
  idx.max_entries_ = max_entries;
  valid = content.size() % kEntrySize == 0;
  for (size_t at = 0; valid && at < content.size(); at += kEntrySize) {
    Entry e{static_cast<int32_t>(load_be32(&content[at])),
            static_cast<int32_t>(load_be32(&content[at + 4]))};
    const bool ascends = idx.entries_.empty() ||
                         (e.relative_offset > idx.entries_.back().relative_offset &&
                          e.position > idx.entries_.back().position);
    valid = ascends && e.relative_offset >= 0 && e.position >= 0 && e.position < log_size;
    idx.entries_.push_back(e);
  }
  if (!valid) idx.entries_.clear();
  return idx;
}

Status OffsetIndex::append(int64_t offset, int64_t position) {
  uint8_t buf[kEntrySize];
  const auto rel = static_cast<int32_t>(offset - base_);
  store_be32(buf, static_cast<uint32_t>(rel));
  store_be32(buf + 4, static_cast<uint32_t>(position));
  if (Status st = file_.append(buf); !st) return st;
  entries_.push_back({rel, static_cast<int32_t>(position)});
  return Status();
}

OffsetPosition OffsetIndex::lookup(int64_t target) const {
  const int64_t rel = target - base_;
  auto it = std::upper_bound(entries_.begin(), entries_.end(), rel,
                             [](int64_t r, const Entry& e) { return r < e.relative_offset; });
  if (it == entries_.begin()) return {base_, 0};
  --it;
  return {base_ + it->relative_offset, it->position};
}

std::optional<OffsetPosition> OffsetIndex::last() const {
  if (entries_.empty()) return std::nullopt;
  return OffsetPosition{base_ + entries_.back().relative_offset, entries_.back().position};
}

Status OffsetIndex::truncate_to(int64_t offset) {
  const int64_t rel = offset - base_;
  auto it = std::lower_bound(entries_.begin(), entries_.end(), rel,
                             [](const Entry& e, int64_t r) { return e.relative_offset < r; });
  entries_.erase(it, entries_.end());
  return file_.truncate(static_cast<int64_t>(entries_.size() * kEntrySize));
}

Status OffsetIndex::reset() {
  entries_.clear();
  return file_.truncate(0);
}

}  // namespace mirra::storage
