// Broker settings of the group coordinator, under Kafka's server.properties names
// (server/config.cc parses them; the defaults are Kafka's).
#pragma once

#include <cstdint>

namespace mirra::groups {

// The group.share.* broker settings (KIP-932), Kafka's names and defaults. The coordinator uses
// the membership ones; the record-lock, delivery and session limits are read by the share
// module (ShareFetch / ShareAcknowledge). server/config.cc checks each key's own range and the
// relations between them (check_share_config) at start-up.
struct ShareGroupConfig {
  int32_t max_size = 200;                       // group.share.max.size
  int32_t heartbeat_interval_ms = 5000;         // group.share.heartbeat.interval.ms
  int32_t min_heartbeat_interval_ms = 5000;     // group.share.min.heartbeat.interval.ms
  int32_t max_heartbeat_interval_ms = 15000;    // group.share.max.heartbeat.interval.ms
  int32_t session_timeout_ms = 45000;           // group.share.session.timeout.ms
  int32_t min_session_timeout_ms = 45000;       // group.share.min.session.timeout.ms
  int32_t max_session_timeout_ms = 60000;       // group.share.max.session.timeout.ms
  int32_t record_lock_duration_ms = 30000;      // group.share.record.lock.duration.ms
  int32_t min_record_lock_duration_ms = 15000;  // group.share.min.record.lock.duration.ms
  int32_t max_record_lock_duration_ms = 60000;  // group.share.max.record.lock.duration.ms
  int32_t delivery_count_limit = 5;             // group.share.delivery.count.limit
  int32_t partition_max_record_locks = 2000;    // group.share.partition.max.record.locks
  int32_t max_share_sessions = 2000;            // group.share.max.share.sessions
};

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
  ShareGroupConfig share;                                 // group.share.*
};

}  // namespace mirra::groups
