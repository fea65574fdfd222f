// Reads: fetch ranges, ListOffsets by timestamp and the max-timestamp offset.
#include <vector>

#include "protocol/records/record.h"
#include "storage/partition_log_impl.h"

namespace mirra::storage {
namespace {

// Reads one whole batch, then the first record at or after `min_offset` whose timestamp is
// >= `ts` (LogAppendTime batches: every record has the batch's max timestamp).
Result<std::optional<std::pair<int64_t, int64_t>>> first_record_at_or_after(const LogSegment& seg,
                                                                            const BatchHeader& h,
                                                                            int64_t ts,
                                                                            int64_t min_offset) {
  std::vector<uint8_t> bytes(static_cast<size_t>(h.size));
  if (Status st = seg.file()->read_at(h.position, bytes); !st) return st;
  auto view = records::BatchView::parse(bytes);
  if (!view) return view.status();
  std::optional<std::pair<int64_t, int64_t>> found;
  std::vector<uint8_t> scratch;
  const bool append_time = view->timestamp_type() == records::TimestampType::log_append_time;
  Status st = records::for_each_record(*view, scratch, [&](const records::RecordView& r) {
    const int64_t offset = view->base_offset() + r.offset_delta;
    const int64_t t = append_time
                          ? view->max_timestamp()
                          : records::record_timestamp(view->base_timestamp(), r.timestamp_delta);
    if (offset >= min_offset && t >= ts) {
      found = std::pair{offset, t};
      return Status(ErrorCode::UNKNOWN_SERVER_ERROR, "found");  // only stops the walk
    }
    return Status();
  });
  if (found) return found;
  if (!st) return st;
  return found;
}

}  // namespace

Result<ReadResult> PartitionLog::read(int64_t offset, int32_t max_bytes, ReadBound bound,
                                      bool min_one_batch) const {
  const Impl& log = *impl_;
  ReadResult out;
  out.high_watermark = log.leo;
  out.last_stable_offset = log.first_unstable_or_leo();
  out.log_start_offset = log.log_start;
  out.log_end_offset = log.leo;
  if (offset < log.log_start || offset > log.leo)
    return Status(ErrorCode::OFFSET_OUT_OF_RANGE,
                  "offset " + std::to_string(offset) + " is outside [" +
                      std::to_string(log.log_start) + ", " + std::to_string(log.leo) + "]");
  const int64_t limit = bound == ReadBound::last_stable_offset ? out.last_stable_offset
                                                               : out.high_watermark;
  int64_t bytes = 0;
  int64_t end_offset = offset;  // after the last batch returned
  bool full = false;
  for (auto it = log.floor_segment(offset); it != log.segments.end() && !full; ++it) {
    const LogSegment& seg = *it->second;
    auto first = seg.find_batch(offset);
    if (!first) return first.status();
    if (!*first) continue;
    auto handle = seg.file()->handle();  // the slice keeps it open (file_cache.h)
    if (!handle) return handle.status();
    HeaderScanner scan(**handle, (*first)->position, seg.size());
    FileSlice slice{*handle, (*first)->position, 0};
    for (;;) {
      auto h = scan.next();
      if (!h) return h.status();
      if (!*h) break;
      const BatchHeader& b = **h;
      const bool first_batch = bytes == 0;
      if (b.next_offset() > limit ||
          (bytes + b.size > max_bytes && !(first_batch && min_one_batch))) {
        full = true;
        break;
      }
      bytes += b.size;
      slice.size += b.size;
      end_offset = b.next_offset();
    }
    if (slice.size > 0) out.slices.push_back(std::move(slice));
  }
  if (bound == ReadBound::last_stable_offset && !out.slices.empty()) {
    for (auto it = log.floor_segment(offset); it != log.segments.end(); ++it)
      if (it->second->txn_index().collect(offset, end_offset, out.aborted)) break;
  }
  return out;
}

std::optional<std::pair<int64_t, int64_t>> PartitionLog::offset_for_timestamp(int64_t ts) const {
  const Impl& log = *impl_;
  for (const auto& [base, seg] : log.segments) {
    if (seg->max_timestamp() < ts || seg->next_offset() <= log.log_start) continue;
    // Kafka's LogSegment.findOffsetByTimestamp: time index, then offset index, then a scan.
    const int64_t from = std::max(seg->time_index().lookup(ts).offset, log.log_start);
    auto first = seg->find_batch(from);
    if (!first || !*first) continue;
    auto handle = seg->file()->handle();
    if (!handle) continue;
    HeaderScanner scan(**handle, (*first)->position, seg->size());
    for (;;) {
      auto h = scan.next();
      if (!h || !*h) break;
      if ((*h)->max_timestamp < ts) continue;
      auto found = first_record_at_or_after(*seg, **h, ts, log.log_start);
      if (found && *found) return *found;
    }
  }
  return std::nullopt;
}

std::pair<int64_t, int64_t> PartitionLog::max_timestamp_offset() const {
  const Impl& log = *impl_;
  const LogSegment* best = nullptr;
  for (const auto& [base, seg] : log.segments)
    if (seg->max_timestamp() >= 0 && (!best || seg->max_timestamp() > best->max_timestamp()))
      best = seg.get();
  if (!best) return {-1, -1};
  // The index keeps the batch; the answer is its first record carrying that timestamp.
  auto h = best->find_batch(best->offset_of_max_timestamp());
  if (h && *h) {
    auto found = first_record_at_or_after(*best, **h, best->max_timestamp(), log.log_start);
    if (found && *found) return **found;
  }
  return {best->offset_of_max_timestamp(), best->max_timestamp()};
}

}  // namespace mirra::storage
