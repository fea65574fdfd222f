// Broker settings of the group coordinator, under Kafka's server.properties names
// (server/config.cc parses them; the defaults are Kafka's).
#pragma once

#include <cstdint>

namespace mirra::groups {

struct GroupConfig {
  int32_t min_session_timeout_ms = 6000;                  // group.min.session.timeout.ms
  int32_t max_session_timeout_ms = 1800000;               // group.max.session.timeout.ms
  int32_t initial_rebalance_delay_ms = 3000;              // group.initial.rebalance.delay.ms
  int32_t max_size = 2147483647;                          // group.max.size
  int32_t offsets_topic_partitions = 50;                  // offsets.topic.num.partitions
  int32_t offsets_topic_segment_bytes = 104857600;        // offsets.topic.segment.bytes
  int64_t offsets_retention_ms = 7LL * 24 * 3600 * 1000;  // offsets.retention.minutes
  int64_t offsets_retention_check_interval_ms = 600000;   // offsets.retention.check.interval.ms
  int32_t offset_metadata_max_bytes = 4096;               // offset.metadata.max.bytes
};

}  // namespace mirra::groups
