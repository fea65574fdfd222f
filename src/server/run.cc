#include "server/run.h"

#include <malloc.h>

#include <csignal>

#include <filesystem>

#include "base/log.h"
#include "security/secrets.h"
#include "server/broker.h"
#include "server/config.h"

namespace mirra::server {
namespace {

constexpr std::string_view kMirraLogComponent = "server";

std::string join_listeners(const std::vector<Listener>& ls) {
  std::string out;
  for (const Listener& l : ls) out += (out.empty() ? "" : ",") + l.to_string();
  return out;
}

void log_summary(const LoadedConfig& loaded, const std::optional<std::string>& path) {
  const ServerConfig& c = loaded.config;
  MIRRA_LOG_INFO("starting Mirra broker node.id={} (config: {})", c.node_id,
                 path ? *path : "embedded defaults");
  MIRRA_LOG_INFO("listeners: {}", join_listeners(c.listeners));
  if (!c.advertised_listeners.empty()) {
    MIRRA_LOG_INFO("advertised listeners: {}", join_listeners(c.advertised_listeners));
  }
  MIRRA_LOG_INFO("data dir: {}", c.log_dir);
  for (const auto& [key, entry] : loaded.set) {
    MIRRA_LOG_INFO("setting {}={} (from {})", key,
                   security::is_secret_setting(key) ? security::kHiddenValue : entry.first,
                   source_name(entry.second));
  }
  MIRRA_LOG_INFO(
      "every other setting has its default; one core thread serves all connections, "
      "{} shard thread(s) own the partition logs (num.io.threads)",
      c.num_io_threads);
  for (const std::string& w : loaded.warnings) MIRRA_LOG_WARN("{}", w);
}

// Fetch answers (the mirror's) and produce requests of megabytes are allocated and freed per
// request. By default glibc hands such blocks back to the kernel (munmap, or trimming the heap)
// and the next one is faulted in and zeroed again: a tenth of a mirroring broker's CPU. Blocks
// up to 32 MiB now come from the heap, and up to 256 MiB of free heap is kept for reuse.
void keep_freed_memory() {
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

}  // namespace

int run_server_command(const std::optional<std::string>& config_path,
                       const std::vector<std::string>& overrides) {
  auto loaded = load_config(config_path, overrides);
  if (!loaded.ok()) {
    MIRRA_LOG_ERROR("{}", loaded.status().message());
    return 1;
  }
  log_summary(loaded.value(), config_path);
  const ServerConfig& config = loaded->config;
  std::error_code fs_ec;
  std::filesystem::create_directories(config.log_dir, fs_ec);
  if (fs_ec) {
    MIRRA_LOG_ERROR("cannot create data dir {}: {}", config.log_dir, fs_ec.message());
    return 1;
  }

  // A write to a socket whose client has gone must fail with EPIPE, not kill the broker:
  // sendfile(2) has no MSG_NOSIGNAL.
  ::signal(SIGPIPE, SIG_IGN);
  keep_freed_memory();
  asio::io_context io(1);  // the core thread: this one
  Broker broker(io, loaded.value());
  asio::signal_set signals(io, SIGTERM, SIGINT);
  int exit_code = 0;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        if (Status s = co_await broker.start(); !s.ok()) {
          MIRRA_LOG_ERROR("{}", s.message());
          exit_code = 1;
          signals.cancel();
          co_await broker.stop();
          co_return;
        }
        signals.async_wait([&](const asio::error_code& ec, int signo) {
          if (ec) return;
          MIRRA_LOG_INFO("received signal {}: shutting down", signo);
          asio::co_spawn(io, broker.stop(), asio::detached);
        });
      },
      asio::detached);
  io.run();  // returns when the broker has stopped: connections closed, logs flushed
  if (exit_code != 0) return exit_code;
  MIRRA_LOG_INFO("stopped");
  return 0;
}

}  // namespace mirra::server
