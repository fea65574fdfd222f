// Primitive encodings of the Kafka protocol: the Reader and Writer that generated message code
// (build/gen/protocol/messages/*.h) is made of.
//
// Classic encodings: big-endian integers; string = int16 length (-1 null); bytes and records =
// int32 length (-1 null); array = int32 count (-1 null). Compact (flexible) encodings: string,
// bytes, records and arrays carry an unsigned varint of N+1 (0 = null), and every struct ends
// with a tagged-field section.
//
// Reader failure is sticky: the first failure records where and why, every later read returns
// zeros, and the caller checks failed() once per struct. A length is always checked against the
// bytes that remain before anything is allocated for it, so a hostile length field can never
// make the decoder allocate more than the frame it came in.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/uuid.h"

namespace mirra::protocol {

using Bytes = std::vector<uint8_t>;

// A record set (or any zero-copy byte field): a view into the buffer the message was decoded
// from, or into memory the encoder's caller keeps alive until encode() returns.
struct RecordsView {
  const uint8_t* data = nullptr;
  size_t size = 0;
  // Zero-copy sends: when set, the bytes are not in memory (data is null) but described by
  // this object, which only the frame's sender understands (the broker's fetch path: a list
  // of file ranges). A Writer with a splice list leaves a hole for them (see Splice).
  const void* external = nullptr;

  std::span<const uint8_t> span() const { return {data, size}; }
  bool operator==(const RecordsView& o) const {
    if (external != nullptr || o.external != nullptr)
      return external == o.external && size == o.size;
    return size == o.size && (size == 0 || std::memcmp(data, o.data, size) == 0);
  }
};

// A tagged field this build does not know: kept so that a decode/encode round trip preserves it.
struct UnknownTag {
  uint32_t tag = 0;
  Bytes data;
  bool operator==(const UnknownTag&) const = default;
};
using UnknownTags = std::vector<UnknownTag>;

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : begin_(data), pos_(data), end_(data + size) {}
  explicit Reader(std::span<const uint8_t> s) : Reader(s.data(), s.size()) {}

  bool failed() const { return failed_; }
  size_t remaining() const { return static_cast<size_t>(end_ - pos_); }
  size_t position() const { return static_cast<size_t>(pos_ - begin_); }

  // Records the first failure; later ones keep the first reason and position.
  void fail(const char* reason) {
    if (failed_) return;
    failed_ = true;
    fail_reason_ = reason;
    fail_position_ = position();
    pos_ = end_;
  }
  // "<what>: <reason> at byte N", with the code for a malformed message.
  Status status(const std::string& what) const;

  int8_t read_int8() { return static_cast<int8_t>(read_be<uint8_t>()); }
  int16_t read_int16() { return static_cast<int16_t>(read_be<uint16_t>()); }
  int32_t read_int32() { return static_cast<int32_t>(read_be<uint32_t>()); }
  int64_t read_int64() { return static_cast<int64_t>(read_be<uint64_t>()); }
  uint16_t read_uint16() { return read_be<uint16_t>(); }
  uint32_t read_uint32() { return read_be<uint32_t>(); }
  double read_float64();
  bool read_bool() { return read_be<uint8_t>() != 0; }
  Uuid read_uuid();
  uint32_t read_uvarint();

  // Strings, bytes and records. The nullable forms return false for null. The plain forms fail
  // on null (a non-nullable field in this version).
  bool read_nullable_string(bool compact, std::string& out);
  void read_string(bool compact, std::string& out);
  bool read_nullable_bytes(bool compact, Bytes& out);
  void read_bytes(bool compact, Bytes& out);
  bool read_nullable_records(bool compact, RecordsView& out);
  void read_records(bool compact, RecordsView& out);

  // An array count: -1 for null, else a count that cannot exceed the remaining bytes divided by
  // min_element_size (every element takes at least that many bytes), so reserve() is safe.
  int32_t read_array_length(bool compact, size_t min_element_size);

  // Nullable struct marker (int8: -1 null, 1 present).
  bool read_struct_present() { return read_int8() >= 0; }

  // The next len bytes as a reader of their own (a tagged field's payload); fails if short.
  Reader sub_reader(size_t len);
  void skip(size_t len);
  void read_unknown_tag(uint32_t tag, Reader& payload, UnknownTags& out);

 private:
  template <typename T>
  T read_be() {
    if (remaining() < sizeof(T)) {
      fail("message ends early");
      return 0;
    }
    T v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v = static_cast<T>((v << 8) | pos_[i]);
    pos_ += sizeof(T);
    return v;
  }
  // Length of a string/bytes field: -1 null; fails when it exceeds what remains.
  int64_t read_length(bool compact, bool int16_classic);

  const uint8_t* begin_;
  const uint8_t* pos_;
  const uint8_t* end_;
  bool failed_ = false;
  const char* fail_reason_ = nullptr;
  size_t fail_position_ = 0;
};

// Appends to a buffer; encode_message() reserves the message's size() first, so encoding never
// reallocates.
// A hole in an encoded message where `size` bytes described by `source` (a RecordsView's
// external object) belong; `at` is the byte position in the output where they go.
struct Splice {
  size_t at = 0;
  const void* source = nullptr;
  size_t size = 0;
};

class Writer {
 public:
  // With `splices`, records views with an external source are written as holes listed there;
  // without, such a view is a programming error.
  explicit Writer(Bytes& out, std::vector<Splice>* splices = nullptr)
      : out_(out), splices_(splices) {}

  size_t written() const { return out_.size(); }

  void write_int8(int8_t v) { write_be<uint8_t>(static_cast<uint8_t>(v)); }
  void write_int16(int16_t v) { write_be<uint16_t>(static_cast<uint16_t>(v)); }
  void write_int32(int32_t v) { write_be<uint32_t>(static_cast<uint32_t>(v)); }
  void write_int64(int64_t v) { write_be<uint64_t>(static_cast<uint64_t>(v)); }
  void write_uint16(uint16_t v) { write_be<uint16_t>(v); }
  void write_uint32(uint32_t v) { write_be<uint32_t>(v); }
  void write_float64(double v);
  void write_bool(bool v) { write_be<uint8_t>(v ? 1 : 0); }
  void write_uuid(const Uuid& u) { write_raw(u.bytes.data(), u.bytes.size()); }
  void write_uvarint(uint32_t v);

  void write_string(bool compact, const std::string& s);
  void write_nullable_string(bool compact, const std::optional<std::string>& s);
  void write_bytes(bool compact, const Bytes& b);
  void write_nullable_bytes(bool compact, const std::optional<Bytes>& b);
  void write_records(bool compact, const RecordsView& r);
  void write_nullable_records(bool compact, const std::optional<RecordsView>& r);
  void write_array_length(bool compact, int32_t n);  // -1 writes null
  void write_struct_present(bool present) { write_int8(present ? 1 : -1); }

  // Unknown tags are kept sorted by tag; these interleave them with the known ones.
  void write_unknown_tags_below(const UnknownTags& tags, size_t& next, uint32_t below);
  void write_raw(const void* p, size_t n);

 private:
  template <typename T>
  void write_be(T v) {
    uint8_t b[sizeof(T)];
    for (size_t i = 0; i < sizeof(T); ++i)
      b[i] = static_cast<uint8_t>(v >> (8 * (sizeof(T) - 1 - i)));
    write_raw(b, sizeof(T));
  }

  Bytes& out_;
  std::vector<Splice>* splices_ = nullptr;
};

// The value of an optional, or an empty value: what a nullable field encodes as in a version
// where it may not be null.
template <typename T>
const T& value_or_empty(const std::optional<T>& o) {
  static const T empty{};
  return o ? *o : empty;
}

// Sizes of the variable-length encodings, for the generated size() functions.
size_t uvarint_size(uint32_t v);
inline size_t length_prefix_size(bool compact, size_t n, size_t classic_size) {
  return compact ? uvarint_size(static_cast<uint32_t>(n + 1)) : classic_size;
}
inline size_t string_size(bool compact, const std::string& s) {
  return length_prefix_size(compact, s.size(), 2) + s.size();
}
inline size_t nullable_string_size(bool compact, const std::optional<std::string>& s) {
  return s ? string_size(compact, *s) : (compact ? 1 : 2);
}
inline size_t bytes_size(bool compact, size_t n) { return length_prefix_size(compact, n, 4) + n; }
inline size_t nullable_bytes_size(bool compact, const std::optional<Bytes>& b) {
  return b ? bytes_size(compact, b->size()) : (compact ? 1 : 4);
}
inline size_t nullable_records_size(bool compact, const std::optional<RecordsView>& r) {
  return r ? bytes_size(compact, r->size) : (compact ? 1 : 4);
}
inline size_t array_length_size(bool compact, size_t n) {
  return length_prefix_size(compact, n, 4);
}
size_t unknown_tags_size(const UnknownTags& tags);

}  // namespace mirra::protocol
