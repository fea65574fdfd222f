// Every Kafka protocol error code, plus Mirra's mirroring codes (docs/mirroring-design.md §13).
//
// The table itself lives in error_codes.inc as X-macro rows:
//   MIRRA_ERROR(NAME, number, retriable, "default message")
// so the enum, the name lookup and the message lookup can never drift apart.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace mirra {

enum class ErrorCode : int16_t {
#define MIRRA_ERROR(name, number, retriable, message) name = (number),
#include "base/error_codes.inc"
#undef MIRRA_ERROR
};

struct ErrorInfo {
  ErrorCode code;
  std::string_view name;
  bool retriable;
  std::string_view message;
};

// Lowest and highest numbers in the table (-1 and 146 today).
inline constexpr int16_t kMinErrorNumber = -1;
int16_t max_error_number();

// The row for a code, or nullptr when the number is not a known Kafka or Mirra code.
// Constant time: a table indexed by number + 1.
const ErrorInfo* find_error(int16_t number);

// Every row, in number order (for tests, docs and the CLI).
std::span<const ErrorInfo> all_errors();

// The code for a wire number; UNKNOWN_SERVER_ERROR for a number the table does not know
// (as Kafka clients do with codes newer than themselves).
ErrorCode error_from_number(int16_t number);

// "UNKNOWN_TOPIC_OR_PARTITION"; "UNKNOWN_ERROR_CODE(12345)"-style names are not returned:
// an unknown number yields "UNKNOWN_CODE".
std::string_view error_name(ErrorCode code);
std::string_view error_message(ErrorCode code);
bool error_retriable(ErrorCode code);

inline int16_t error_number(ErrorCode code) { return static_cast<int16_t>(code); }

}  // namespace mirra
