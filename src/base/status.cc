#include "base/status.h"

namespace mirra {

std::string Status::to_string() const {
  if (ok()) return "OK";
  std::string out(error_name(code_));
  if (!message_.empty()) {
    out += ": ";
    out += message_;
  }
  return out;
}

}  // namespace mirra
