// Every Kafka protocol error code, plus Mirra's mirroring codes (MIRRORING.md §13), in one table.
//
// The table itself lives in error_codes.inc as X-macro rows:
//   MIRRA_ERROR(NAME, number, retriable, "default message")
// so the enum, the name lookup and the message lookup can never drift apart.
#pragma once

#include <cstdint>
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

// The row for a code, or nullptr when the number is not a known Kafka or Mirra code.
const ErrorInfo* find_error(int16_t number);

// "UNKNOWN_TOPIC_OR_PARTITION"; "UNKNOWN_ERROR_CODE(12345)"-style names are not returned:
// an unknown number yields "UNKNOWN_CODE".
std::string_view error_name(ErrorCode code);
std::string_view error_message(ErrorCode code);
bool error_retriable(ErrorCode code);

inline int16_t error_number(ErrorCode code) { return static_cast<int16_t>(code); }

}  // namespace mirra
