// The broker's configuration: Kafka's server.properties keys, names and defaults, read from a
// file and `--override key=value` arguments (overrides win), then validated.
//
// Unknown keys are kept as warnings (Kafka logs them too); a value that does not parse or is out
// of range is an error naming the key and the value. Topic-level defaults (log.cleanup.policy,
// log.roll.ms, ...) are validated by the storage LogConfig when it consumes them; until then they
// are carried as strings in `topic_defaults`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "groups/group_config.h"
#include "mirror/mirror_config.h"
#include "quota/sampled_rate.h"
#include "security/acl.h"
#include "server/listeners.h"
#include "txn/txn_config.h"

namespace mirra::server {

enum class Source { kDefault, kFile, kOverride };
std::string_view source_name(Source s);

struct ServerConfig {
  int32_t node_id = 1;
  std::vector<Listener> listeners{{"PLAINTEXT", "127.0.0.1", 9092}};
  std::vector<Listener> advertised_listeners;  // empty: same as listeners
  // Security (docs/security.md). The ssl.*, sasl.* and listener.name.* settings are read when
  // the listeners start (server/listener_security.h), from the static settings.
  int64_t connections_max_reauth_ms = 0;          // 0: sessions never expire
  int32_t sasl_server_max_receive_size = 524288;  // largest frame before authentication
  // authorizer.class.name, super.users, allow.everyone.if.no.acl.found; nullopt: no authorizer.
  std::optional<security::AuthorizerConfig> authorizer;
  std::string log_dir = "./data";
  int32_t num_partitions = 1;
  int16_t default_replication_factor = 1;
  bool auto_create_topics_enable = true;
  int64_t log_retention_ms = 168LL * 3600 * 1000;  // -1: unlimited
  int64_t log_retention_bytes = -1;
  int32_t log_segment_bytes = 1 << 30;
  int32_t message_max_bytes = 1048588;
  int32_t socket_request_max_bytes = 104857600;
  // queued.max.request.bytes: the memory all requests being read or handled may hold
  // (server/request_memory.h). Unset: twice socket.request.max.bytes (200 MiB by default),
  // where Kafka's default of -1 is unbounded; -1 here is unbounded too.
  std::optional<int64_t> queued_max_request_bytes;
  int32_t num_network_threads = 3;
  int32_t num_io_threads = 8;
  int64_t connections_max_idle_ms = 600000;
  int32_t max_connections = 2147483647;
  // Mirra's own key (Kafka keeps every log file open): at most this many segment and index
  // files open at once (storage/file_cache.h); 0 = half the process's RLIMIT_NOFILE.
  int64_t log_open_files_max = 0;
  // quota.window.num / quota.window.size.seconds: the samples of the produce, fetch and request
  // quotas; controller.quota.window.*: those of controller_mutation_rate (Kafka's keys and
  // defaults, 11 samples of 1 s).
  quota::WindowConfig quota_window;
  quota::WindowConfig controller_quota_window;
  mirror::MirrorBrokerConfig mirror;  // mirror.* (every mirror's runtime)
  // password.encoder.* (Kafka's names): the secrets of mirror configs are stored encrypted
  // with this secret (security/password_encoder.h); empty: mirrors with secrets are refused.
  std::string password_encoder_secret;
  std::string password_encoder_old_secret;  // decodes values stored before a rotation
  int32_t password_encoder_iterations = 4096;
  groups::GroupConfig groups;  // group.*, offsets.* (the group coordinator)
  txn::TxnConfig txn;          // transaction.*, transactional.* (the transaction coordinator)
  // http.listeners: the broker's HTTP endpoint (/metrics, docs/observability.md), as
  // http://host:port; none unless set.
  std::optional<Listener> http_listener;
  // Topic-level defaults under their broker names (log.cleanup.policy, ...), for LogConfig.
  std::map<std::string, std::string> topic_defaults;
};

// What load_config() found, for the start-up summary.
struct LoadedConfig {
  ServerConfig config;
  std::map<std::string, std::pair<std::string, Source>> set;  // every key given, with its source
  std::vector<std::string> warnings;
};

// queued.max.request.bytes as set, or its default; -1: unbounded.
int64_t queued_max_request_bytes(const ServerConfig& config);

// Reads `path` (optional) and applies `overrides` ("key=value" each). Errors: unreadable file,
// malformed override, a value that does not parse, is out of range, or a bad listener URI.
Result<LoadedConfig> load_config(const std::optional<std::string>& path,
                                 const std::vector<std::string>& overrides);

// Validates a key/value map (file and overrides already merged) into a ServerConfig.
Result<LoadedConfig> build_config(std::map<std::string, std::pair<std::string, Source>> set);

}  // namespace mirra::server
