#include "cli/line_format.h"

#include <fmt/core.h>

namespace mirra::cli {
namespace {

Status line_error(std::string what, int64_t line_number, const std::string& line) {
  return Status(ErrorCode::INVALID_RECORD,
                fmt::format("{} on line number {}: '{}'", what, line_number, line));
}

}  // namespace

Result<LineFormat> LineFormat::from_properties(const Properties& props) {
  LineFormat f;
  auto flag = [&](const char* key, bool& target) {
    auto v = parse_bool(props, key, target);
    if (v.ok()) target = v.value();
    return v.status();
  };
  auto text = [&](const char* key, std::string& target) {
    if (auto it = props.find(key); it != props.end()) target = it->second;
  };
  for (Status s : {flag("parse.key", f.parse_key_), flag("parse.headers", f.parse_headers_),
                   flag("ignore.error", f.ignore_error_)}) {
    if (!s.ok()) return s;
  }
  text("key.separator", f.key_separator_);
  text("headers.delimiter", f.headers_delimiter_);
  text("headers.separator", f.headers_separator_);
  text("headers.key.separator", f.headers_key_separator_);
  if (auto it = props.find("null.marker"); it != props.end()) f.null_marker_ = it->second;
  for (const std::string* sep : {&f.key_separator_, &f.headers_delimiter_, &f.headers_separator_,
                                 &f.headers_key_separator_}) {
    if (sep->empty()) return Status(ErrorCode::INVALID_CONFIG, "separators may not be empty");
  }
  return f;
}

std::optional<std::string> LineFormat::nullable(std::string s) const {
  if (null_marker_ && s == *null_marker_) return std::nullopt;
  return s;
}

Status LineFormat::parse_headers(const std::string& text, int64_t line_number,
                                 LineRecord& out) const {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(headers_separator_, start);
    if (end == std::string::npos) end = text.size();
    const std::string pair = text.substr(start, end - start);
    const size_t colon = pair.find(headers_key_separator_);
    if (colon == std::string::npos) {
      return line_error(fmt::format("No header key separator found in pair '{}'", pair),
                        line_number, text);
    }
    std::string key = pair.substr(0, colon);
    if (null_marker_ && key == *null_marker_) {
      return line_error("Header keys should not be equal to the null marker", line_number, text);
    }
    out.headers.emplace_back(std::move(key),
                             nullable(pair.substr(colon + headers_key_separator_.size())));
    start = end + headers_separator_.size();
  }
  return Status::OK();
}

Result<LineRecord> LineFormat::parse(const std::string& line, int64_t line_number) const {
  LineRecord r;
  std::string rest = line;
  if (parse_headers_) {
    const size_t at = rest.find(headers_delimiter_);
    if (at == std::string::npos) {
      if (!ignore_error_) return line_error("No headers delimiter found", line_number, line);
    } else {
      const std::string headers = rest.substr(0, at);
      rest = rest.substr(at + headers_delimiter_.size());
      if (!headers.empty()) {
        if (Status s = parse_headers(headers, line_number, r); !s.ok()) return s;
      }
    }
  }
  if (parse_key_) {
    const size_t at = rest.find(key_separator_);
    if (at == std::string::npos) {
      if (!ignore_error_) return line_error("No key separator found", line_number, line);
    } else {
      r.key = nullable(rest.substr(0, at));
      rest = rest.substr(at + key_separator_.size());
    }
  }
  r.value = nullable(std::move(rest));
  return r;
}

int32_t murmur2(const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  const uint32_t m = 0x5bd1e995;
  uint32_t h = 0x9747b28c ^ static_cast<uint32_t>(size);
  const size_t whole = size / 4 * 4;
  for (size_t i = 0; i < whole; i += 4) {
    uint32_t k = p[i] | (p[i + 1] << 8) | (p[i + 2] << 16) |
                 (static_cast<uint32_t>(p[i + 3]) << 24);
    k *= m;
    k ^= k >> 24;
    k *= m;
    h *= m;
    h ^= k;
  }
  switch (size % 4) {
    case 3:
      h ^= static_cast<uint32_t>(p[whole + 2]) << 16;
      [[fallthrough]];
    case 2:
      h ^= static_cast<uint32_t>(p[whole + 1]) << 8;
      [[fallthrough]];
    case 1:
      h ^= p[whole];
      h *= m;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return static_cast<int32_t>(h);
}

}  // namespace mirra::cli
