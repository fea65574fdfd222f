// LogConfig: the topic-level settings that the storage module obeys, named and defaulted as
// Kafka's topic configs (segment.bytes, retention.ms, ...). The broker builds one from topic
// properties with LogConfig::parse(); an unknown key or a bad value is an INVALID_CONFIG Status
// whose message names the key.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>

#include "base/status.h"

namespace mirra::storage {

enum class MessageTimestampType : uint8_t { create_time, log_append_time };

struct LogConfig {
  static constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max();

  // Segments and indexes.
  int32_t segment_bytes = 1 << 30;                 // segment.bytes: roll when a batch would pass it
  int64_t segment_ms = 7LL * 24 * 3600 * 1000;     // segment.ms: roll a segment this old
  int32_t segment_index_bytes = 10 * 1024 * 1024;  // segment.index.bytes: bound per index file
  int32_t index_interval_bytes = 4096;             // index.interval.bytes: bytes between entries

  // Retention (cleanup.policy=delete).
  int64_t retention_ms = 7LL * 24 * 3600 * 1000;  // retention.ms; -1 = keep forever
  int64_t retention_bytes = -1;                   // retention.bytes; -1 = no size limit
  int64_t file_delete_delay_ms = 60000;  // file.delete.delay.ms: .deleted files kept this long

  // Appends.
  int32_t max_message_bytes = 1048588;  // max.message.bytes: largest batch accepted
  MessageTimestampType timestamp_type =
      MessageTimestampType::create_time;  // message.timestamp.type

  // Flushing. flush.messages = 1 is Mirra's fsync-per-append mode; the defaults leave it to the OS.
  int64_t flush_messages = kNoLimit;  // flush.messages
  int64_t flush_ms = kNoLimit;        // flush.ms

  // Compaction (storage/compaction.h): PartitionLog::compact and the three-step API.
  bool cleanup_delete = true;              // cleanup.policy contains "delete"
  bool cleanup_compact = false;            // cleanup.policy contains "compact"
  int64_t delete_retention_ms = 86400000;  // delete.retention.ms
  int64_t min_compaction_lag_ms = 0;       // min.compaction.lag.ms

  // Producer state.
  int64_t producer_id_expiration_ms = 86400000;  // producer.id.expiration.ms

  // Index entries that fit in segment.index.bytes (offset index: 8 bytes, time index: 12).
  int64_t max_offset_index_entries() const { return segment_index_bytes / 8; }
  int64_t max_time_index_entries() const { return segment_index_bytes / 12; }

  // Builds a config from Kafka-named properties, starting from the defaults. Keys this struct
  // does not know are refused (INVALID_CONFIG naming the key), so a typo is never ignored.
  static Result<LogConfig> parse(const std::map<std::string, std::string>& props);
  // Applies `props` on top of this config (same rules as parse()).
  Status apply(const std::map<std::string, std::string>& props);
  // Cross-field checks (e.g. an index must hold at least one entry).
  Status check() const;
};

}  // namespace mirra::storage
