#include "groups/offsets_records.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/java_hash.h"
#include "protocol/tagged_fields.h"
#include "protocol/wire.h"

namespace mirra::groups {
namespace {

using protocol::Reader;
using protocol::skip_tagged_fields;
using protocol::Writer;

// Kafka's first flexible value version (compact strings, bytes and arrays; a tagged-field
// section after each struct). Keys are never flexible.
constexpr int16_t kFirstFlexibleValueVersion = 4;
constexpr int16_t kNewestOffsetValueVersion = 4;
constexpr int16_t kNewestGroupValueVersion = 4;

Status corrupt(std::string message) {
  return Status(ErrorCode::CORRUPT_MESSAGE, std::move(message));
}

// The common ending of every decode: the reader's own failure, then nothing may follow.
Status finish(const Reader& r, std::string_view what, int16_t version) {
  const std::string name = fmt::format("{} v{}", what, version);
  if (r.failed()) return r.status(name);
  if (r.remaining() != 0)
    return corrupt(
        fmt::format("{}: {} trailing bytes after {} bytes", name, r.remaining(), r.position()));
  return Status::OK();
}

// ---- keys --------------------------------------------------------------------------------

Result<RecordKey> read_offset_key(Reader& r, int16_t version) {
  OffsetKey k;
  r.read_string(false, k.group);
  r.read_string(false, k.topic);
  k.partition = r.read_int32();
  if (Status st = finish(r, "OffsetCommitKey", version); !st.ok()) return st;
  return RecordKey{std::move(k)};
}

Result<RecordKey> read_group_key(Reader& r, int16_t version) {
  GroupKey k;
  r.read_string(false, k.group);
  if (Status st = finish(r, "GroupMetadataKey", version); !st.ok()) return st;
  return RecordKey{std::move(k)};
}

// ---- OffsetCommitValue -------------------------------------------------------------------

void write_offset_fields(Writer& w, const OffsetValue& v, int16_t version) {
  const bool flex = version >= kFirstFlexibleValueVersion;
  w.write_int64(v.offset);
  if (version >= 3) w.write_int32(v.leader_epoch);
  w.write_string(flex, v.metadata);
  w.write_int64(v.commit_timestamp);
  if (version == 1) w.write_int64(v.expire_timestamp);
  if (flex) w.write_uvarint(0);  // no tagged fields
}

OffsetValue read_offset_fields(Reader& r, int16_t version) {
  const bool flex = version >= kFirstFlexibleValueVersion;
  OffsetValue v;
  v.offset = r.read_int64();
  if (version >= 3) v.leader_epoch = r.read_int32();
  r.read_string(flex, v.metadata);
  v.commit_timestamp = r.read_int64();
  if (version == 1) v.expire_timestamp = r.read_int64();
  if (flex) skip_tagged_fields(r);
  return v;
}

// ---- GroupMetadataValue ------------------------------------------------------------------

void write_member(Writer& w, const GroupMemberValue& m, int16_t version) {
  const bool flex = version >= kFirstFlexibleValueVersion;
  w.write_string(flex, m.member_id);
  if (version >= 3) w.write_nullable_string(flex, m.group_instance_id);
  w.write_string(flex, m.client_id);
  w.write_string(flex, m.client_host);
  if (version >= 1) w.write_int32(m.rebalance_timeout_ms);
  w.write_int32(m.session_timeout_ms);
  w.write_bytes(flex, m.subscription);
  w.write_bytes(flex, m.assignment);
  if (flex) w.write_uvarint(0);
}

void write_group_fields(Writer& w, const GroupValue& v, int16_t version) {
  const bool flex = version >= kFirstFlexibleValueVersion;
  w.write_string(flex, v.protocol_type);
  w.write_int32(v.generation);
  w.write_nullable_string(flex, v.protocol);
  w.write_nullable_string(flex, v.leader);
  if (version >= 2) w.write_int64(v.current_state_timestamp);
  w.write_array_length(flex, static_cast<int32_t>(v.members.size()));
  for (const GroupMemberValue& m : v.members) write_member(w, m, version);
  if (flex) w.write_uvarint(0);
}

// The fewest bytes a member can take in `version` (every string and bytes field empty), so
// that a hostile member count is bounded by the bytes left before anything is reserved.
size_t min_member_size(int16_t version) {
  const bool flex = version >= kFirstFlexibleValueVersion;
  const size_t str = flex ? 1 : 2;
  const size_t bytes = flex ? 1 : 4;
  size_t n = 3 * str + 4 + 2 * bytes;  // ids, host, session timeout, two blobs
  if (version >= 1) n += 4;            // rebalance timeout
  if (version >= 3) n += str;          // group instance id
  if (flex) n += 1;                    // tagged fields
  return n;
}

GroupMemberValue read_member(Reader& r, int16_t version) {
  const bool flex = version >= kFirstFlexibleValueVersion;
  GroupMemberValue m;
  r.read_string(flex, m.member_id);
  if (version >= 3) {
    std::string id;
    if (r.read_nullable_string(flex, id)) m.group_instance_id = std::move(id);
  }
  r.read_string(flex, m.client_id);
  r.read_string(flex, m.client_host);
  if (version >= 1) m.rebalance_timeout_ms = r.read_int32();
  m.session_timeout_ms = r.read_int32();
  r.read_bytes(flex, m.subscription);
  r.read_bytes(flex, m.assignment);
  if (flex) skip_tagged_fields(r);
  return m;
}

GroupValue read_group_fields(Reader& r, int16_t version) {
  const bool flex = version >= kFirstFlexibleValueVersion;
  GroupValue v;
  r.read_string(flex, v.protocol_type);
  v.generation = r.read_int32();
  std::string s;
  if (r.read_nullable_string(flex, s)) v.protocol = std::move(s);
  if (r.read_nullable_string(flex, s)) v.leader = std::move(s);
  if (version >= 2) v.current_state_timestamp = r.read_int64();
  const int32_t n = r.read_array_length(flex, min_member_size(version));
  if (n < 0) r.fail("null member list");
  v.members.reserve(static_cast<size_t>(std::max(n, 0)));
  for (int32_t i = 0; i < n && !r.failed(); ++i) v.members.push_back(read_member(r, version));
  if (flex) skip_tagged_fields(r);
  return v;
}

// The int16 version every value starts with, checked against the versions Kafka defines.
// An unknown value version is corrupt rather than unsupported: unlike an unknown key version it
// is not a record of another kind that may be skipped, and Kafka itself never writes one
// (KIP-915 freezes these at v4 and grows them by tagged fields).
Result<int16_t> read_value_version(Reader& r, std::string_view what, int16_t newest) {
  const int16_t version = r.read_int16();
  if (r.failed()) return corrupt(fmt::format("{}: shorter than its 2-byte version", what));
  if (version < 0 || version > newest)
    return corrupt(fmt::format("{}: version {} is not one of 0-{}", what, version, newest));
  return version;
}

}  // namespace

// Keys and values below v4 use classic strings, which hold at most 32767 bytes; the caller
// refuses longer group ids, member ids or offset metadata before it builds a record (Kafka's
// coordinator cannot write them either), since these functions have no way to fail.
Bytes encode_key(const OffsetKey& k) {
  Bytes out;
  Writer w(out);
  w.write_int16(kOffsetCommitKeyVersion);
  w.write_string(false, k.group);
  w.write_string(false, k.topic);
  w.write_int32(k.partition);
  return out;
}

Bytes encode_key(const GroupKey& k) {
  Bytes out;
  Writer w(out);
  w.write_int16(kGroupMetadataKeyVersion);
  w.write_string(false, k.group);
  return out;
}

Bytes encode_value(const OffsetValue& v) {
  Bytes out;
  Writer w(out);
  w.write_int16(kOffsetCommitValueVersion);
  write_offset_fields(w, v, kOffsetCommitValueVersion);
  return out;
}

Bytes encode_value(const GroupValue& v) {
  Bytes out;
  Writer w(out);
  w.write_int16(kGroupMetadataValueVersion);
  write_group_fields(w, v, kGroupMetadataValueVersion);
  return out;
}

Result<RecordKey> decode_key(std::span<const uint8_t> key) {
  Reader r(key);
  const int16_t version = r.read_int16();
  if (r.failed()) return corrupt("__consumer_offsets key: shorter than its 2-byte version");
  if (version == 0 || version == 1) return read_offset_key(r, version);
  if (version == 2) return read_group_key(r, version);
  // Newer Kafka versions put records of other group kinds (consumer groups of KIP-848, share
  // groups) in the same topic under further key versions; the caller decides whether to skip.
  return Status(ErrorCode::UNSUPPORTED_VERSION,
                fmt::format("__consumer_offsets key version {} is not an offset commit (0, 1) "
                            "or group metadata (2) key",
                            version));
}

Result<OffsetValue> decode_offset_value(std::span<const uint8_t> value) {
  Reader r(value);
  auto version = read_value_version(r, "OffsetCommitValue", kNewestOffsetValueVersion);
  if (!version.ok()) return version.status();
  OffsetValue v = read_offset_fields(r, *version);
  if (Status st = finish(r, "OffsetCommitValue", *version); !st.ok()) return st;
  return v;
}

Result<GroupValue> decode_group_value(std::span<const uint8_t> value) {
  Reader r(value);
  auto version = read_value_version(r, "GroupMetadataValue", kNewestGroupValueVersion);
  if (!version.ok()) return version.status();
  GroupValue v = read_group_fields(r, *version);
  if (Status st = finish(r, "GroupMetadataValue", *version); !st.ok()) return st;
  return v;
}

int32_t partition_for_group(std::string_view group_id, int32_t partition_count) {
  return java_hash_partition(group_id, partition_count);
}

}  // namespace mirra::groups
