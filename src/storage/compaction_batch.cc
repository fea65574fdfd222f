// The cleaner's per-batch tools: reading sealed segments, transaction bookkeeping and
// rebuilding batches with fewer records.
#include <algorithm>
#include <climits>

#include "protocol/records/byte_order.h"
#include "protocol/records/compression.h"
#include "protocol/records/crc32c.h"
#include "protocol/records/varint.h"
#include "storage/compaction_internal.h"

namespace mirra::storage::compaction {
namespace {

namespace layout = records::layout;
namespace attr = records::attr;

void append_nullable(std::vector<uint8_t>& out, const records::NullableBytes& b) {
  if (!b) {
    records::append_varint(out, -1);
    return;
  }
  records::append_varint(out, static_cast<int32_t>(b->size()));
  out.insert(out.end(), b->begin(), b->end());
}

size_t nullable_size(const records::NullableBytes& b) {
  return b ? records::varint_size(static_cast<int32_t>(b->size())) + b->size()
           : records::varint_size(-1);
}

// One record in the v2 layout (record.h); the headers are copied as encoded.
void encode_record(std::vector<uint8_t>& out, const records::RecordView& r, int64_t ts_delta) {
  const size_t body = 1 + records::varlong_size(ts_delta) + records::varint_size(r.offset_delta) +
                      nullable_size(r.key) + nullable_size(r.value) +
                      records::varint_size(r.header_count) + r.header_bytes.size();
  records::append_varint(out, static_cast<int32_t>(body));
  out.push_back(static_cast<uint8_t>(r.attributes));
  records::append_varlong(out, ts_delta);
  records::append_varint(out, r.offset_delta);
  append_nullable(out, r.key);
  append_nullable(out, r.value);
  records::append_varint(out, r.header_count);
  out.insert(out.end(), r.header_bytes.begin(), r.header_bytes.end());
}

void finish_header(std::vector<uint8_t>& b, int16_t attributes, int64_t base_ts, int64_t max_ts,
                   int32_t count) {
  uint8_t* h = b.data();
  records::store_be32(h + layout::kBatchLength,
                      static_cast<uint32_t>(b.size() - layout::kLogOverhead));
  records::store_be16(h + layout::kAttributes, static_cast<uint16_t>(attributes));
  records::store_be64(h + layout::kBaseTimestamp, static_cast<uint64_t>(base_ts));
  records::store_be64(h + layout::kMaxTimestamp, static_cast<uint64_t>(max_ts));
  records::store_be32(h + layout::kRecordCount, static_cast<uint32_t>(count));
  records::store_be32(h + layout::kCrc,
                      records::crc32c(h + layout::kCrcStart, b.size() - layout::kCrcStart));
}

}  // namespace

std::filesystem::path file_path(const std::filesystem::path& dir, int64_t base,
                                std::string_view kind, std::string_view suffix) {
  auto p = segment_path(dir, base, kind);
  p += suffix;
  return p;
}

// ---- BatchReader -------------------------------------------------------------------------------

BatchReader::BatchReader(const FileHandle& file, int64_t end) : file_(file), scan_(file, 0, end) {}

Result<std::optional<records::BatchView>> BatchReader::next() {
  auto h = scan_.next();
  if (!h) return h.status();
  if (!*h) return std::optional<records::BatchView>();
  buf_.resize(static_cast<size_t>((*h)->size));
  if (Status st = file_.read_at((*h)->position, buf_); !st) return st;
  auto view = records::BatchView::parse(buf_);
  if (!view) return view.status();
  // The cleaner recomputes CRCs of what it rebuilds: it must never bless damaged bytes.
  if (Status st = view->validate(); !st)
    return Status(ErrorCode::CORRUPT_MESSAGE, file_.path().string() + " at position " +
                                                  std::to_string((*h)->position) + ": " +
                                                  st.message());
  position_ = (*h)->position;
  return std::optional<records::BatchView>(*view);
}

// ---- TxnTracker --------------------------------------------------------------------------------

TxnTracker::TxnTracker(std::vector<AbortedTxn> aborted) : aborted_(std::move(aborted)) {}

void TxnTracker::start_aborted_up_to(int64_t offset) {
  while (next_aborted_ < aborted_.size() && aborted_[next_aborted_].first_offset <= offset) {
    const AbortedTxn& t = aborted_[next_aborted_++];
    ongoing_aborted_[t.producer_id] = Ongoing{t, false};
  }
}

bool TxnTracker::on_data(const records::BatchView& batch) {
  start_aborted_up_to(batch.last_offset());
  if (!batch.is_transactional()) return false;
  if (auto it = ongoing_aborted_.find(batch.producer_id()); it != ongoing_aborted_.end()) {
    it->second.data_seen = true;
    return true;
  }
  ongoing_committed_.insert(batch.producer_id());
  return false;
}

Result<bool> TxnTracker::on_control(const records::BatchView& batch, std::vector<uint8_t>& scratch,
                                    std::optional<AbortedTxn>& kept_entry) {
  start_aborted_up_to(batch.last_offset());
  if (batch.record_count() == 0) return true;  // emptied by an earlier cleaning
  auto it = records::iterate_records(batch, scratch);
  if (!it) return it.status();
  records::RecordView rec;
  if (!it->next(rec)) return Status(ErrorCode::CORRUPT_MESSAGE, "control batch without a record");
  auto marker = records::parse_control_record(rec);
  if (!marker) return marker.status();
  const int64_t pid = batch.producer_id();
  if (marker->type == static_cast<int16_t>(records::ControlType::ABORT)) {
    auto node = ongoing_aborted_.extract(pid);
    if (node && node.mapped().data_seen) {
      kept_entry = node.mapped().txn;
      return false;
    }
    return true;
  }
  if (marker->type == static_cast<int16_t>(records::ControlType::COMMIT))
    return ongoing_committed_.erase(pid) == 0;
  return false;  // other control records are not ours to drop
}

// ---- rebuilding --------------------------------------------------------------------------------

Result<std::vector<uint8_t>> rebuild_batch(const records::BatchView& batch,
                                           std::span<const records::RecordView> kept,
                                           std::optional<int64_t> delete_horizon) {
  const int64_t old_base = batch.base_timestamp();
  const int64_t new_base = delete_horizon.value_or(old_base);
  std::vector<uint8_t> recs;
  int64_t max_ts = -1;
  for (const records::RecordView& r : kept) {
    const int64_t ts = records::record_timestamp(old_base, r.timestamp_delta);
    max_ts = std::max(max_ts, ts);
    encode_record(recs, r, ts - new_base);
  }
  if (batch.timestamp_type() == records::TimestampType::log_append_time)
    max_ts = batch.max_timestamp();
  std::vector<uint8_t> out(batch.bytes().begin(), batch.bytes().begin() + layout::kHeaderSize);
  if (Status st = records::compress(batch.compression(), recs, out); !st) return st;
  if (out.size() - layout::kLogOverhead > static_cast<size_t>(INT32_MAX))
    return Status(ErrorCode::RECORD_LIST_TOO_LARGE, "rebuilt batch exceeds 2 GiB");
  auto attributes = static_cast<int16_t>(batch.attributes() & ~attr::kDeleteHorizon);
  if (delete_horizon) attributes = static_cast<int16_t>(attributes | attr::kDeleteHorizon);
  finish_header(out, attributes, new_base, max_ts, static_cast<int32_t>(kept.size()));
  return out;
}

std::vector<uint8_t> empty_batch(const records::BatchView& batch) {
  std::vector<uint8_t> out(batch.bytes().begin(), batch.bytes().begin() + layout::kHeaderSize);
  // No records: no codec, no horizon; baseTimestamp -1 as Kafka writes it. The header keeps
  // producer id, epoch, base sequence and lastOffsetDelta, which is all the batch is kept for.
  const auto attributes =
      static_cast<int16_t>(batch.attributes() & ~(attr::kCompressionMask | attr::kDeleteHorizon));
  finish_header(out, attributes, -1, batch.max_timestamp(), 0);
  return out;
}

}  // namespace mirra::storage::compaction
