#include "base/uuid.h"

#include <random>

namespace mirra {
namespace {

constexpr char kBase64Url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr char kHex[] = "0123456789abcdef";

int base64url_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::mt19937_64& generator() {
  thread_local std::mt19937_64 gen = [] {
    std::random_device rd;
    std::seed_seq seq{rd(), rd(), rd(), rd(), rd(), rd(), rd(), rd()};
    return std::mt19937_64(seq);
  }();
  return gen;
}

}  // namespace

Uuid Uuid::random() {
  for (;;) {
    const uint64_t most = generator()();
    const uint64_t least = generator()();
    Uuid u = from_bits(most, least);
    u.bytes[6] = static_cast<uint8_t>((u.bytes[6] & 0x0F) | 0x40);  // version 4
    u.bytes[8] = static_cast<uint8_t>((u.bytes[8] & 0x3F) | 0x80);  // IETF variant
    // The first base64 character is the top 6 bits of byte 0; 62 is '-'.
    if (u == zero() || u == metadata_topic_id() || (u.bytes[0] >> 2) == 62) continue;
    return u;
  }
}

std::string Uuid::to_string() const {
  std::string out;
  out.reserve(22);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    out += kBase64Url[(v >> 18) & 63];
    out += kBase64Url[(v >> 12) & 63];
    out += kBase64Url[(v >> 6) & 63];
    out += kBase64Url[v & 63];
  }
  // One byte left over (16 = 5 * 3 + 1): two characters, no padding.
  const uint32_t last = bytes[i];
  out += kBase64Url[last >> 2];
  out += kBase64Url[(last & 3) << 4];
  return out;
}

std::optional<Uuid> Uuid::parse(std::string_view text) {
  if (text.size() != 22) return std::nullopt;
  int values[22];
  for (std::size_t i = 0; i < 22; ++i) {
    values[i] = base64url_value(text[i]);
    if (values[i] < 0) return std::nullopt;
  }
  if ((values[21] & 0x0F) != 0) return std::nullopt;  // non-canonical trailing bits
  Uuid u;
  std::size_t out = 0;
  for (std::size_t i = 0; i < 20; i += 4) {
    const uint32_t v = (uint32_t(values[i]) << 18) | (uint32_t(values[i + 1]) << 12) |
                       (uint32_t(values[i + 2]) << 6) | uint32_t(values[i + 3]);
    u.bytes[out++] = static_cast<uint8_t>(v >> 16);
    u.bytes[out++] = static_cast<uint8_t>(v >> 8);
    u.bytes[out++] = static_cast<uint8_t>(v);
  }
  u.bytes[out] = static_cast<uint8_t>((values[20] << 2) | (values[21] >> 4));
  return u;
}

std::string Uuid::to_hex_string() const {
  std::string out;
  out.reserve(36);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 0x0F];
  }
  return out;
}

std::optional<Uuid> Uuid::parse_hex(std::string_view text) {
  if (text.size() != 36) return std::nullopt;
  Uuid u;
  std::size_t b = 0;
  for (std::size_t i = 0; i < text.size();) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (text[i] != '-') return std::nullopt;
      ++i;
      continue;
    }
    const int hi = hex_value(text[i]);
    const int lo = hex_value(text[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    u.bytes[b++] = static_cast<uint8_t>((hi << 4) | lo);
    i += 2;
  }
  return u;
}

}  // namespace mirra
