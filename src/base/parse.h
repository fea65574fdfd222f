// Whole-string decimal integers, the one way Mirra reads numbers from text (config values,
// checkpoint files, meta.properties): digits with an optional '-', nothing before or after,
// no overflow. Callers add their own range checks and error messages.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace mirra {

template <typename T>
std::optional<T> parse_decimal(std::string_view s) {
  T v{};
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

}  // namespace mirra
