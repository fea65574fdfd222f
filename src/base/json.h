// JSON text for Mirra's machine-readable outputs (the CLI's --json, the broker's /v1 HTTP API,
// docs/observability.md). Mirra only writes JSON, never reads it, so this is a string quoter
// and not a library: callers format their objects with fmt and quote every string through
// json_string().
#pragma once

#include <string>
#include <string_view>

namespace mirra {

// `s` as a JSON string literal: quotes, with '"' and '\' escaped and control characters as
// \u00XX. Bytes from 0x80 up are copied as they are (names and messages are UTF-8).
std::string json_string(std::string_view s);

}  // namespace mirra
