// Uuid: Kafka's 128-bit topic / directory / client-instance id.
//
// On the wire it is 16 bytes, most significant byte first. As text Kafka writes it as 22
// characters of URL-safe base64 without padding ("AAAAAAAAAAAAAAAAAAAAAA" is the zero id); the
// canonical 8-4-4-4-12 hex form is offered too, for logs and interop with other tools.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace mirra {

struct Uuid {
  std::array<uint8_t, 16> bytes{};

  // The all-zero id; Kafka uses it for "no id" (e.g. a topic without an id in old requests).
  static constexpr Uuid zero() { return Uuid{}; }
  // Kafka's reserved id of the metadata topic (0, 1): "AAAAAAAAAAAAAAAAAAAAAQ".
  static constexpr Uuid metadata_topic_id() { return from_bits(0, 1); }

  // Kafka's Java form: two signed 64-bit halves.
  static constexpr Uuid from_bits(uint64_t most, uint64_t least) {
    Uuid u;
    for (int i = 0; i < 8; ++i) {
      u.bytes[static_cast<std::size_t>(i)] = static_cast<uint8_t>(most >> (56 - 8 * i));
      u.bytes[static_cast<std::size_t>(8 + i)] = static_cast<uint8_t>(least >> (56 - 8 * i));
    }
    return u;
  }
  constexpr uint64_t most_significant_bits() const { return half(0); }
  constexpr uint64_t least_significant_bits() const { return half(8); }

  // A random version-4 (RFC 4122 variant) id, like Java's UUID.randomUUID(). As Kafka's
  // Uuid.randomUuid() does, it never returns zero(), metadata_topic_id(), or an id whose base64
  // text starts with '-' (which command lines would read as an option). Thread-safe.
  static Uuid random();

  constexpr bool is_zero() const { return *this == Uuid{}; }

  // 22-char base64url without padding, as Kafka's Uuid.toString().
  std::string to_string() const;
  // Parses the 22-char form. Rejects any other length, characters outside the base64url
  // alphabet, padding, and non-zero unused low bits in the last character (so that every
  // accepted string is the canonical text of exactly one id).
  static std::optional<Uuid> parse(std::string_view text);

  // "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", lower-case.
  std::string to_hex_string() const;
  // Parses the 36-char hex form (either case).
  static std::optional<Uuid> parse_hex(std::string_view text);

  friend constexpr bool operator==(const Uuid&, const Uuid&) = default;
  friend constexpr auto operator<=>(const Uuid&, const Uuid&) = default;

 private:
  constexpr uint64_t half(std::size_t at) const {
    uint64_t v = 0;
    for (std::size_t i = 0; i < 8; ++i) v = (v << 8) | bytes[at + i];
    return v;
  }
};

}  // namespace mirra

template <>
struct std::hash<mirra::Uuid> {
  std::size_t operator()(const mirra::Uuid& u) const noexcept {
    // Random ids are already uniformly mixed; fold the halves and mix once more for the
    // structured ones (e.g. from_bits(0, n)).
    uint64_t h = u.most_significant_bits() * 0x9E3779B97F4A7C15ULL ^ u.least_significant_bits();
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 29;
    return static_cast<std::size_t>(h);
  }
};
