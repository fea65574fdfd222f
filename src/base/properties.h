// A parser for Java-style .properties files (Kafka's server.properties), following
// java.util.Properties.load: `#`/`!` comment lines, `key=value`, `key: value` or `key value`,
// a backslash at the end of a line continues it (leading blanks of the next line are dropped),
// and escapes \t \n \r \f \uXXXX, with a backslash before any other character keeping that
// character (so `\=`, `\:` and `\ ` can appear in keys).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mirra {

struct Property {
  std::string key;
  std::string value;
  int line = 0;  // 1-based line where the logical line starts, for messages
};

// Every key/value pair in file order (a later duplicate overrides an earlier one for callers
// that build a map). Fails only on a malformed \u escape, naming the line.
Result<std::vector<Property>> parse_properties(std::string_view text);

}  // namespace mirra
