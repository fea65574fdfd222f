// A record set: the `records` field of Produce and Fetch, i.e. v2 batches back to back.
//
// A Fetch response may end in a batch cut short by the fetch size limit; that is normal and is
// reported as RecordSetStep::partial, not as an error. Old message formats (magic 0/1) and
// impossible lengths are errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "base/status.h"
#include "protocol/records/record_batch.h"

namespace mirra::records {

enum class RecordSetStep {
  batch,    // `batch` holds the next complete batch
  end,      // no bytes left
  partial,  // the remaining bytes are the start of a batch that is not all there
  error,    // status() says why; iteration stops
};

class RecordSetIterator {
 public:
  // With `validate`, each batch also goes through BatchView::validate() (CRC, counts, codec).
  explicit RecordSetIterator(std::span<const uint8_t> records, bool validate = false)
      : rest_(records), validate_(validate) {}

  RecordSetStep next(BatchView& batch);

  const Status& status() const { return status_; }
  // The magic byte of the batch just returned or rejected; -1 before the first or when the
  // remaining bytes were too short to hold one.
  int magic() const { return magic_; }
  // Offset, within the record set, of the next unread byte (of the partial batch, if any).
  size_t position() const { return position_; }
  // The unread bytes: the partial batch after RecordSetStep::partial.
  std::span<const uint8_t> rest() const { return rest_; }

 private:
  RecordSetStep fail(Status status);

  std::span<const uint8_t> rest_;
  bool validate_;
  size_t position_ = 0;
  int magic_ = -1;
  Status status_;
};

}  // namespace mirra::records
