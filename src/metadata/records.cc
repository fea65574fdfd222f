#include "metadata/records.h"

#include <fmt/format.h>

#include "protocol/wire.h"

namespace mirra::metadata {
namespace {

using protocol::Reader;
using protocol::Writer;

// Strings and arrays use the compact (unsigned varint) encodings: no 32767-byte cap on config
// values, and one byte of length for the common short name.
constexpr bool kCompact = true;

std::string_view type_name(int16_t type) {
  switch (type) {
    case kTopicRecordType:
      return "TopicRecord";
    case kPartitionRecordType:
      return "PartitionRecord";
    case kConfigRecordType:
      return "ConfigRecord";
    case kRemoveTopicRecordType:
      return "RemoveTopicRecord";
    case kProducerIdsRecordType:
      return "ProducerIdsRecord";
    case kMirrorRecordType:
      return "MirrorRecord";
    case kRemoveMirrorRecordType:
      return "RemoveMirrorRecord";
    case kUserScramCredentialRecordType:
      return "UserScramCredentialRecord";
    case kRemoveUserScramCredentialRecordType:
      return "RemoveUserScramCredentialRecord";
    case kAccessControlEntryRecordType:
      return "AccessControlEntryRecord";
    case kRemoveAccessControlEntryRecordType:
      return "RemoveAccessControlEntryRecord";
    case kClientQuotaRecordType:
      return "ClientQuotaRecord";
    default:
      return "unknown";
  }
}

// The newest version of a type this build reads.
int16_t newest_version(int16_t type) {
  if (type == kMirrorRecordType) return kMirrorRecordVersion;
  if (type == kAccessControlEntryRecordType) return kAccessControlEntryRecordVersion;
  return kRecordVersion;
}

// The version a record is written with: the oldest that holds all of it.
int16_t version_of(const MetadataRecord& record) {
  if (const auto* a = std::get_if<AccessControlEntryRecord>(&record)) return acl_record_version(*a);
  const auto* m = std::get_if<MirrorRecord>(&record);
  return m != nullptr && !m->topic_patterns.empty() ? kMirrorRecordVersion : kRecordVersion;
}

int16_t type_of(const MetadataRecord& record) {
  return std::visit(
      [](const auto& r) -> int16_t {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, TopicRecord>) return kTopicRecordType;
        if constexpr (std::is_same_v<T, PartitionRecord>) return kPartitionRecordType;
        if constexpr (std::is_same_v<T, ConfigRecord>) return kConfigRecordType;
        if constexpr (std::is_same_v<T, RemoveTopicRecord>) return kRemoveTopicRecordType;
        if constexpr (std::is_same_v<T, ProducerIdsRecord>) return kProducerIdsRecordType;
        if constexpr (std::is_same_v<T, MirrorRecord>) return kMirrorRecordType;
        if constexpr (std::is_same_v<T, RemoveMirrorRecord>) return kRemoveMirrorRecordType;
        if constexpr (std::is_same_v<T, UserScramCredentialRecord>)
          return kUserScramCredentialRecordType;
        if constexpr (std::is_same_v<T, RemoveUserScramCredentialRecord>)
          return kRemoveUserScramCredentialRecordType;
        if constexpr (std::is_same_v<T, AccessControlEntryRecord>)
          return kAccessControlEntryRecordType;
        if constexpr (std::is_same_v<T, RemoveAccessControlEntryRecord>)
          return kRemoveAccessControlEntryRecordType;
        if constexpr (std::is_same_v<T, ClientQuotaRecord>) return kClientQuotaRecordType;
      },
      record);
}

void write_fields(Writer& w, const TopicRecord& r) {
  w.write_string(kCompact, r.name);
  w.write_uuid(r.id);
}

void write_fields(Writer& w, const PartitionRecord& r) {
  w.write_uuid(r.topic_id);
  w.write_int32(r.partition);
  w.write_array_length(kCompact, static_cast<int32_t>(r.replicas.size()));
  for (int32_t node : r.replicas) w.write_int32(node);
  w.write_int32(r.leader);
  w.write_int32(r.leader_epoch);
}

void write_fields(Writer& w, const ConfigRecord& r) {
  w.write_int8(r.resource_type);
  w.write_string(kCompact, r.resource_name);
  w.write_string(kCompact, r.key);
  w.write_nullable_string(kCompact, r.value);
}

void write_fields(Writer& w, const RemoveTopicRecord& r) { w.write_uuid(r.topic_id); }

void write_fields(Writer& w, const ProducerIdsRecord& r) {
  w.write_int32(r.broker_id);
  w.write_int64(r.next_producer_id);
}

void write_fields(Writer& w, const MirrorRecord& r) {
  w.write_string(kCompact, r.name);
  w.write_array_length(kCompact, static_cast<int32_t>(r.configs.size()));
  for (const auto& [key, value] : r.configs) {
    w.write_string(kCompact, key);
    w.write_string(kCompact, value);
  }
  if (r.topic_patterns.empty()) return;  // version 0 (version_of)
  w.write_array_length(kCompact, static_cast<int32_t>(r.topic_patterns.size()));
  for (const std::string& p : r.topic_patterns) w.write_string(kCompact, p);
}

void write_fields(Writer& w, const RemoveMirrorRecord& r) { w.write_string(kCompact, r.name); }

// Salt and keys are bytes; a compact string is the same encoding as compact bytes.
void write_fields(Writer& w, const UserScramCredentialRecord& r) {
  w.write_string(kCompact, r.name);
  w.write_int8(r.mechanism);
  w.write_string(kCompact, r.salt);
  w.write_string(kCompact, r.stored_key);
  w.write_string(kCompact, r.server_key);
  w.write_int32(r.iterations);
}

void write_fields(Writer& w, const RemoveUserScramCredentialRecord& r) {
  w.write_string(kCompact, r.name);
  w.write_int8(r.mechanism);
}
void write_fields(Writer& w, const AccessControlEntryRecord& r) { write_acl_fields(w, r); }
void write_fields(Writer& w, const RemoveAccessControlEntryRecord& r) { write_acl_fields(w, r); }
void write_fields(Writer& w, const ClientQuotaRecord& r) { write_client_quota_fields(w, r); }

TopicRecord read_topic(Reader& r) {
  TopicRecord t;
  r.read_string(kCompact, t.name);
  t.id = r.read_uuid();
  return t;
}

PartitionRecord read_partition(Reader& r) {
  PartitionRecord p;
  p.topic_id = r.read_uuid();
  p.partition = r.read_int32();
  // A null array is as malformed as a short one; read_array_length bounds n by the bytes left.
  int32_t n = r.read_array_length(kCompact, sizeof(int32_t));
  if (n < 0) r.fail("null replica list");
  p.replicas.reserve(static_cast<size_t>(std::max(n, 0)));
  for (int32_t i = 0; i < n; ++i) p.replicas.push_back(r.read_int32());
  p.leader = r.read_int32();
  p.leader_epoch = r.read_int32();
  return p;
}

ConfigRecord read_config(Reader& r) {
  ConfigRecord c;
  c.resource_type = r.read_int8();
  r.read_string(kCompact, c.resource_name);
  r.read_string(kCompact, c.key);
  std::string value;
  if (r.read_nullable_string(kCompact, value)) c.value = std::move(value);
  return c;
}

RemoveTopicRecord read_remove_topic(Reader& r) { return RemoveTopicRecord{r.read_uuid()}; }

ProducerIdsRecord read_producer_ids(Reader& r) {
  ProducerIdsRecord p;
  p.broker_id = r.read_int32();
  p.next_producer_id = r.read_int64();
  return p;
}

MirrorRecord read_mirror(Reader& r, int16_t version) {
  MirrorRecord m;
  r.read_string(kCompact, m.name);
  // Each entry takes at least two bytes (two compact string lengths).
  int32_t n = r.read_array_length(kCompact, 2);
  if (n < 0) r.fail("null mirror config list");
  for (int32_t i = 0; i < n && !r.failed(); ++i) {
    auto& [key, value] = m.configs.emplace_back();
    r.read_string(kCompact, key);
    r.read_string(kCompact, value);
  }
  if (version < 1) return m;  // version 0: no patterns
  // Each pattern takes at least one byte (its compact length).
  n = r.read_array_length(kCompact, 1);
  if (n < 0) r.fail("null mirror topic pattern list");
  for (int32_t i = 0; i < n && !r.failed(); ++i) {
    r.read_string(kCompact, m.topic_patterns.emplace_back());
  }
  return m;
}

RemoveMirrorRecord read_remove_mirror(Reader& r) {
  RemoveMirrorRecord m;
  r.read_string(kCompact, m.name);
  return m;
}

UserScramCredentialRecord read_scram_credential(Reader& r) {
  UserScramCredentialRecord c;
  r.read_string(kCompact, c.name);
  c.mechanism = r.read_int8();
  r.read_string(kCompact, c.salt);
  r.read_string(kCompact, c.stored_key);
  r.read_string(kCompact, c.server_key);
  c.iterations = r.read_int32();
  return c;
}

RemoveUserScramCredentialRecord read_remove_scram_credential(Reader& r) {
  RemoveUserScramCredentialRecord c;
  r.read_string(kCompact, c.name);
  c.mechanism = r.read_int8();
  return c;
}

Status corrupt(std::string message) {
  return Status(ErrorCode::CORRUPT_MESSAGE, "metadata record: " + std::move(message));
}

}  // namespace

std::vector<uint8_t> encode_record(const MetadataRecord& record) {
  std::vector<uint8_t> out;
  Writer w(out);
  w.write_int16(type_of(record));
  w.write_int16(version_of(record));
  std::visit([&](const auto& r) { write_fields(w, r); }, record);
  return out;
}

Result<MetadataRecord> decode_record(std::span<const uint8_t> bytes) {
  Reader r(bytes);
  const int16_t type = r.read_int16();
  const int16_t version = r.read_int16();
  if (r.failed())
    return corrupt(fmt::format("{} bytes, shorter than the 4-byte type and version", bytes.size()));
  if (type_name(type) == "unknown") return corrupt(fmt::format("unknown record type {}", type));
  if (version < 0 || version > newest_version(type))
    return corrupt(fmt::format("{} version {} is not supported (newest known: {})", type_name(type),
                               version, newest_version(type)));
  MetadataRecord record;
  switch (type) {
    case kTopicRecordType:
      record = read_topic(r);
      break;
    case kPartitionRecordType:
      record = read_partition(r);
      break;
    case kConfigRecordType:
      record = read_config(r);
      break;
    case kRemoveTopicRecordType:
      record = read_remove_topic(r);
      break;
    case kProducerIdsRecordType:
      record = read_producer_ids(r);
      break;
    case kMirrorRecordType:
      record = read_mirror(r, version);
      break;
    case kUserScramCredentialRecordType:
      record = read_scram_credential(r);
      break;
    case kRemoveUserScramCredentialRecordType:
      record = read_remove_scram_credential(r);
      break;
    case kAccessControlEntryRecordType:
      record = read_access_control_entry(r, version);
      break;
    case kRemoveAccessControlEntryRecordType:
      record = read_remove_access_control_entry(r);
      break;
    case kClientQuotaRecordType:
      record = read_client_quota(r);
      break;
    default:
      record = read_remove_mirror(r);
      break;
  }
  if (r.failed()) return r.status("metadata record: " + std::string(type_name(type)));
  if (r.remaining() != 0)
    return corrupt(fmt::format("{} trailing bytes after a {} of {} bytes", r.remaining(),
                               type_name(type), r.position()));
  return record;
}

std::string_view record_type_name(const MetadataRecord& record) {
  return type_name(type_of(record));
}

}  // namespace mirra::metadata
