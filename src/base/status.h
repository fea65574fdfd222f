// Status and Result: how fallible calls report failure inside Mirra.
//
// Kafka error codes are data in responses; inside the process a failed call returns a Status
// carrying the Kafka error code that best describes it plus a human-readable message. Exceptions
// are kept for start-up failures and bugs (see docs/architecture.md, "Errors").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "base/error_codes.h"

namespace mirra {

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status OK() { return {}; }

  bool ok() const { return code_ == ErrorCode::NONE; }
  explicit operator bool() const { return ok(); }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "CORRUPT_MESSAGE: batch 3: crc mismatch" — for logs and CLI output.
  std::string to_string() const;

 private:
  ErrorCode code_ = ErrorCode::NONE;
  std::string message_;
};

// A value or a failed Status. Small on purpose: value(), status(), ok().
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return value(); }

  // The failure; OK when the result holds a value.
  Status status() const { return ok() ? Status() : std::get<1>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace mirra
