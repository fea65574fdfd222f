// A mirror's configs (MIRRORING.md §11): the keys a mirror accepts, their defaults, which of
// them are secrets, and the checks CreateMirror applies. Pure: no I/O, unit-tested in
// tests/mirror/mirror_config_test.cc.
#pragma once

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
// Keys not given are left out: defaults() fills them in where they are read.
Result<MirrorConfigs> validate_mirror_configs(
    const std::vector<std::pair<std::string, std::optional<std::string>>>& given);

// Every known key with its default ("" when it has none), for describe output.
const MirrorConfigs& mirror_config_defaults();

// `configs` for a log line: keys in order, secrets shown as "(redacted)".
std::string describe_for_log(const MirrorConfigs& configs);

}  // namespace mirra::mirror
