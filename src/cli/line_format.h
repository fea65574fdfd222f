// How `mirra produce` reads a line of stdin into a record: Kafka's console-producer rules
// (LineMessageReader) with the same property names and defaults:
//   parse.key=false, key.separator=\t, parse.headers=false, headers.delimiter=\t,
//   headers.separator=",", headers.key.separator=":", null.marker unset, ignore.error=false.
// A line is [headers<headers.delimiter>][key<key.separator>]value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "cli/common.h"

namespace mirra::cli {

struct LineRecord {
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

class LineFormat {
 public:
  static Result<LineFormat> from_properties(const Properties& props);
  // `line_number` counts from 1, for messages.
  Result<LineRecord> parse(const std::string& line, int64_t line_number) const;

 private:
  std::optional<std::string> nullable(std::string s) const;
  Status parse_headers(const std::string& text, int64_t line_number, LineRecord& out) const;

  bool parse_key_ = false;
  std::string key_separator_ = "\t";
  bool parse_headers_ = false;
  std::string headers_delimiter_ = "\t";
  std::string headers_separator_ = ",";
  std::string headers_key_separator_ = ":";
  std::optional<std::string> null_marker_;
  bool ignore_error_ = false;
};

// Kafka's murmur2 (the default partitioner's hash), so keyed records land on the partition a
// Java producer would pick: (murmur2(key) & 0x7fffffff) % partitions.
int32_t murmur2(const void* data, size_t size);

}  // namespace mirra::cli
