// MirrorSettings: a mirror's configs (mirror_config.h) parsed once, when its runner is built,
// into typed fields with the defaults filled in, so that the data path never parses a string
// (docs/mirroring-design.md §11). The broker-wide mirror settings are MirrorBrokerConfig
// (mirror_config.h), read with the server config.
//
// Pure: unit-tested in tests/mirror/mirror_config_test.cc.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "client/security.h"
#include "mirror/mirror_config.h"

namespace mirra::mirror {

struct MirrorSettings {
  std::string bootstrap_servers;
  std::string security_protocol;  // PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL (upper case)
  // The source connection's TLS and SASL (secrets in clear: never logged). The TLS context is
  // made when the runner is built (MirrorRunner::create), not here.
  client::ClientSecurity security;
  int32_t fetch_max_wait_ms = 0;         // mirror.fetch.max.wait.ms
  int32_t fetch_min_bytes = 0;           // mirror.fetch.min.bytes
  int32_t fetch_max_bytes = 0;           // mirror.fetch.max.bytes: per partition
  int32_t fetch_response_max_bytes = 0;  // mirror.fetch.response.max.bytes: per request
  std::string topics_include;            // comma-separated regular expressions
  std::string topics_exclude;
  std::string groups_include;
  std::string groups_exclude;
  std::string topic_properties_exclude;
  std::string acl_include;  // empty: the ACL sync is off
};

// The settings of `configs`, checked as CreateMirror checks them (validate_mirror_configs:
// INVALID_CONFIG naming the key) and with every key not given at its default.
Result<MirrorSettings> parse_mirror_settings(const MirrorConfigs& configs);

}  // namespace mirra::mirror
