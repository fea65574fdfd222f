#include "client/security.h"

#include <algorithm>
#include <cctype>
#include <string>

#include <fmt/format.h>

namespace mirra::client {

Status check_plaintext_setting(std::string_view what, std::string_view key,
                               std::string_view value) {
  constexpr std::string_view kWhy =
      "Mirra's connections are PLAINTEXT only, without TLS or authentication "
      "(docs/mirroring-design.md §9)";
  if (key == "security.protocol") {
    std::string upper(value);
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (upper == "PLAINTEXT") return Status::OK();
    return Status(
        ErrorCode::INVALID_CONFIG,
        fmt::format("{} security.protocol={} is not supported yet: {}", what, value, kWhy));
  }
  if (key.starts_with("ssl.") || key.starts_with("sasl.")) {
    return Status(ErrorCode::INVALID_CONFIG,
                  fmt::format("{} {} is not supported yet: {}", what, key, kWhy));
  }
  return Status::OK();
}

}  // namespace mirra::client
