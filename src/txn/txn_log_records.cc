#include "txn/txn_log_records.h"

#include <fmt/format.h>

#include "protocol/tagged_fields.h"

namespace mirra::txn {
namespace {

using protocol::Reader;
using protocol::Writer;

constexpr int16_t kKeyVersion = 0;
constexpr int16_t kWrittenValueVersion = 0;
constexpr int16_t kNewestValueVersion = 1;  // v1+ is flexible

constexpr const char* kStateNames[] = {"Empty",        "Ongoing",          "PrepareCommit",
                                       "PrepareAbort", "CompleteCommit",   "CompleteAbort",
                                       "Dead",         "PrepareEpochFence"};

Status corrupt(std::string message) {
  return Status(ErrorCode::CORRUPT_MESSAGE, "__transaction_state record: " + std::move(message));
}

Status finish(const Reader& r, std::string_view what) {
  if (r.failed()) return r.status(std::string(what));
  if (r.remaining() != 0) {
    return corrupt(
        fmt::format("{}: {} trailing bytes after {} bytes", what, r.remaining(), r.position()));
  }
  return Status::OK();
}

Result<int16_t> read_version(Reader& r, std::string_view what, int16_t newest) {
  const int16_t v = r.read_int16();
  if (r.failed()) return corrupt(fmt::format("{}: shorter than its 2-byte version", what));
  if (v > newest) {
    return Status(ErrorCode::UNSUPPORTED_VERSION,
                  fmt::format("{} version {} (newest known: {})", what, v, newest));
  }
  if (v < 0) return corrupt(fmt::format("{}: version {}", what, v));
  return v;
}

void read_partitions(Reader& r, bool flex, TxnPartitions& out) {
  const int32_t topics = r.read_array_length(flex, 2 + 4);
  for (int32_t t = 0; t < topics && !r.failed(); ++t) {
    std::string topic;
    r.read_string(flex, topic);
    const int32_t n = r.read_array_length(flex, 4);
    if (n < 0) r.fail("null partition list");
    auto& parts = out[topic];
    for (int32_t i = 0; i < n && !r.failed(); ++i) parts.insert(r.read_int32());
    if (flex) protocol::skip_tagged_fields(r);
  }
}

}  // namespace

const char* state_name(TxnState s) {
  const auto i = static_cast<size_t>(s);
  return i < std::size(kStateNames) ? kStateNames[i] : "Unknown";
}

bool state_from_name(const std::string& name, TxnState& out) {
  for (size_t i = 0; i < std::size(kStateNames); ++i) {
    if (name == kStateNames[i]) {
      out = static_cast<TxnState>(i);
      return true;
    }
  }
  return false;
}

protocol::Bytes encode_txn_key(const std::string& transactional_id) {
  protocol::Bytes out;
  Writer w(out);
  w.write_int16(kKeyVersion);
  w.write_string(false, transactional_id);
  return out;
}

protocol::Bytes encode_txn_value(const TxnLogValue& v) {
  protocol::Bytes out;
  Writer w(out);
  w.write_int16(kWrittenValueVersion);
  w.write_int64(v.producer_id);
  w.write_int16(v.producer_epoch);
  w.write_int32(v.timeout_ms);
  w.write_int8(static_cast<int8_t>(v.state));
  w.write_array_length(false, static_cast<int32_t>(v.partitions.size()));
  for (const auto& [topic, parts] : v.partitions) {
    w.write_string(false, topic);
    w.write_array_length(false, static_cast<int32_t>(parts.size()));
    for (int32_t p : parts) w.write_int32(p);
  }
  w.write_int64(v.last_update_ms);
  w.write_int64(v.start_ms);
  return out;
}

Result<std::string> decode_txn_key(std::span<const uint8_t> key) {
  Reader r(key);
  auto version = read_version(r, "TransactionLogKey", kKeyVersion);
  if (!version.ok()) return version.status();
  std::string id;
  r.read_string(false, id);
  if (Status st = finish(r, "TransactionLogKey"); !st) return st;
  return id;
}

Result<TxnLogValue> decode_txn_value(std::span<const uint8_t> value) {
  Reader r(value);
  auto version = read_version(r, "TransactionLogValue", kNewestValueVersion);
  if (!version.ok()) return version.status();
  const bool flex = *version >= 1;
  TxnLogValue v;
  v.producer_id = r.read_int64();
  v.producer_epoch = r.read_int16();
  v.timeout_ms = r.read_int32();
  const int8_t state = r.read_int8();
  read_partitions(r, flex, v.partitions);
  v.last_update_ms = r.read_int64();
  v.start_ms = r.read_int64();
  if (flex) protocol::skip_tagged_fields(r);
  if (Status st = finish(r, fmt::format("TransactionLogValue v{}", *version)); !st) return st;
  if (state < 0 || static_cast<size_t>(state) >= std::size(kStateNames)) {
    return corrupt(fmt::format("unknown transaction state {}", state));
  }
  v.state = static_cast<TxnState>(state);
  return v;
}

}  // namespace mirra::txn
