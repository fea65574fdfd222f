// Secrets at rest: what Kafka does for dynamic password configs (password.encoder.secret),
// used by Mirra for the secrets of a mirror's configs in the metadata log
// (docs/formats/metadata.md, "Encrypted config values").
//
// Each value gets a fresh random 16-byte salt and 12-byte IV. The key is
// PBKDF2-HMAC-SHA512(secret, salt, iterations) (Kafka's password.encoder.keyfactory.algorithm
// default, PBKDF2WithHmacSHA512; iterations: password.encoder.iterations, 4096 by default),
// 256 bits; the cipher is AES-256-GCM, whose tag makes a wrong secret a clear error rather
// than garbage. The encoded text lists its parameters as Kafka's encoder does
// ("encryptedPassword:...,salt:...,iterations:...,..."), so a later change of defaults still
// decodes older values.
//
// Threading: immutable once made; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace mirra::security {

class PasswordEncoder {
 public:
  static constexpr int32_t kDefaultIterations = 4096;
  // Bounds on password.encoder.iterations, and on what a stored value may ask for (a damaged
  // value must not make a decode spin).
  static constexpr int32_t kMinIterations = 1024;
  static constexpr int32_t kMaxIterations = 1 << 20;

  // INVALID_CONFIG for an empty secret or iterations outside the bounds. `old_secret`
  // (password.encoder.old.secret) also decodes values, for rotating the secret: they are
  // encoded again with `secret` the next time they are written.
  static Result<PasswordEncoder> make(std::string secret, int32_t iterations = kDefaultIterations,
                                      std::optional<std::string> old_secret = std::nullopt);

  // Never fails but for a failing random source or cipher (INTERNAL... as UNKNOWN_SERVER_ERROR).
  Result<std::string> encode(std::string_view password) const;
  // INVALID_CONFIG when `encoded` is not an encoded value, names parameters this encoder does
  // not implement, or does not decrypt with the secret (nor the old secret): the message says
  // which, and never shows the value.
  Result<std::string> decode(std::string_view encoded) const;

 private:
  PasswordEncoder(std::string secret, int32_t iterations, std::optional<std::string> old_secret)
      : secret_(std::move(secret)), iterations_(iterations), old_secret_(std::move(old_secret)) {}

  std::string secret_;
  int32_t iterations_;
  std::optional<std::string> old_secret_;
};

}  // namespace mirra::security
