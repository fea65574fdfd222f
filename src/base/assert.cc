#include "base/assert.h"

#include <cstdio>
#include <cstdlib>

#include "base/clock.h"
#include "base/log.h"

namespace mirra::detail {

void assertion_failed(std::string_view condition, std::string_view file, int line,
                      std::string_view message) {
  // The bare file name: the build directory's prefix says nothing to the reader.
  const size_t slash = file.rfind('/');
  if (slash != std::string_view::npos) file.remove_prefix(slash + 1);
  // Straight to stderr, in the log's line format, not through the log sink: the sink may be a
  // test's, or its mutex may be held by the very code that failed.
  fmt::memory_buffer out;
  log::format_timestamp(out, now_ms());
  fmt::format_to(std::back_inserter(out), " ERROR [assert] {}:{}: assertion '{}' failed: {}\n",
                 file, line, condition, message);
  std::fwrite(out.data(), 1, out.size(), stderr);
  std::fflush(stderr);
  std::abort();
}

}  // namespace mirra::detail
