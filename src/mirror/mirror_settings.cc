#include "mirror/mirror_settings.h"

#include <charconv>

#include "base/text.h"

namespace mirra::mirror {
namespace {

// A value as given, else its default.
const std::string& value_of(const MirrorConfigs& configs, const std::string& key) {
  auto it = configs.find(key);
  return it != configs.end() ? it->second : mirror_config_defaults().at(key);
}

// validate_mirror_configs() checked the number and its range.
int32_t int_value(const MirrorConfigs& configs, const std::string& key) {
  const std::string& v = value_of(configs, key);
  int32_t out = 0;
  std::from_chars(v.data(), v.data() + v.size(), out);
  return out;
}

}  // namespace

Result<MirrorSettings> parse_mirror_settings(const MirrorConfigs& configs) {
  auto valid = validate_mirror_configs({configs.begin(), configs.end()});
  if (!valid.ok()) return valid.status();
  MirrorSettings s;
  s.bootstrap_servers = value_of(configs, "bootstrap.servers");
  s.security_protocol = value_of(configs, "security.protocol");
  s.security_protocol = to_upper(s.security_protocol);
  auto security = client::read_client_security(configs, "mirror config");
  if (!security.ok()) return security.status();
  s.security = std::move(security.value());
  s.fetch_max_wait_ms = int_value(configs, "mirror.fetch.max.wait.ms");
  s.fetch_min_bytes = int_value(configs, "mirror.fetch.min.bytes");
  s.fetch_max_bytes = int_value(configs, "mirror.fetch.max.bytes");
  s.fetch_response_max_bytes = int_value(configs, "mirror.fetch.response.max.bytes");
  s.topics_include = value_of(configs, "mirror.topics.include");
  s.topics_exclude = value_of(configs, "mirror.topics.exclude");
  s.groups_include = value_of(configs, "mirror.groups.include");
  s.groups_exclude = value_of(configs, "mirror.groups.exclude");
  s.topic_properties_exclude = value_of(configs, "mirror.topic.properties.exclude");
  s.acl_include = value_of(configs, "mirror.acl.include");
  return s;
}

}  // namespace mirra::mirror
