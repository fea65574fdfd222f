#include "protocol/api_table.h"

#include <array>

namespace mirra::protocol {

const ApiInfo* find_api(int16_t key) {
  // Keys are small and dense enough for a lookup table built once.
  static const auto table = [] {
    std::array<const ApiInfo*, 256> t{};
    for (const ApiInfo& a : all_apis()) t[static_cast<size_t>(a.key)] = &a;
    return t;
  }();
  if (key < 0 || static_cast<size_t>(key) >= table.size()) return nullptr;
  return table[static_cast<size_t>(key)];
}

int16_t request_header_version(const ApiInfo& api, int16_t version) {
  return api.is_flexible(version) ? 2 : 1;
}

int16_t response_header_version(const ApiInfo& api, int16_t version) {
  if (api.key == kApiVersionsKey) return 0;
  return api.is_flexible(version) ? 1 : 0;
}

}  // namespace mirra::protocol
