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
// understand (client.id, request.timeout.ms, retry.backoff.ms, ..., and the security keys of
// client/security.h: security.protocol, sasl.*, ssl.*).
Result<client::ClientOptions> client_options(const std::string& bootstrap_servers,
                                             const Properties& client_properties);

// The `k=v` items of a Kafka client properties file (--command-config, --producer.config,
// --consumer.config; none when `path` is empty), then `items`, which win (they come later).
Result<std::vector<std::string>> with_config_file(const std::string& path, std::string_view option,
                                                  const std::vector<std::string>& items);

// A client on --bootstrap-server with --command-property items (`k=v`).
Result<std::unique_ptr<client::SyncClient>> open_client(
    const std::string& bootstrap_servers, const std::vector<std::string>& command_properties);

// The same, with the properties of --command-config FILE first (with_config_file()).
Result<std::unique_ptr<client::SyncClient>> open_client(
    const std::string& bootstrap_servers, const std::string& command_config,
    const std::vector<std::string>& command_properties);

// The option every client subcommand has.
void add_bootstrap_option(CLI::App* sub, std::string& target);

}  // namespace mirra::cli
