// A mirror's configs (docs/mirroring-design.md §11): the keys a mirror accepts, their defaults,
// which of them are secrets, and the checks CreateMirror applies. Pure: no I/O, unit-tested in
// tests/mirror/mirror_config_test.cc.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mirra::mirror {

using MirrorConfigs = std::map<std::string, std::string>;

// Kafka's topic-name rules for mirror names too (1-249 of [a-zA-Z0-9._-], not "." or ".."), so
// a name is safe in client ids, log lines and file names. INVALID_MIRROR_NAME with the reason.
Status validate_mirror_name(std::string_view name);

// Whether the value of `key` is a secret: stored, used for the source connection, never
// returned by any API and never logged (passwords, keys, JAAS configs).
bool is_secret(std::string_view key);

// The configs a mirror is created with: every given key must be known and valid
// (INVALID_CONFIG naming the key); bootstrap.servers is required; null values are refused.
// The security settings are checked as the source connection reads them
// (client::read_client_security: ssl.* keys only with TLS, sasl.* keys only with SASL,
// credentials with SASL; docs/mirroring-design.md §9); no file is read here.
// Keys not given are left out: defaults() fills them in where they are read.
Result<MirrorConfigs> validate_mirror_configs(
    const std::vector<std::pair<std::string, std::optional<std::string>>>& given);

// The configs after `changes` (key -> new value, or nullopt to remove it; unknown keys are
// INVALID_CONFIG) on `current`, checked as CreateMirror checks them: DescribeConfigs' alter
// side (IncrementalAlterConfigs, AlterConfigs) on the mirror config resource.
Result<MirrorConfigs> altered_mirror_configs(
    const MirrorConfigs& current, const std::map<std::string, std::optional<std::string>>& changes);

// What a key's value is, for DescribeConfigs' config type (lists take APPEND and SUBTRACT).
enum class MirrorConfigKind { kUnknown, kString, kInt, kList, kPassword };
MirrorConfigKind mirror_config_kind(std::string_view key);

// Every known key with its default ("" when it has none), for describe output.
const MirrorConfigs& mirror_config_defaults();

// `configs` for a log line: keys in order, secrets shown as "(redacted)".
std::string describe_for_log(const MirrorConfigs& configs);

// The broker's mirroring settings (docs/mirroring-design.md §11), the same for every mirror: server
// properties, read at start-up (src/server/config.cc).
struct MirrorBrokerConfig {
  int32_t num_fetchers = 1;                        // mirror.num.fetchers
  int32_t metadata_refresh_interval_ms = 30000;    // mirror.metadata.refresh.interval.ms
  int32_t failed_retry_initial_backoff_ms = 1000;  // mirror.failed.retry.initial.backoff.ms
  int32_t failed_retry_max_backoff_ms = 300000;    // mirror.failed.retry.max.backoff.ms
  int32_t failed_retry_max_attempts = 10;          // mirror.failed.retry.max.attempts
  int32_t state_topic_partitions = 50;             // mirror.state.topic.num.partitions
  // mirror.replication.throttled.rate as server.properties sets it (bytes/s; INT64_MAX: no
  // cap); a dynamic value (IncrementalAlterConfigs on the broker) wins (mirror_throttle.h).
  int64_t replication_throttled_rate = INT64_MAX;
  bool authorizer = false;  // authorizer.class.name is set: the ACL sync may create ACLs here
};

}  // namespace mirra::mirror
