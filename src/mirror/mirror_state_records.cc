#include "mirror/mirror_state_records.h"

#include <fmt/format.h>

namespace mirra::mirror {
namespace {

constexpr bool kCompact = true;

template <typename T, typename Read>
Result<T> decode(std::span<const uint8_t> bytes, int16_t newest, std::string_view what, Read read) {
  protocol::Reader r(bytes);
  const int16_t version = r.read_int16();
  if (!r.failed() && (version < 0 || version > newest)) {
    return Status(ErrorCode::CORRUPT_MESSAGE,
                  fmt::format("__mirror_state {} version {} is not supported", what, version));
  }
  T out = read(r);
  if (r.failed()) return r.status(fmt::format("__mirror_state {}", what));
  if (r.remaining() != 0) {
    return Status(ErrorCode::CORRUPT_MESSAGE,
                  fmt::format("{} trailing bytes after a __mirror_state {}", r.remaining(), what));
  }
  return out;
}

}  // namespace

protocol::Bytes encode_state_key(const MirrorStateKey& key) {
  protocol::Bytes out;
  protocol::Writer w(out);
  w.write_int16(kMirrorStateKeyVersion);
  w.write_uuid(key.topic_id);
  w.write_int32(key.partition);
  return out;
}

protocol::Bytes encode_state_value(const MirrorStateValue& v) {
  protocol::Bytes out;
  protocol::Writer w(out);
  w.write_int16(kMirrorStateValueVersion);
  w.write_string(kCompact, v.mirror);
  w.write_string(kCompact, v.source_cluster_id);
  w.write_int8(v.state);
  w.write_int8(v.previous_state);
  w.write_int64(v.last_mirrored_offset);
  w.write_int32(v.retries);
  w.write_int32(v.state_epoch);
  w.write_int16(v.last_error_code);
  w.write_nullable_string(kCompact, v.last_error);
  return out;
}

Result<MirrorStateKey> decode_state_key(std::span<const uint8_t> bytes) {
  return decode<MirrorStateKey>(bytes, kMirrorStateKeyVersion, "key", [](protocol::Reader& r) {
    MirrorStateKey k;
    k.topic_id = r.read_uuid();
    k.partition = r.read_int32();
    return k;
  });
}

Result<MirrorStateValue> decode_state_value(std::span<const uint8_t> bytes) {
  return decode<MirrorStateValue>(bytes, kMirrorStateValueVersion, "value",
                                  [](protocol::Reader& r) {
                                    MirrorStateValue v;
                                    r.read_string(kCompact, v.mirror);
                                    r.read_string(kCompact, v.source_cluster_id);
                                    v.state = r.read_int8();
                                    v.previous_state = r.read_int8();
                                    v.last_mirrored_offset = r.read_int64();
                                    v.retries = r.read_int32();
                                    v.state_epoch = r.read_int32();
                                    v.last_error_code = r.read_int16();
                                    std::string error;
                                    if (r.read_nullable_string(kCompact, error))
                                      v.last_error = std::move(error);
                                    return v;
                                  });
}

}  // namespace mirra::mirror
