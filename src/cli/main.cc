// The `mirra` command line: `server` runs a broker; `topics`, `produce`, `consume`, `groups`,
// `share-groups`, `transactions` and `mirror` are clients of a running cluster (one file each,
// registered below); `api-versions` shows the protocol surface and `decode-frame` inspects
// captured request frames.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <csignal>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "protocol/api_table.h"
#include "protocol/api_visit.h"
#include "protocol/frame.h"
#include "server/run.h"

namespace mirra::cli {
namespace {

int print_api_versions() {
  fmt::print("{:>4}  {:<32} {:>9}  {}\n", "key", "api", "versions", "flexible from");
  for (const protocol::ApiInfo& api : protocol::all_apis()) {
    std::string flex = api.flexible_from >= 0 ? fmt::format("v{}", api.flexible_from) : "-";
    fmt::print("{:>4}  {:<32} {:>4}-{:<4}  {}\n", api.key, api.name, api.min_version,
               api.max_version, flex);
  }
  return 0;
}

// Decodes one request frame (without its 4-byte size) as Mirra's broker would.
int decode_frame(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fmt::print(stderr, "mirra: cannot open {}\n", path);
    return 1;
  }
  protocol::Bytes frame{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  auto env = protocol::decode_request_envelope(frame);
  if (!env.ok()) {
    fmt::print(stderr, "mirra: {}: {}\n", path, env.status().to_string());
    return 1;
  }
  const auto& h = env->header;
  fmt::print("api key {} ({}) v{}, correlation id {}, client id '{}', header v{}\n",
             h.request_api_key, env->api ? env->api->name : "unknown", h.request_api_version,
             h.correlation_id, h.client_id.value_or("<null>"), env->header_version);
  Status body_status(ErrorCode::UNSUPPORTED_VERSION, "API not implemented by Mirra");
  protocol::visit_api(h.request_api_key, [&]<typename Req, typename Resp>() {
    Req req;
    protocol::Reader r(env->body);
    body_status = req.decode(r, h.request_api_version);
    if (body_status.ok() && r.remaining() != 0) {
      body_status = Status(ErrorCode::CORRUPT_MESSAGE,
                           fmt::format("{} trailing bytes after the body", r.remaining()));
    }
  });
  fmt::print("body: {} ({} bytes)\n", body_status.to_string(), env->body.size());
  return body_status.ok() ? 0 : 1;
}

}  // namespace
}  // namespace mirra::cli

int main(int argc, char** argv) {
  // Every command may write to a TLS connection, and OpenSSL writes with send(2) without
  // MSG_NOSIGNAL: a peer that closed must be an error, not the end of the process.
  ::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"Mirra: a Kafka-compatible broker with native cluster mirroring"};
  app.require_subcommand(1);
  auto* versions = app.add_subcommand("api-versions", "List the APIs and versions Mirra speaks");
  std::string frame_path;
  auto* decode = app.add_subcommand("decode-frame", "Decode a request frame file (no size prefix)");
  decode->add_option("file", frame_path, "Frame file")->required();
  auto* server = app.add_subcommand("server", "Run a broker");
  std::string config_path;
  std::vector<std::string> overrides;
  server->add_option("config", config_path, "server.properties file (default: built-in defaults)");
  server->add_option("--override", overrides, "key=value, overriding the file (repeatable)")
      ->allow_extra_args(false);
  mirra::cli::CommandResult client_command;
  mirra::cli::add_topics_command(app, client_command);
  mirra::cli::add_produce_command(app, client_command);
  mirra::cli::add_consume_command(app, client_command);
  mirra::cli::add_groups_command(app, client_command);
  mirra::cli::add_share_groups_command(app, client_command);
  mirra::cli::add_transactions_command(app, client_command);
  mirra::cli::add_mirror_command(app, client_command);
  mirra::cli::add_configs_command(app, client_command);
  mirra::cli::add_acls_command(app, client_command);
  try {
    app.parse(argc, argv);  // client subcommands run from their callbacks
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, as every other error of the tool.
    fmt::print(stderr, "mirra: {}\n", e.what());
    return 1;
  }
  if (client_command.exit_code != 0) return client_command.exit_code;
  if (*versions) return mirra::cli::print_api_versions();
  if (*decode) return mirra::cli::decode_frame(frame_path);
  if (*server) {
    return mirra::server::run_server_command(
        config_path.empty() ? std::nullopt : std::optional<std::string>(config_path), overrides);
  }
  return 0;  // a client subcommand ran and succeeded
}
