#include "base/failpoint.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include <fmt/format.h>

namespace mirra {
namespace {

struct Failpoint {
  bool crash = false;
  ErrorCode code = ErrorCode::NONE;
  long remaining = -1;  // hits left to fire; -1 every hit
};

ErrorCode code_named(std::string_view name) {
  for (const ErrorInfo& e : all_errors()) {
    if (e.name == name) return e.code;
  }
  return ErrorCode::NONE;
}

// Parses one "name=ACTION[*COUNT]"; false when it is malformed.
bool parse_entry(const std::string& entry, std::map<std::string, Failpoint, std::less<>>& out) {
  const size_t eq = entry.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  std::string action = entry.substr(eq + 1);
  Failpoint fp;
  if (const size_t star = action.find('*'); star != std::string::npos) {
    char* end = nullptr;
    fp.remaining = std::strtol(action.c_str() + star + 1, &end, 10);
    if (*end != '\0' || fp.remaining < 0) return false;
    action.resize(star);
  }
  fp.crash = action == "crash";
  if (!fp.crash) {
    fp.code = code_named(action);
    if (fp.code == ErrorCode::NONE) return false;
  }
  out[entry.substr(0, eq)] = fp;
  return true;
}

std::map<std::string, Failpoint, std::less<>> parse(const char* text) {
  std::map<std::string, Failpoint, std::less<>> out;
  if (text == nullptr) return out;
  const std::string all(text);
  size_t start = 0;
  while (start <= all.size()) {
    size_t semi = all.find(';', start);
    if (semi == std::string::npos) semi = all.size();
    const std::string entry = all.substr(start, semi - start);
    if (!entry.empty() && !parse_entry(entry, out)) {
      std::fprintf(stderr, "MIRRA_FAILPOINTS: ignoring malformed entry '%s'\n", entry.c_str());
    }
    start = semi + 1;
  }
  return out;
}

std::map<std::string, Failpoint, std::less<>>& points() {
  static std::map<std::string, Failpoint, std::less<>> all = parse(std::getenv("MIRRA_FAILPOINTS"));
  return all;
}

}  // namespace

bool failpoints_active() { return !points().empty(); }

Status failpoint(std::string_view name) {
  static std::mutex mu;
  auto& all = points();
  if (all.empty()) return Status::OK();
  std::lock_guard<std::mutex> lock(mu);
  auto it = all.find(name);
  if (it == all.end() || it->second.remaining == 0) return Status::OK();
  if (it->second.remaining > 0) --it->second.remaining;
  if (it->second.crash) {
    std::fprintf(stderr, "failpoint %.*s: crashing\n", static_cast<int>(name.size()), name.data());
    _exit(137);
  }
  return Status(it->second.code, fmt::format("failpoint {}", name));
}

}  // namespace mirra
