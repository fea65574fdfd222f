#include "protocol/records/record.h"

#include <string>

#include "protocol/records/byte_order.h"
#include "protocol/records/varint.h"

namespace mirra::records {
namespace {

Status corrupt(std::string msg) { return Status(ErrorCode::CORRUPT_MESSAGE, std::move(msg)); }

// The field readers return nullptr on success or a short description of the problem, which the
// caller turns into a Status; keeping strings off the success path keeps iteration allocation-free.
const char* read_varint_field(Bytes& in, int32_t& out) {
  const size_t n = read_varint(in, out);
  if (n == 0) return "truncated or over-long varint";
  in = in.subspan(n);
  return nullptr;
}

const char* read_varlong_field(Bytes& in, int64_t& out) {
  const size_t n = read_varlong(in, out);
  if (n == 0) return "truncated or over-long varlong";
  in = in.subspan(n);
  return nullptr;
}

// A varint length then that many bytes; -1 is null where `nullable`.
const char* read_length_prefixed(Bytes& in, NullableBytes& out, bool nullable) {
  int32_t len = 0;
  if (const char* e = read_varint_field(in, len)) return e;
  if (len == -1 && nullable) {
    out.reset();
    return nullptr;
  }
  if (len < 0) return "negative length";
  if (static_cast<size_t>(len) > in.size()) return "length runs past the end of the record";
  out = in.first(static_cast<size_t>(len));
  in = in.subspan(static_cast<size_t>(len));
  return nullptr;
}

const char* read_header(Bytes& in, HeaderView& out) {
  NullableBytes key;
  if (const char* e = read_length_prefixed(in, key, false)) return e;
  out.key = *key;
  return read_length_prefixed(in, out.value, true);
}

// Everything after offsetDelta; split out to keep parse_record_body short.
const char* read_record_tail(Bytes& in, RecordView& out) {
  if (const char* e = read_length_prefixed(in, out.key, true)) return e;
  if (const char* e = read_length_prefixed(in, out.value, true)) return e;
  if (const char* e = read_varint_field(in, out.header_count)) return e;
  // Each header takes at least two bytes, which bounds the loop below by the input size.
  if (out.header_count < 0) return "negative header count";
  if (static_cast<size_t>(out.header_count) > in.size() / 2) return "header count too large";
  const Bytes headers_start = in;
  HeaderView h;
  for (int32_t i = 0; i < out.header_count; ++i)
    if (const char* e = read_header(in, h)) return e;
  out.header_bytes = headers_start.first(headers_start.size() - in.size());
  return nullptr;
}

}  // namespace

Status parse_record_body(Bytes body, RecordView& out) {
  if (body.empty()) return corrupt("record: empty body");
  out.attributes = static_cast<int8_t>(body[0]);
  Bytes in = body.subspan(1);
  const char* err = read_varlong_field(in, out.timestamp_delta);
  if (err == nullptr) err = read_varint_field(in, out.offset_delta);
  if (err == nullptr) err = read_record_tail(in, out);
  if (err != nullptr) return corrupt(std::string("record: ") + err);
  if (!in.empty())
    return corrupt("record: " + std::to_string(in.size()) + " bytes left after its headers");
  return Status();
}

bool HeaderIterator::next(HeaderView& out) {
  if (left_ <= 0) return false;
  --left_;
  return read_header(bytes_, out) == nullptr;
}

bool RecordIterator::fail(std::string message) {
  status_ = corrupt("record " + std::to_string(index_) + ": " + message);
  left_ = 0;
  rest_ = {};
  return false;
}

bool RecordIterator::next(RecordView& out) {
  if (!status_.ok()) return false;
  if (left_ <= 0) {
    if (!rest_.empty())
      return fail(std::to_string(rest_.size()) + " bytes after the last announced record");
    return false;
  }
  int32_t len = 0;
  const size_t n = read_varint(rest_, len);
  if (n == 0) return fail("truncated or malformed length (fewer records than announced?)");
  if (len < 0 || static_cast<size_t>(len) > rest_.size() - n)
    return fail("length " + std::to_string(len) + " exceeds the " +
                std::to_string(rest_.size() - n) + " bytes left");
  const Bytes body = rest_.subspan(n, static_cast<size_t>(len));
  rest_ = rest_.subspan(n + static_cast<size_t>(len));
  if (Status st = parse_record_body(body, out); !st) return fail(st.message());
  --left_;
  ++index_;
  return true;
}

Result<RecordIterator> iterate_records(const BatchView& batch, std::vector<uint8_t>& scratch,
                                       size_t max_decompressed) {
  const int32_t count = batch.record_count();
  if (count < 0) return corrupt("negative record count " + std::to_string(count));
  if (batch.compression_id() == 0) return RecordIterator(batch.payload(), count);
  auto codec = compression_from_id(batch.compression_id());
  if (!codec) return codec.status();
  scratch.clear();
  if (Status st = decompress(*codec, batch.payload(), scratch, max_decompressed); !st)
    return Status(st.code(), "record batch at offset " + std::to_string(batch.base_offset()) +
                                 ": " + st.message());
  return RecordIterator(scratch, count);
}

Result<ControlRecord> parse_control_record(const RecordView& record) {
  ControlRecord out;
  if (!record.key || record.key->size() < 4)
    return corrupt("control record: key must hold version int16 + type int16");
  out.key_version = static_cast<int16_t>(load_be16(record.key->data()));
  out.type = static_cast<int16_t>(load_be16(record.key->data() + 2));
  if (out.key_version < 0)
    return corrupt("control record: negative key version " + std::to_string(out.key_version));
  const bool marker = out.type == static_cast<int16_t>(ControlType::ABORT) ||
                      out.type == static_cast<int16_t>(ControlType::COMMIT);
  if (!marker) return out;  // other control types carry their own values; not ours to judge
  if (!record.value || record.value->size() < 6)
    return corrupt("transaction marker: value must hold version int16 + coordinator epoch int32");
  out.value_version = static_cast<int16_t>(load_be16(record.value->data()));
  out.coordinator_epoch = static_cast<int32_t>(load_be32(record.value->data() + 2));
  if (out.value_version < 0)
    return corrupt("transaction marker: negative value version " +
                   std::to_string(out.value_version));
  return out;
}

}  // namespace mirra::records
