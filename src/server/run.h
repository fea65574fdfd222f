// `mirra server [CONFIG] [--override key=value]...`: load the config, log a summary, serve
// until SIGTERM/SIGINT. Returns the process exit code (0 after a clean stop, 1 on a bad config
// or a listener that cannot bind).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mirra::server {

int run_server_command(const std::optional<std::string>& config_path,
                       const std::vector<std::string>& overrides);

}  // namespace mirra::server
