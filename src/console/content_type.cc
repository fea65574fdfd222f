#include "console/console_files.h"

namespace mirra::console {

std::string_view content_type(std::string_view url) {
  if (url == "/" || url.ends_with(".html")) return "text/html; charset=utf-8";
  if (url.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (url.ends_with(".css")) return "text/css; charset=utf-8";
  return "text/plain; charset=utf-8";
}

}  // namespace mirra::console
