// The value of the topic configs that list throttled replicas (mirror.replication.throttled.
// replicas, and Kafka's leader./follower.replication.throttled.replicas): `*` for every
// partition, or comma-separated `partition:broker` pairs (docs/quotas.md).
#pragma once

#include <cstdint>
#include <set>
#include <string_view>

#include "base/status.h"

namespace mirra::cluster {

inline constexpr std::string_view kMirrorThrottledReplicasKey =
    "mirror.replication.throttled.replicas";

// The partitions of broker `node_id` a value lists.
struct ThrottledReplicas {
  bool all = false;
  std::set<int32_t> partitions;

  bool contains(int32_t partition) const { return all || partitions.count(partition) != 0; }
};

// INVALID_CONFIG naming `key` and the bad entry: neither `*` nor whole numbers >= 0 around a
// colon. An empty value lists nothing.
Result<ThrottledReplicas> parse_throttled_replicas(std::string_view key, std::string_view value,
                                                   int32_t node_id);

}  // namespace mirra::cluster
