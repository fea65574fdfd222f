// The APIs Mirra speaks, with the version ranges it advertises in ApiVersions.
//
// The rows come from the message definitions (src/protocol/messages/*.msg) through the
// generator (api_list.cc in the build tree), so the advertised ranges and the codecs that exist
// can never disagree.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace mirra::protocol {

struct ApiInfo {
  int16_t key;
  std::string_view name;
  int16_t min_version;
  int16_t max_version;
  int16_t flexible_from;  // -1: no flexible version

  bool supports(int16_t version) const { return version >= min_version && version <= max_version; }
  bool is_flexible(int16_t version) const { return flexible_from >= 0 && version >= flexible_from; }
};

// Every API, ordered by key.
std::span<const ApiInfo> all_apis();

// The row for an API key, or nullptr for a key Mirra does not implement.
const ApiInfo* find_api(int16_t key);

// Request header v2 for flexible versions, v1 otherwise (v0 is only ControlledShutdown v0,
// which Mirra does not implement).
int16_t request_header_version(const ApiInfo& api, int16_t version);

// Response header v1 for flexible versions, v0 otherwise; ApiVersions responses always use v0
// so that a client can read them before it knows which versions the broker supports.
int16_t response_header_version(const ApiInfo& api, int16_t version);

inline constexpr int16_t kApiVersionsKey = 18;

}  // namespace mirra::protocol
