#include "base/error_codes.h"

#include <array>
#include <cstddef>

namespace mirra {
namespace {

constexpr ErrorInfo kErrors[] = {
#define MIRRA_ERROR(name, number, retriable, message) {ErrorCode::name, #name, retriable, message},
#include "base/error_codes.inc"
#undef MIRRA_ERROR
};

constexpr int16_t kMaxNumber = [] {
  int16_t max = kMinErrorNumber;
  for (const ErrorInfo& e : kErrors) {
    if (static_cast<int16_t>(e.code) > max) max = static_cast<int16_t>(e.code);
  }
  return max;
}();

constexpr std::size_t kSlots = static_cast<std::size_t>(kMaxNumber - kMinErrorNumber + 1);

// Index into kErrors by (number - kMinErrorNumber); -1 marks an unused number.
constexpr std::array<int16_t, kSlots> kIndex = [] {
  std::array<int16_t, kSlots> index{};
  for (auto& slot : index) slot = -1;
  for (std::size_t i = 0; i < std::size(kErrors); ++i) {
    index[static_cast<std::size_t>(static_cast<int16_t>(kErrors[i].code) - kMinErrorNumber)] =
        static_cast<int16_t>(i);
  }
  return index;
}();

// The table must be sorted, start at -1, and have no duplicate numbers or names.
constexpr bool table_is_well_formed() {
  if (static_cast<int16_t>(kErrors[0].code) != kMinErrorNumber) return false;
  for (std::size_t i = 1; i < std::size(kErrors); ++i) {
    if (static_cast<int16_t>(kErrors[i - 1].code) >= static_cast<int16_t>(kErrors[i].code)) {
      return false;
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (kErrors[j].name == kErrors[i].name) return false;
    }
  }
  return true;
}
static_assert(table_is_well_formed(), "error_codes.inc: rows must be sorted, unique, from -1");

}  // namespace

int16_t max_error_number() { return kMaxNumber; }

const ErrorInfo* find_error(int16_t number) {
  if (number < kMinErrorNumber || number > kMaxNumber) return nullptr;
  const int16_t i = kIndex[static_cast<std::size_t>(number - kMinErrorNumber)];
  return i < 0 ? nullptr : &kErrors[i];
}

std::span<const ErrorInfo> all_errors() { return kErrors; }

ErrorCode error_from_number(int16_t number) {
  const ErrorInfo* e = find_error(number);
  return e ? e->code : ErrorCode::UNKNOWN_SERVER_ERROR;
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
