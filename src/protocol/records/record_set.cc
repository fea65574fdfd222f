#include "protocol/records/record_set.h"

#include <string>

namespace mirra::records {

RecordSetStep RecordSetIterator::fail(Status status) {
  status_ = Status(status.code(),
                   "record set position " + std::to_string(position_) + ": " + status.message());
  return RecordSetStep::error;
}

RecordSetStep RecordSetIterator::next(BatchView& batch) {
  if (!status_.ok()) return RecordSetStep::error;
  magic_ = -1;
  if (rest_.empty()) return RecordSetStep::end;
  // The magic sits at the same offset in every format, so an old-format message set is named
  // as such even if it is also cut short.
  if (rest_.size() > layout::kMagic) {
    magic_ = static_cast<int8_t>(rest_[layout::kMagic]);
    if (magic_ != kMagicV2) return fail(unsupported_magic_status(magic_));
  }
  if (rest_.size() < layout::kLogOverhead) return RecordSetStep::partial;
  const auto length = static_cast<int32_t>(load_be32(rest_.data() + layout::kBatchLength));
  if (length < layout::kMinBatchLength)
    return fail(Status(ErrorCode::CORRUPT_MESSAGE, "record batch length " + std::to_string(length) +
                                                       " is smaller than the v2 header (49)"));
  const size_t total = layout::kLogOverhead + static_cast<size_t>(length);
  if (total > rest_.size()) return RecordSetStep::partial;
  auto view = BatchView::parse(rest_.first(total));
  if (!view) return fail(view.status());
  if (validate_) {
    if (Status st = view->validate(); !st) return fail(st);
  }
  batch = *view;
  rest_ = rest_.subspan(total);
  position_ += total;
  return RecordSetStep::batch;
}

}  // namespace mirra::records
