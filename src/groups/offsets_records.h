// The records of the internal topic __consumer_offsets: committed offsets and classic group
// metadata, keyed so that compaction keeps the latest of each. Mirra writes Kafka's own
// encodings (versioned keys and values, big-endian, Kafka's string/bytes encodings), so tools
// that read __consumer_offsets read Mirra's too. The layouts are in
// docs/formats/consumer_offsets.md.
//
// A record's key says what it is (its int16 version: 0/1 = offset commit, 2 = group metadata);
// a null value is a tombstone (the offset or the group was deleted).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "base/status.h"

namespace mirra::groups {

using Bytes = std::vector<uint8_t>;

// Key versions as Kafka writes them.
inline constexpr int16_t kOffsetCommitKeyVersion = 1;  // 0 is read too
inline constexpr int16_t kGroupMetadataKeyVersion = 2;
// Value versions Mirra writes: OffsetCommitValue v3 (leader epoch, no expire timestamp);
// GroupMetadataValue v3 (static members). Older and newer (flexible v4) versions are read.
inline constexpr int16_t kOffsetCommitValueVersion = 3;
inline constexpr int16_t kGroupMetadataValueVersion = 3;

struct OffsetKey {
  std::string group;
  std::string topic;
  int32_t partition = 0;
  bool operator==(const OffsetKey&) const = default;
};

struct GroupKey {
  std::string group;
  bool operator==(const GroupKey&) const = default;
};

using RecordKey = std::variant<OffsetKey, GroupKey>;

struct OffsetValue {
  int64_t offset = -1;
  int32_t leader_epoch = -1;
  std::string metadata;
  int64_t commit_timestamp = -1;
  int64_t expire_timestamp = -1;  // only in value v1; -1 otherwise
  bool operator==(const OffsetValue&) const = default;
};

struct GroupMemberValue {
  std::string member_id;
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  int32_t rebalance_timeout_ms = -1;
  int32_t session_timeout_ms = 0;
  Bytes subscription;  // the metadata of the group's selected protocol
  Bytes assignment;
  bool operator==(const GroupMemberValue&) const = default;
};

struct GroupValue {
  std::string protocol_type;
  int32_t generation = 0;
  std::optional<std::string> protocol;
  std::optional<std::string> leader;
  int64_t current_state_timestamp = -1;
  std::vector<GroupMemberValue> members;
  bool operator==(const GroupValue&) const = default;
};

Bytes encode_key(const OffsetKey& k);
Bytes encode_key(const GroupKey& k);
Bytes encode_value(const OffsetValue& v);
Bytes encode_value(const GroupValue& v);

// Errors are CORRUPT_MESSAGE naming what was wrong; an unknown key version is
// UNSUPPORTED_VERSION (the caller may skip such records: later Kafka versions add record types
// for other group kinds to the same topic).
Result<RecordKey> decode_key(std::span<const uint8_t> key);
Result<OffsetValue> decode_offset_value(std::span<const uint8_t> value);
Result<GroupValue> decode_group_value(std::span<const uint8_t> value);

// The __consumer_offsets partition of a group: Kafka's abs(String.hashCode(group)) % count
// (base/java_hash.h), so that a group lands on the same partition number as in Kafka.
int32_t partition_for_group(std::string_view group_id, int32_t partition_count);

}  // namespace mirra::groups
