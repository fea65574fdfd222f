// Metadata records: the changes the metadata log stores, one record per change, applied to the
// image in log order. Their on-disk encoding is in docs/formats/metadata.md; it carries a
// type and a version so records can grow fields later.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/status.h"
#include "base/uuid.h"
#include "metadata/acl_records.h"
#include "metadata/quota_records.h"

namespace mirra::metadata {

// A topic exists (its partitions follow as PartitionRecords in the same batch).
struct TopicRecord {
  std::string name;
  Uuid id;

  bool operator==(const TopicRecord&) const = default;
};

// A partition of a topic, created or changed (leader, epoch, replicas).
struct PartitionRecord {
  Uuid topic_id;
  int32_t partition = 0;
  std::vector<int32_t> replicas;
  int32_t leader = -1;
  int32_t leader_epoch = 0;

  bool operator==(const PartitionRecord&) const = default;
};

// A config set or removed: resource_type uses Kafka's ConfigResource types (2 = topic,
// 4 = broker, 32 = group); resource_name is the topic name, "" for the cluster-wide broker
// default, a node id, or a group id.
// value == nullopt removes the key.
struct ConfigRecord {
  int8_t resource_type = 2;
  std::string resource_name;
  std::string key;
  std::optional<std::string> value;

  bool operator==(const ConfigRecord&) const = default;
};

// A topic and all its partitions are gone.
struct RemoveTopicRecord {
  Uuid topic_id;

  bool operator==(const RemoveTopicRecord&) const = default;
};

// Producer ids below `next_producer_id` are handed out (or reserved by `broker_id` as a
// block): no InitProducerId may return them again, whatever crashed since.
struct ProducerIdsRecord {
  int32_t broker_id = -1;
  int64_t next_producer_id = 0;

  bool operator==(const ProducerIdsRecord&) const = default;
};

// A mirror (docs/mirroring-design.md §1) exists with exactly these configs: the first record of a
// name creates it, a later one replaces all of its configs. Secrets are among them, in the clear:
// the metadata log is the destination's own storage, and no API returns them.
// `topic_patterns` (version 1): the `--add --topic REGEX` patterns the mirror was given, which
// its topics sync keeps applying to topics created later on the source (§8).
struct MirrorRecord {
  std::string name;
  std::vector<std::pair<std::string, std::string>> configs;  // sorted by key, unique keys
  std::vector<std::string> topic_patterns = {};              // in the order given, unique

  bool operator==(const MirrorRecord&) const = default;
};

// A mirror is gone (its topics stay as ordinary topics).
struct RemoveMirrorRecord {
  std::string name;

  bool operator==(const RemoveMirrorRecord&) const = default;
};

// A user's SCRAM credential for one mechanism, created or replaced: what the broker keeps of a
// password (salt, StoredKey, ServerKey as raw bytes), never the password itself. `mechanism` is
// the wire code of AlterUserScramCredentials: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512.
struct UserScramCredentialRecord {
  std::string name;
  int8_t mechanism = 0;
  std::string salt;
  std::string stored_key;
  std::string server_key;
  int32_t iterations = 0;

  bool operator==(const UserScramCredentialRecord&) const = default;
};

// A user's credential for one mechanism is gone (the user's other mechanism stays).
struct RemoveUserScramCredentialRecord {
  std::string name;
  int8_t mechanism = 0;

  bool operator==(const RemoveUserScramCredentialRecord&) const = default;
};

using MetadataRecord =
    std::variant<TopicRecord, PartitionRecord, ConfigRecord, RemoveTopicRecord, ProducerIdsRecord,
                 MirrorRecord, RemoveMirrorRecord, UserScramCredentialRecord,
                 RemoveUserScramCredentialRecord, AccessControlEntryRecord,
                 RemoveAccessControlEntryRecord, ClientQuotaRecord>;

// Record types (int16 on disk): Kafka's metadata record api keys, so that a dump reads the same.
inline constexpr int16_t kTopicRecordType = 2;
inline constexpr int16_t kPartitionRecordType = 3;
inline constexpr int16_t kConfigRecordType = 4;
// ACL records: kAccessControlEntryRecordType 6, kRemoveAccessControlEntryRecordType 7
// (metadata/acl_records.h).
inline constexpr int16_t kRemoveTopicRecordType = 9;
inline constexpr int16_t kUserScramCredentialRecordType = 11;
// kClientQuotaRecordType 14 (metadata/quota_records.h).
inline constexpr int16_t kProducerIdsRecordType = 15;
inline constexpr int16_t kRemoveUserScramCredentialRecordType = 22;
// Mirra's own records, far above Kafka's metadata record keys.
inline constexpr int16_t kMirrorRecordType = 1000;
inline constexpr int16_t kRemoveMirrorRecordType = 1001;
// Producer ids stay below this (ProducerIdsRecord): far from INT64_MAX and from the negative
// ids mirroring rewrites source producers to.
inline constexpr int64_t kMaxNextProducerId = int64_t{1} << 62;
// The version every record is written with and the newest one decode accepts, but
// MirrorRecord's and AccessControlEntryRecord's (acl_records.h).
inline constexpr int16_t kRecordVersion = 0;
// MirrorRecord: version 1 adds topic_patterns. A record without patterns is written as version 0,
// so that a mirror never given a pattern stays readable by a build that knows only version 0.
inline constexpr int16_t kMirrorRecordVersion = 1;

// ConfigRecord::resource_type values (Kafka's ConfigResource.Type ids).
inline constexpr int8_t kTopicResource = 2;
inline constexpr int8_t kBrokerResource = 4;
inline constexpr int8_t kGroupResource = 32;

// UserScramCredentialRecord::mechanism values (the SCRAM admin APIs' codes).
inline constexpr int8_t kScramSha256 = 1;
inline constexpr int8_t kScramSha512 = 2;

// Encoding of one record (type, version, fields); decode refuses unknown types, newer
// versions, truncation and trailing garbage with a CORRUPT_MESSAGE Status saying which.
std::vector<uint8_t> encode_record(const MetadataRecord& record);
Result<MetadataRecord> decode_record(std::span<const uint8_t> bytes);

// "TopicRecord", "PartitionRecord", ... for messages.
std::string_view record_type_name(const MetadataRecord& record);

}  // namespace mirra::metadata
