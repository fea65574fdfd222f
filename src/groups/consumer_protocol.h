// The "consumer" embedded protocol: what Kafka consumers put in JoinGroup metadata
// (subscription) and SyncGroup assignments. The broker treats both as opaque bytes except
// where Kafka's broker looks inside: OffsetDelete refuses to delete offsets of topics a
// consumer group subscribes to, and the groups CLI shows assignments. Decoding accepts every
// version (fields of later versions are read when present, unknown trailing bytes ignored).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"

namespace mirra::groups {

inline constexpr const char* kConsumerProtocolType = "consumer";

struct TopicPartitions {
  std::string topic;
  std::vector<int32_t> partitions;
  bool operator==(const TopicPartitions&) const = default;
};

struct ConsumerSubscription {
  int16_t version = 0;
  std::vector<std::string> topics;
  std::optional<std::vector<uint8_t>> user_data;
  std::vector<TopicPartitions> owned_partitions;  // v1+
  int32_t generation_id = -1;                     // v2+
  std::optional<std::string> rack_id;             // v3+
  bool operator==(const ConsumerSubscription&) const = default;
};

struct ConsumerAssignment {
  int16_t version = 0;
  std::vector<TopicPartitions> partitions;
  std::optional<std::vector<uint8_t>> user_data;
  bool operator==(const ConsumerAssignment&) const = default;
};

Result<ConsumerSubscription> decode_subscription(std::span<const uint8_t> bytes);
Result<ConsumerAssignment> decode_assignment(std::span<const uint8_t> bytes);
// Encoded at `version` of the structure (for tests and tools).
std::vector<uint8_t> encode_subscription(const ConsumerSubscription& s);
std::vector<uint8_t> encode_assignment(const ConsumerAssignment& a);

}  // namespace mirra::groups
