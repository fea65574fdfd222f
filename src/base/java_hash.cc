#include "base/java_hash.h"

#include <cstddef>

namespace mirra {
namespace {

bool is_continuation(uint8_t b) { return (b & 0xc0) == 0x80; }

// How many bytes of a multi-byte sequence starting at `p` (n bytes available) form a valid
// prefix, by Java's rules: the second byte's range depends on the lead byte (no overlongs, no
// code points above U+10FFFF), later bytes need only be continuations. Surrogates (ED A0..BF)
// pass here; Java rejects them only once the whole sequence is read.
size_t valid_prefix(const uint8_t* p, size_t n, size_t len) {
  const uint8_t b1 = p[0];
  size_t ok = 1;
  if (n < 2) return ok;
  const uint8_t b2 = p[1];
  bool second_ok = is_continuation(b2);
  if (b1 == 0xe0) second_ok = b2 >= 0xa0 && b2 <= 0xbf;
  if (b1 == 0xf0) second_ok = b2 >= 0x90 && b2 <= 0xbf;
  if (b1 == 0xf4) second_ok = b2 >= 0x80 && b2 <= 0x8f;
  if (!second_ok) return ok;
  for (ok = 2; ok < len && ok < n && is_continuation(p[ok]);) ++ok;
  return ok;
}

// Decodes the UTF-8 sequence at p into code units appended to h (Java's String.hashCode
// step h = 31*h + unit, in uint32 so overflow wraps as in Java); returns the bytes consumed.
// Malformed input becomes one U+FFFD per maximal invalid prefix, as Java's UTF-8 decoder
// (new String(bytes, UTF_8), which is how Kafka reads a group id) does: "\xE2\x82A" is
// U+FFFD 'A', "\xC0\x80" is two U+FFFD, an encoded surrogate "\xED\xA0\x80" is one.
size_t hash_code_point(const uint8_t* p, size_t n, uint32_t& h) {
  auto unit = [&h](uint32_t u) { h = 31 * h + u; };
  const uint8_t b1 = p[0];
  if (b1 < 0x80) {
    unit(b1);
    return 1;
  }
  size_t len = 0;
  if (b1 >= 0xc2 && b1 <= 0xdf) len = 2;
  if (b1 >= 0xe0 && b1 <= 0xef) len = 3;
  if (b1 >= 0xf0 && b1 <= 0xf4) len = 4;
  if (len == 0) {  // a continuation byte, C0/C1 (always overlong) or F5..FF
    unit(0xfffd);
    return 1;
  }
  const size_t ok = valid_prefix(p, n, len);
  if (ok < len) {
    unit(0xfffd);
    return ok;
  }
  uint32_t cp = b1 & (0xff >> (len + 1));
  for (size_t i = 1; i < len; ++i) cp = (cp << 6) | (p[i] & 0x3f);
  if (cp >= 0xd800 && cp <= 0xdfff) {
    unit(0xfffd);
  } else if (cp >= 0x10000) {
    unit(0xd800 + ((cp - 0x10000) >> 10));
    unit(0xdc00 + ((cp - 0x10000) & 0x3ff));
  } else {
    unit(cp);
  }
  return len;
}

}  // namespace

int32_t java_string_hash(std::string_view utf8) {
  const auto* p = reinterpret_cast<const uint8_t*>(utf8.data());
  size_t n = utf8.size();
  uint32_t h = 0;
  while (n > 0) {
    const size_t used = hash_code_point(p, n, h);
    p += used;
    n -= used;
  }
  return static_cast<int32_t>(h);
}

int32_t java_hash_partition(std::string_view key, int32_t partition_count) {
  const auto positive =
      static_cast<int32_t>(static_cast<uint32_t>(java_string_hash(key)) & 0x7fffffff);
  return partition_count > 0 ? positive % partition_count : 0;
}

}  // namespace mirra
