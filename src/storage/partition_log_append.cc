// Appends: a leader's (Produce and transaction markers) and a mirror's.
#include <vector>

#include "protocol/records/byte_order.h"
#include "protocol/records/crc32c.h"
#include "protocol/records/record.h"
#include "protocol/records/record_set.h"
#include "storage/partition_log_impl.h"

namespace mirra::storage {
namespace {

namespace layout = records::layout;

struct Located {
  size_t position;
  size_t size;
};

Status invalid_record(std::string message) {
  return {ErrorCode::INVALID_RECORD, std::move(message)};
}

// The checks Kafka's LogValidator makes on a batch before it gets offsets.
Status check_leader_batch(const records::BatchView& b, AppendOrigin origin,
                          const LogConfig& config) {
  if (b.size() > static_cast<size_t>(config.max_message_bytes))
    return {ErrorCode::MESSAGE_TOO_LARGE, "batch of " + std::to_string(b.size()) +
                                              " bytes exceeds max.message.bytes " +
                                              std::to_string(config.max_message_bytes)};
  if (b.size() > static_cast<size_t>(config.segment_bytes))
    return {ErrorCode::RECORD_LIST_TOO_LARGE, "batch of " + std::to_string(b.size()) +
                                                  " bytes exceeds segment.bytes " +
                                                  std::to_string(config.segment_bytes)};
  if (origin == AppendOrigin::client) {
    if (b.is_control()) return invalid_record("clients may not write control batches");
    if (b.record_count() <= 0 || b.record_count() != b.last_offset_delta() + 1)
      return invalid_record("inconsistent batch offset range: " + std::to_string(b.record_count()) +
                            " records, lastOffsetDelta " + std::to_string(b.last_offset_delta()));
    if (b.producer_id() != kNoProducerId && b.base_sequence() < 0)
      return invalid_record("idempotent batch with a negative base sequence");
  }
  return Status();
}

// Kafka's LogValidator.validateKey: a compacted topic cannot hold a record without a key (the
// cleaner could never tell which later record replaces it). Control batches carry keys anyway.
Status check_keys(const records::BatchView& b, std::vector<uint8_t>& scratch) {
  if (b.is_control()) return Status();
  return records::for_each_record(b, scratch, [&](const records::RecordView& r) {
    if (r.key) return Status();
    return invalid_record("compacted topic cannot accept a record without a key (offset delta " +
                          std::to_string(r.offset_delta) + ")");
  });
}

// Splits a record set into whole, checksum-valid batches. A trailing partial batch is an error:
// Produce and mirror appends hand over complete batches only.
Result<std::vector<Located>> split_batches(std::span<const uint8_t> records) {
  std::vector<Located> out;
  records::RecordSetIterator it(records, /*validate=*/true);
  records::BatchView view;
  for (;;) {
    const size_t position = it.position();
    switch (it.next(view)) {
      case records::RecordSetStep::batch:
        out.push_back({position, view.size()});
        break;
      case records::RecordSetStep::end:
        return out;
      case records::RecordSetStep::partial:
        return Status(ErrorCode::CORRUPT_MESSAGE,
                      "record set ends in a partial batch at byte " + std::to_string(position));
      case records::RecordSetStep::error:
        return it.status();
    }
  }
}

// LogAppendTime: attribute bit 3 and maxTimestamp are inside the CRC, so it is recomputed.
void stamp_log_append_time(std::span<uint8_t> b, int64_t now_ms) {
  const auto attrs = records::load_be16(b.data() + layout::kAttributes);
  records::store_be16(b.data() + layout::kAttributes,
                      static_cast<uint16_t>(attrs | records::attr::kLogAppendTime));
  records::store_be64(b.data() + layout::kMaxTimestamp, static_cast<uint64_t>(now_ms));
  records::store_be32(b.data() + layout::kCrc, records::crc32c(b.subspan(layout::kCrcStart)));
}

records::BatchView view_of(std::span<const uint8_t> bytes) {
  return records::BatchView::parse(bytes).value();  // already parsed once: cannot fail
}

}  // namespace

Result<AppendResult> PartitionLog::append_as_leader(std::span<uint8_t> records,
                                                    int32_t leader_epoch, AppendOrigin origin,
                                                    int64_t now_ms) {
  Impl& log = *impl_;
  if (log.closed) return Status(ErrorCode::KAFKA_STORAGE_ERROR, "log is closed");
  auto batches = split_batches(records);
  if (!batches) return batches.status();
  AppendResult result;
  result.log_start_offset = log.log_start;
  // Validate everything before writing anything: a request is appended whole or not at all.
  std::vector<uint8_t> scratch;
  for (const Located& at : *batches) {
    const auto view = view_of(records.subspan(at.position, at.size));
    if (Status st = check_leader_batch(view, origin, log.config); !st) return st;
    if (log.config.cleanup_compact) {
      if (Status st = check_keys(view, scratch); !st) return st;
    }
    if (origin == AppendOrigin::client) {
      auto dup = log.producers.check_client_batch(view);
      if (!dup) return dup.status();
      if (*dup) {  // a retry of a batch already in the log: answer with its offsets
        result.first_offset = (*dup)->first_offset;
        result.last_offset = (*dup)->last_offset;
        result.duplicate = true;
        return result;
      }
    } else if (origin == AppendOrigin::coordinator && view.is_control()) {
      if (Status st = log.producers.check_marker(view); !st) return st;
    }
  }
  const bool append_time = log.config.timestamp_type == MessageTimestampType::log_append_time;
  for (const Located& at : *batches) {
    auto bytes = records.subspan(at.position, at.size);
    // Offsets and leader epoch lie outside the CRC: patched in place, nothing decompressed.
    if (Status st = records::patch_base_offset(bytes, log.leo); !st) return st;
    if (Status st = records::patch_leader_epoch(bytes, leader_epoch); !st) return st;
    if (append_time) stamp_log_append_time(bytes, now_ms);
    const auto view = view_of(bytes);
    if (result.first_offset < 0) result.first_offset = view.base_offset();
    if (Status st = log.maybe_roll(view, now_ms); !st) return st;
    if (Status st = log.active().append(view); !st) return st;
    if (Status st = log.after_append(view, origin, now_ms); !st) return st;
  }
  result.last_offset = log.leo - 1;
  if (append_time && !batches->empty()) result.log_append_time = now_ms;
  if (Status st = log.maybe_flush(now_ms); !st) return st;
  return result;
}

Result<AppendResult> PartitionLog::append_mirrored(std::span<const uint8_t> records,
                                                   int64_t now_ms) {
  Impl& log = *impl_;
  if (log.closed) return Status(ErrorCode::KAFKA_STORAGE_ERROR, "log is closed");
  auto batches = split_batches(records);
  if (!batches) return batches.status();
  int64_t expected = log.leo;
  for (const Located& at : *batches) {
    const auto view = view_of(records.subspan(at.position, at.size));
    if (view.base_offset() < expected)
      return Status(ErrorCode::INVALID_REQUEST,
                    "mirrored batch at offset " + std::to_string(view.base_offset()) +
                        " is below the next offset " + std::to_string(expected));
    if (view.size() > static_cast<size_t>(log.config.segment_bytes))
      return Status(ErrorCode::RECORD_LIST_TOO_LARGE, "mirrored batch of " +
                                                          std::to_string(view.size()) +
                                                          " bytes exceeds segment.bytes");
    expected = view.next_offset();
  }
  AppendResult result;
  result.log_start_offset = log.log_start;
  for (const Located& at : *batches) {
    const auto view = view_of(records.subspan(at.position, at.size));
    if (result.first_offset < 0) result.first_offset = view.base_offset();
    if (Status st = log.maybe_roll(view, now_ms); !st) return st;
    if (Status st = log.active().append(view); !st) return st;
    if (Status st = log.after_append(view, AppendOrigin::replication, now_ms); !st) return st;
  }
  result.last_offset = batches->empty() ? -1 : log.leo - 1;
  if (Status st = log.maybe_flush(now_ms); !st) return st;
  return result;
}

}  // namespace mirra::storage
