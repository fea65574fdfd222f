// Small text helpers for reading configs and command lines, one copy for the whole tree:
// blanks trimmed, Kafka's comma-separated lists, ASCII case.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mirra {

// `s` without leading and trailing whitespace (space, tab, CR, LF, VT, FF).
std::string_view trim(std::string_view s);

// Kafka's lists ("a, b,,c"): split at `separator`, blanks around items trimmed, empty items
// dropped.
std::vector<std::string> split_list(std::string_view text, char separator = ',');

// ASCII case (config values such as SASL_SSL, PKCS12, https).
std::string to_upper(std::string_view s);
std::string to_lower(std::string_view s);
bool iequals(std::string_view a, std::string_view b);

}  // namespace mirra
