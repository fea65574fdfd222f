#include "protocol/wire.h"

#include <cstdio>
#include <cstdlib>

#include <bit>

namespace mirra::protocol {

Status Reader::status(const std::string& what) const {
  if (!failed_) return Status::OK();
  return Status(ErrorCode::CORRUPT_MESSAGE,
                what + ": " + fail_reason_ + " at byte " + std::to_string(fail_position_));
}

double Reader::read_float64() { return std::bit_cast<double>(read_be<uint64_t>()); }

Uuid Reader::read_uuid() {
  Uuid u;
  if (remaining() < u.bytes.size()) {
    fail("message ends early");
    return u;
  }
  std::memcpy(u.bytes.data(), pos_, u.bytes.size());
  pos_ += u.bytes.size();
  return u;
}

uint32_t Reader::read_uvarint() {
  uint32_t v = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (pos_ == end_) {
      fail("message ends inside a varint");
      return 0;
    }
    uint8_t b = *pos_++;
    if (shift == 28 && (b & 0xf0) != 0) {
      fail("unsigned varint longer than 32 bits");
      return 0;
    }
    v |= static_cast<uint32_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return v;
  }
  fail("unsigned varint longer than 5 bytes");
  return 0;
}

int64_t Reader::read_length(bool compact, bool int16_classic) {
  int64_t n;
  if (compact) {
    n = static_cast<int64_t>(read_uvarint()) - 1;
  } else {
    n = int16_classic ? read_int16() : read_int32();
  }
  if (failed_) return -1;
  if (n < -1) {
    fail("negative length");
    return -1;
  }
  if (n > static_cast<int64_t>(remaining())) {
    fail("length exceeds the bytes that remain");
    return -1;
  }
  return n;
}

bool Reader::read_nullable_string(bool compact, std::string& out) {
  int64_t n = read_length(compact, true);
  if (n < 0) {
    out.clear();
    return false;
  }
  out.assign(reinterpret_cast<const char*>(pos_), static_cast<size_t>(n));
  pos_ += n;
  return true;
}

void Reader::read_string(bool compact, std::string& out) {
  if (!read_nullable_string(compact, out)) fail("null where a string is required");
}

bool Reader::read_nullable_bytes(bool compact, Bytes& out) {
  int64_t n = read_length(compact, false);
  if (n < 0) {
    out.clear();
    return false;
  }
  out.assign(pos_, pos_ + n);
  pos_ += n;
  return true;
}

void Reader::read_bytes(bool compact, Bytes& out) {
  if (!read_nullable_bytes(compact, out)) fail("null where bytes are required");
}

bool Reader::read_nullable_records(bool compact, RecordsView& out) {
  int64_t n = read_length(compact, false);
  if (n < 0) {
    out = {};
    return false;
  }
  out = RecordsView{pos_, static_cast<size_t>(n)};
  pos_ += n;
  return true;
}

void Reader::read_records(bool compact, RecordsView& out) {
  if (!read_nullable_records(compact, out)) fail("null where records are required");
}

int32_t Reader::read_array_length(bool compact, size_t min_element_size) {
  int64_t n = compact ? static_cast<int64_t>(read_uvarint()) - 1 : read_int32();
  if (failed_) return -1;
  if (n < -1) {
    fail("negative array length");
    return -1;
  }
  if (n > 0 && static_cast<uint64_t>(n) * std::max<size_t>(min_element_size, 1) > remaining()) {
    fail("array length exceeds the bytes that remain");
    return -1;
  }
  return static_cast<int32_t>(n);
}

Reader Reader::sub_reader(size_t len) {
  if (len > remaining()) {
    fail("tagged field longer than the bytes that remain");
    return Reader(pos_, 0);
  }
  Reader sub(pos_, len);
  pos_ += len;
  return sub;
}

void Reader::skip(size_t len) {
  if (len > remaining()) {
    fail("message ends early");
    return;
  }
  pos_ += len;
}

void Reader::read_unknown_tag(uint32_t tag, Reader& payload, UnknownTags& out) {
  out.push_back(UnknownTag{tag, Bytes(payload.pos_, payload.end_)});
  payload.pos_ = payload.end_;
}

void Writer::write_raw(const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  out_.insert(out_.end(), b, b + n);
}

void Writer::write_float64(double v) { write_be<uint64_t>(std::bit_cast<uint64_t>(v)); }

void Writer::write_uvarint(uint32_t v) {
  uint8_t buf[5];
  size_t n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<uint8_t>(v);
  write_raw(buf, n);
}

void Writer::write_string(bool compact, const std::string& s) {
  if (compact) {
    write_uvarint(static_cast<uint32_t>(s.size() + 1));
  } else {
    write_int16(static_cast<int16_t>(s.size()));
  }
  write_raw(s.data(), s.size());
}

void Writer::write_nullable_string(bool compact, const std::optional<std::string>& s) {
  if (s) return write_string(compact, *s);
  if (compact) {
    write_uvarint(0);
  } else {
    write_int16(-1);
  }
}

void Writer::write_array_length(bool compact, int32_t n) {
  if (compact) {
    write_uvarint(static_cast<uint32_t>(n + 1));
  } else {
    write_int32(n);
  }
}

void Writer::write_bytes(bool compact, const Bytes& b) {
  write_array_length(compact, static_cast<int32_t>(b.size()));
  write_raw(b.data(), b.size());
}

void Writer::write_nullable_bytes(bool compact, const std::optional<Bytes>& b) {
  if (b) return write_bytes(compact, *b);
  write_array_length(compact, -1);
}

void Writer::write_records(bool compact, const RecordsView& r) {
  write_array_length(compact, static_cast<int32_t>(r.size));
  if (r.external != nullptr) {
    if (splices_ == nullptr) {
      std::fprintf(stderr, "Writer: external records without a splice list\n");
      std::abort();
    }
    splices_->push_back(Splice{out_.size(), r.external, r.size});
    return;
  }
  if (r.size > 0) write_raw(r.data, r.size);
}

void Writer::write_nullable_records(bool compact, const std::optional<RecordsView>& r) {
  if (r) return write_records(compact, *r);
  write_array_length(compact, -1);
}

void Writer::write_unknown_tags_below(const UnknownTags& tags, size_t& next, uint32_t below) {
  for (; next < tags.size() && tags[next].tag < below; ++next) {
    write_uvarint(tags[next].tag);
    write_uvarint(static_cast<uint32_t>(tags[next].data.size()));
    write_raw(tags[next].data.data(), tags[next].data.size());
  }
}

size_t uvarint_size(uint32_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

size_t unknown_tags_size(const UnknownTags& tags) {
  size_t n = 0;
  for (const UnknownTag& t : tags) {
    n += uvarint_size(t.tag) + uvarint_size(static_cast<uint32_t>(t.data.size())) + t.data.size();
  }
  return n;
}

}  // namespace mirra::protocol
