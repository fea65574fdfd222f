#include "base/error_codes.h"

#include <algorithm>
#include <array>

namespace mirra {
namespace {

constexpr ErrorInfo kErrors[] = {
#define MIRRA_ERROR(name, number, retriable, message) {ErrorCode::name, #name, retriable, message},
#include "base/error_codes.inc"
#undef MIRRA_ERROR
};

}  // namespace

const ErrorInfo* find_error(int16_t number) {
  for (const ErrorInfo& e : kErrors) {
    if (static_cast<int16_t>(e.code) == number) return &e;
  }
  return nullptr;
}

std::string_view error_name(ErrorCode code) {
  const ErrorInfo* e = find_error(static_cast<int16_t>(code));
  return e ? e->name : std::string_view("UNKNOWN_CODE");
}

std::string_view error_message(ErrorCode code) {
  const ErrorInfo* e = find_error(static_cast<int16_t>(code));
  return e ? e->message : std::string_view("An error code Mirra does not know.");
}

bool error_retriable(ErrorCode code) {
  const ErrorInfo* e = find_error(static_cast<int16_t>(code));
  return e && e->retriable;
}

}  // namespace mirra
