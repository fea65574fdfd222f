// libFuzzer target: a __share_group_state record as start-up reads it back
// (docs/formats/share_group_state.md), from a log that may hold anything. The first byte picks
// the key or the value decoder; the rest is the record. Properties asserted (abort on
// violation):
//   - a key or snapshot that decodes survives encoding and decoding again unchanged;
//   - a snapshot either restores into a share partition, whose own snapshot restores again into
//     the same, or is refused with INVALID_REQUEST; restore() breaking an invariant would abort
//     inside SharePartition's checks, and a window larger than any real one is refused rather
//     than built (memory at start-up stays bounded whatever the log holds).
#include <cstdint>
#include <cstdlib>
#include <span>

#include "share/share_store.h"

namespace ms = mirra::share;

namespace {

void check(bool ok) {
  if (!ok) abort();
}

void key_case(std::span<const uint8_t> in) {
  auto key = ms::decode_share_key(in);
  if (!key.ok()) return;
  auto again = ms::decode_share_key(ms::encode_share_key(key.value()));
  check(again.ok() && again.value() == key.value());
}

void snapshot_case(std::span<const uint8_t> in) {
  auto snapshot = ms::decode_share_snapshot(in);
  if (!snapshot.ok()) return;
  auto again = ms::decode_share_snapshot(ms::encode_share_snapshot(snapshot.value()));
  check(again.ok() && again.value() == snapshot.value());
  auto partition = ms::SharePartition::restore(snapshot.value());
  if (!partition.ok()) {
    check(partition.status().code() == mirra::ErrorCode::INVALID_REQUEST);
    return;
  }
  const ms::ShareSnapshot own = partition.value().snapshot();
  check(own.start_offset >= snapshot.value().start_offset);
  auto restored = ms::SharePartition::restore(own);
  check(restored.ok() && restored.value().snapshot() == own);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::span<const uint8_t> record(data + 1, size - 1);
  if (data[0] & 1) {
    snapshot_case(record);
  } else {
    key_case(record);
  }
  return 0;
}
