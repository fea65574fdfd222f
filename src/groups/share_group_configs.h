// The configs of one share group (Kafka's GROUP config resource, type 32, KIP-932): which keys
// there are, how a value is checked against the broker's group.share.* bounds, and the settings
// a group runs with (its overrides over the broker's defaults).
//
// Keys (Kafka 4.1/4.2): share.auto.offset.reset (latest, earliest, by_duration:<ISO-8601
// duration>; default latest), share.isolation.level (read_uncommitted, read_committed; default
// read_uncommitted), share.record.lock.duration.ms, share.heartbeat.interval.ms,
// share.session.timeout.ms (defaults: the broker's group.share.* values, bounded by its min/max
// keys). Overrides live in the metadata image (ConfigRecord on resource type 32); a group may
// have them before it exists, as in Kafka.
//
// Pure functions; no state.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "groups/group_config.h"

namespace mirra::groups {

struct ShareGroupConfigKey {
  std::string_view name;
  bool is_int = false;  // else a string
  std::string_view doc;
};
const std::vector<ShareGroupConfigKey>& share_group_config_keys();
const ShareGroupConfigKey* find_share_group_config_key(std::string_view name);

// The value a key has without an override (the broker's default for it).
std::string share_group_config_default(const ShareGroupConfig& broker, std::string_view key);

// INVALID_CONFIG with a reason for a value the key does not take or that lies outside the
// broker's bounds; INVALID_CONFIG for an unknown key. A removal (nullopt) is always valid.
Status validate_share_group_config(const ShareGroupConfig& broker, std::string_view key,
                                   const std::optional<std::string>& value);

// What a share group runs with.
struct ShareGroupSettings {
  enum class Reset { latest, earliest, by_duration };
  Reset auto_offset_reset = Reset::latest;
  int64_t reset_duration_ms = 0;  // by_duration only
  bool read_committed = false;
  int32_t record_lock_duration_ms = 30000;
  int32_t heartbeat_interval_ms = 5000;
  int32_t session_timeout_ms = 45000;
};
// The broker's defaults with the group's (already validated) overrides; null: none.
ShareGroupSettings share_group_settings(const ShareGroupConfig& broker,
                                        const std::map<std::string, std::string>* overrides);

// Milliseconds of an ISO-8601 duration as Java's Duration.parse reads it, days to seconds
// (P1D, PT1H30M, PT0.5S); nullopt when malformed or negative.
std::optional<int64_t> parse_iso_duration_ms(std::string_view text);

}  // namespace mirra::groups
