#include "storage/log_scan.h"

#include "storage/segment.h"

#include <fmt/format.h>

#include <vector>

namespace mirra::storage {
namespace {

constexpr int32_t kScanReadBytes = 1 << 20;

Status in_log(const PartitionLog& log, const Status& st) {
  return Status(st.code(), fmt::format("{}: {}", log.dir().string(), st.message()));
}

}  // namespace

Status scan_batches(const PartitionLog& log, int64_t from,
                    const std::function<Status(const records::BatchView&)>& fn) {
  std::vector<uint8_t> buf;
  const int64_t end = log.log_end_offset();
  int64_t offset = std::max(from, log.log_start_offset());
  while (offset < end) {
    auto read = log.read(offset, kScanReadBytes, ReadBound::log_end, true);
    if (!read) return in_log(log, read.status());
    if (read->slices.empty()) {
      return in_log(log, Status(ErrorCode::CORRUPT_MESSAGE,
                                fmt::format("nothing to read at offset {} below the log end {}",
                                            offset, end)));
    }
    for (const FileSlice& slice : read->slices) {
      buf.resize(static_cast<size_t>(slice.size));
      if (Status st = slice.file->read_at(slice.position, buf); !st) return in_log(log, st);
      std::span<const uint8_t> rest(buf);
      while (!rest.empty()) {
        auto batch = records::BatchView::parse(rest);
        if (!batch) return in_log(log, batch.status());
        if (Status st = fn(*batch); !st) return in_log(log, st);
        offset = batch->next_offset();
        rest = rest.subspan(batch->size());
      }
    }
  }
  return Status::OK();
}

}  // namespace mirra::storage
