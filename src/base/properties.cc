#include "base/properties.h"

#include <fmt/format.h>

namespace mirra {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// A logical line: natural lines joined where one ends in an odd number of backslashes. The
// joining backslash is removed and the next line's leading blanks are skipped, as Java does.
struct LineSplitter {
  std::string_view text;
  size_t pos = 0;
  int line_no = 0;

  // Next natural line without its terminator (\n, \r or \r\n); false at the end.
  bool natural(std::string_view& out) {
    if (pos >= text.size()) return false;
    size_t end = text.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) end = text.size();
    out = text.substr(pos, end - pos);
    pos = end;
    if (pos < text.size()) {
      const bool cr = text[pos] == '\r';
      ++pos;
      if (cr && pos < text.size() && text[pos] == '\n') ++pos;  // \r\n is one terminator
    }
    ++line_no;
    return true;
  }

  static bool continues(std::string_view s) {
    size_t n = 0;
    while (n < s.size() && s[s.size() - 1 - n] == '\\') ++n;
    return n % 2 == 1;
  }

  // Returns false at the end; `start_line` is where the logical line began.
  bool logical(std::string& out, int& start_line) {
    out.clear();
    std::string_view nat;
    while (natural(nat)) {
      size_t i = 0;
      while (i < nat.size() && is_blank(nat[i])) ++i;
      if (i == nat.size()) continue;                 // blank line
      if (nat[i] == '#' || nat[i] == '!') continue;  // comment line
      start_line = line_no;
      nat.remove_prefix(i);
      while (continues(nat)) {
        out.append(nat.substr(0, nat.size() - 1));
        std::string_view next;
        if (!natural(next)) return true;
        size_t j = 0;
        while (j < next.size() && is_blank(next[j])) ++j;
        nat = next.substr(j);
      }
      out.append(nat);
      return true;
    }
    return false;
  }
};

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Unescapes s[i..end); a key stops at the first unescaped separator when `key` is set.
// Returns the index where it stopped, or npos after a malformed \u escape.
size_t unescape(std::string_view s, size_t i, bool key, std::string& out) {
  while (i < s.size()) {
    char c = s[i];
    if (key && (c == '=' || c == ':' || is_blank(c))) return i;
    ++i;
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (i == s.size()) break;  // a lone trailing backslash (end of input) is dropped
    char e = s[i++];
    switch (e) {
      case 't':
        out.push_back('\t');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'u': {
        if (s.size() - i < 4) return std::string_view::npos;
        uint32_t cp = 0;
        for (int k = 0; k < 4; ++k, ++i) {
          char h = s[i];
          int v = h >= '0' && h <= '9'   ? h - '0'
                  : h >= 'a' && h <= 'f' ? h - 'a' + 10
                  : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                         : -1;
          if (v < 0) return std::string_view::npos;
          cp = cp * 16 + static_cast<uint32_t>(v);
        }
        append_utf8(out, cp);
        break;
      }
      default:
        out.push_back(e);
    }
  }
  return i;
}

}  // namespace

Result<std::vector<Property>> parse_properties(std::string_view text) {
  std::vector<Property> props;
  LineSplitter lines{text};
  std::string logical;
  int line = 0;
  while (lines.logical(logical, line)) {
    Property p;
    p.line = line;
    std::string_view s = logical;
    size_t i = unescape(s, 0, /*key=*/true, p.key);
    if (i == std::string_view::npos) {
      return Status(ErrorCode::INVALID_CONFIG,
                    fmt::format("line {}: malformed \\uXXXX escape", line));
    }
    // Separator: blanks, then at most one '=' or ':', then blanks.
    while (i < s.size() && is_blank(s[i])) ++i;
    if (i < s.size() && (s[i] == '=' || s[i] == ':')) ++i;
    while (i < s.size() && is_blank(s[i])) ++i;
    if (unescape(s, i, /*key=*/false, p.value) == std::string_view::npos) {
      return Status(ErrorCode::INVALID_CONFIG,
                    fmt::format("line {}: malformed \\uXXXX escape", line));
    }
    props.push_back(std::move(p));
  }
  return props;
}

}  // namespace mirra
