// What the client subcommands (topics, produce, consume) share: Kafka-style `k=v` properties,
// the one-line error convention, and opening a client on --bootstrap-server.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "client/sync_client.h"

namespace mirra::cli {

using Properties = std::map<std::string, std::string>;

// Subcommands report their exit code here from their CLI11 callback.
struct CommandResult {
  int exit_code = 0;
};

// Prints "mirra <command>: <message>" as one line on stderr and returns 1 (the exit code).
int fail(std::string_view command, std::string_view message);

// `k=v` items of a repeatable option (--property, --config, ...); the value may contain '='.
Result<Properties> parse_properties(const std::vector<std::string>& items, std::string_view option);

// "true"/"false" (any case), as Kafka's tools accept.
Result<bool> parse_bool(const Properties& p, const std::string& key, bool fallback);
Result<int64_t> parse_int(std::string_view text, std::string_view what);

// Client options from --bootstrap-server (required) and Kafka client properties the tools
// understand (client.id, request.timeout.ms, retry.backoff.ms, ...).
Result<client::ClientOptions> client_options(const std::string& bootstrap_servers,
                                             const Properties& client_properties);

// A client on --bootstrap-server with --command-property items (`k=v`).
Result<std::unique_ptr<client::SyncClient>> open_client(
    const std::string& bootstrap_servers, const std::vector<std::string>& command_properties);

// The option every client subcommand has.
void add_bootstrap_option(CLI::App* sub, std::string& target);

}  // namespace mirra::cli
