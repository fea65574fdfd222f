// Metadata records: the changes the metadata log stores, one record per change, applied to the
// image in log order. Their on-disk encoding is in docs/formats/metadata.md; it carries a
// type and a version so records can grow fields later.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "base/status.h"
#include "base/uuid.h"

namespace mirra::metadata {

// A topic exists (its partitions follow as PartitionRecords in the same batch).
struct TopicRecord {
  std::string name;
  Uuid id;
};

// A partition of a topic, created or changed (leader, epoch, replicas).
struct PartitionRecord {
  Uuid topic_id;
  int32_t partition = 0;
  std::vector<int32_t> replicas;
  int32_t leader = -1;
  int32_t leader_epoch = 0;
};

// A config set or removed: resource_type uses Kafka's ConfigResource types (2 = topic,
// 4 = broker); resource_name is the topic name or "" for the cluster-wide broker default.
// value == nullopt removes the key.
struct ConfigRecord {
  int8_t resource_type = 2;
  std::string resource_name;
  std::string key;
  std::optional<std::string> value;
};

// A topic and all its partitions are gone.
struct RemoveTopicRecord {
  Uuid topic_id;
};

using MetadataRecord = std::variant<TopicRecord, PartitionRecord, ConfigRecord, RemoveTopicRecord>;

// Encoding of one record (type, version, fields); decode refuses unknown types, newer
// versions and trailing garbage with a CORRUPT_MESSAGE Status.
std::vector<uint8_t> encode_record(const MetadataRecord& record);
Result<MetadataRecord> decode_record(std::span<const uint8_t> bytes);

}  // namespace mirra::metadata
