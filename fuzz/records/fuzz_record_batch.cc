// libFuzzer target: a record set (batches back to back) from the network, walked the way the
// broker walks Produce and Fetch data, plus the raw decompressors and the mirroring rewrite.
//
// The CRC is checked but not required, so the fuzzer reaches record parsing without having to
// forge checksums; when the input's last byte is odd, each batch's CRC is also corrected first,
// so that validate() gets past the checksum to its count and codec checks. Properties asserted
// (abort on violation):
//   - rewrite_producer_id changes only bytes 17..20 and 43..50, and the patched CRC matches the
//     batch after exactly when the stored one matched it before (a corrupt batch is never
//     re-blessed);
//   - a batch that iterates cleanly rebuilds, through BatchBuilder, into records that compare
//     equal field by field.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "protocol/records/batch_builder.h"
#include "protocol/records/byte_order.h"
#include "protocol/records/compression.h"
#include "protocol/records/record.h"
#include "protocol/records/record_set.h"

namespace mr = mirra::records;

namespace {

constexpr size_t kMaxOut = 4 << 20;  // keeps bombs cheap; the limit logic is what's under test

void check(bool ok) {
  if (!ok) std::abort();
}

void check_rewrite(const mr::BatchView& batch) {
  std::vector<uint8_t> copy(batch.bytes().begin(), batch.bytes().end());
  const bool valid_before = batch.validate().ok();
  const bool crc_matched = batch.crc() == batch.compute_crc();
  if (!mr::rewrite_producer_id(copy)) return;
  auto after = mr::BatchView::parse(copy);
  check(after.ok());
  check(!valid_before || after->validate().ok());
  check((after->crc() == after->compute_crc()) == crc_matched);
  for (size_t i = 0; i < copy.size(); ++i) {
    const bool may_differ = (i >= 17 && i <= 20) || (i >= 43 && i <= 50);
    check(may_differ || copy[i] == batch.bytes()[i]);
  }
}

bool same(const mr::NullableBytes& a, const mr::NullableBytes& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->size() == b->size() && std::memcmp(a->data(), b->data(), a->size()) == 0);
}

// Collects the records (views into scratch) and their headers so they can be fed to a builder.
struct Collected {
  std::vector<mr::RecordView> records;
  std::vector<std::vector<mr::HeaderInput>> headers;
};

void check_rebuild(const mr::BatchView& batch, const Collected& got) {
  if (got.records.empty()) return;
  mr::BatchBuilder builder({});
  for (size_t i = 0; i < got.records.size(); ++i) {
    const mr::RecordView& r = got.records[i];
    mr::RecordInput in;
    in.key = r.key;
    in.value = r.value;
    in.timestamp = mr::record_timestamp(batch.base_timestamp(), r.timestamp_delta);
    in.offset_delta = r.offset_delta;
    in.headers = got.headers[i];
    if (!builder.append(in)) return;  // e.g. offset deltas that do not increase: fine to skip
  }
  auto rebuilt = builder.finish();
  check(rebuilt.ok());
  auto view = mr::BatchView::parse(*rebuilt);
  check(view.ok() && view->validate().ok());
  std::vector<uint8_t> scratch;
  size_t i = 0;
  const mirra::Status st = mr::for_each_record(*view, scratch, [&](const mr::RecordView& r) {
    const mr::RecordView& o = got.records[i++];
    check(same(r.key, o.key) && same(r.value, o.value) && r.offset_delta == o.offset_delta);
    check(mr::record_timestamp(view->base_timestamp(), r.timestamp_delta) ==
          mr::record_timestamp(batch.base_timestamp(), o.timestamp_delta));
    check(r.header_count == o.header_count);
    return mirra::Status();
  });
  check(st.ok() && i == got.records.size());
}

void walk_batch(const mr::BatchView& batch) {
  (void)batch.validate();
  check_rewrite(batch);
  std::vector<uint8_t> scratch;
  Collected got;
  const mirra::Status st = mr::for_each_record(
      batch, scratch,
      [&](const mr::RecordView& r) {
        got.records.push_back(r);
        auto& hs = got.headers.emplace_back();
        mr::HeaderIterator it = r.headers();
        mr::HeaderView h;
        while (it.next(h)) hs.push_back({mr::as_string(h.key), h.value});
        check(hs.size() == static_cast<size_t>(r.header_count));
        if (batch.is_control()) (void)mr::parse_control_record(r);
        return mirra::Status();
      },
      kMaxOut);
  if (st.ok() && got.records.size() <= 1000) check_rebuild(batch, got);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> copy(data, data + size);
  const bool fix_crcs = size > 0 && (data[size - 1] & 1) != 0;
  mr::RecordSetIterator it(copy);
  mr::BatchView batch;
  for (int n = 0; n < 64 && it.next(batch) == mr::RecordSetStep::batch; ++n) {
    if (fix_crcs) {
      // The view aliases `copy`; patch the CRC through the owning buffer.
      uint8_t* at = copy.data() + (batch.bytes().data() - copy.data());
      mr::store_be32(at + mr::layout::kCrc, batch.compute_crc());
    }
    walk_batch(batch);
  }

  // The decompressors on their own, codec picked by the first byte.
  if (size > 0) {
    std::vector<uint8_t> out;
    const auto codec = static_cast<mr::Compression>(data[0] % 5);
    if (mr::decompress(codec, {data + 1, size - 1}, out, kMaxOut)) check(out.size() <= kMaxOut);
  }
  return 0;
}
