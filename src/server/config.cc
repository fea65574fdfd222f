#include "server/config.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>

#include "base/parse.h"
#include "base/properties.h"
#include "base/text.h"
#include "cluster/topic_config.h"

namespace mirra::server {
namespace {

Status invalid(const std::string& key, const std::string& value, std::string_view why) {
  return Status(ErrorCode::INVALID_CONFIG,
                fmt::format("invalid value '{}' for {}: {}", value, key, why));
}

template <typename T>
Result<T> parse_int(const std::string& key, const std::string& raw, int64_t min, int64_t max) {
  const std::string v(trim(raw));
  auto parsed = parse_decimal<int64_t>(v);
  if (!parsed) return invalid(key, raw, "not an integer");
  const int64_t n = *parsed;
  if (n < min || n > max) {
    return invalid(key, raw, fmt::format("must be between {} and {}", min, max));
  }
  return static_cast<T>(n);
}

Result<bool> parse_bool(const std::string& key, const std::string& raw) {
  const std::string v = to_lower(trim(raw));
  if (v == "true") return true;
  if (v == "false") return false;
  return invalid(key, raw, "expected true or false");
}

constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

// A broker key: how to apply its value to the config.
using Apply = std::function<Status(ServerConfig&, const std::string& key, const std::string& v)>;

template <typename T>
Apply int_key(T ServerConfig::*field, int64_t min, int64_t max) {
  return [=](ServerConfig& c, const std::string& k, const std::string& v) {
    auto r = parse_int<T>(k, v, min, max);
    if (!r.ok()) return r.status();
    c.*field = r.value();
    return Status::OK();
  };
}

// A key of a coordinator's settings (groups, transactions); `unit` scales the value
// (offsets.retention.minutes is stored in ms).
template <typename S, typename T>
Apply section_key(S ServerConfig::*section, T S::*field, int64_t min, int64_t max,
                  int64_t unit = 1) {
  return [=](ServerConfig& c, const std::string& k, const std::string& v) {
    auto r = parse_int<T>(k, v, min, max / unit);
    if (!r.ok()) return r.status();
    (c.*section).*field = static_cast<T>(r.value() * unit);
    return Status::OK();
  };
}

template <typename T>
Apply group_key(T groups::GroupConfig::*field, int64_t min, int64_t max, int64_t unit = 1) {
  return section_key(&ServerConfig::groups, field, min, max, unit);
}

// A group.share.* key (groups::ShareGroupConfig), with Kafka's range for the key itself; the
// relations between keys are checked once all are read (check_share_config).
Apply share_key(int32_t groups::ShareGroupConfig::*field, int64_t min, int64_t max) {
  return [=](ServerConfig& c, const std::string& k, const std::string& v) {
    auto r = parse_int<int32_t>(k, v, min, max);
    if (!r.ok()) return r.status();
    c.groups.share.*field = r.value();
    return Status::OK();
  };
}

// Kafka's start-up checks between the group.share.* keys (GroupCoordinatorConfig and
// ShareGroupConfig): each value inside its bounds, the heartbeat shorter than the session.
Status check_share_config(const groups::ShareGroupConfig& s) {
  struct Rule {
    bool holds;
    const char* what;
  };
  const Rule rules[] = {
      {s.max_heartbeat_interval_ms >= s.min_heartbeat_interval_ms,
       "group.share.max.heartbeat.interval.ms must be greater than or equal to "
       "group.share.min.heartbeat.interval.ms"},
      {s.heartbeat_interval_ms >= s.min_heartbeat_interval_ms,
       "group.share.heartbeat.interval.ms must be greater than or equal to "
       "group.share.min.heartbeat.interval.ms"},
      {s.heartbeat_interval_ms <= s.max_heartbeat_interval_ms,
       "group.share.heartbeat.interval.ms must be less than or equal to "
       "group.share.max.heartbeat.interval.ms"},
      {s.max_session_timeout_ms >= s.min_session_timeout_ms,
       "group.share.max.session.timeout.ms must be greater than or equal to "
       "group.share.min.session.timeout.ms"},
      {s.session_timeout_ms >= s.min_session_timeout_ms,
       "group.share.session.timeout.ms must be greater than or equal to "
       "group.share.min.session.timeout.ms"},
      {s.session_timeout_ms <= s.max_session_timeout_ms,
       "group.share.session.timeout.ms must be less than or equal to "
       "group.share.max.session.timeout.ms"},
      {s.heartbeat_interval_ms < s.session_timeout_ms,
       "group.share.heartbeat.interval.ms must be less than group.share.session.timeout.ms"},
      {s.record_lock_duration_ms >= s.min_record_lock_duration_ms,
       "group.share.record.lock.duration.ms must be greater than or equal to "
       "group.share.min.record.lock.duration.ms"},
      {s.max_record_lock_duration_ms >= s.record_lock_duration_ms,
       "group.share.max.record.lock.duration.ms must be greater than or equal to "
       "group.share.record.lock.duration.ms"},
      {s.max_share_sessions >= s.max_size,
       "group.share.max.share.sessions must be greater than or equal to group.share.max.size"},
  };
  for (const Rule& r : rules) {
    if (!r.holds) return Status(ErrorCode::INVALID_CONFIG, r.what);
  }
  return Status::OK();
}

template <typename T>
Apply txn_key(T txn::TxnConfig::*field, int64_t min, int64_t max) {
  return section_key(&ServerConfig::txn, field, min, max);
}

template <typename T>
Apply mirror_key(T mirror::MirrorBrokerConfig::*field, int64_t min, int64_t max) {
  return section_key(&ServerConfig::mirror, field, min, max);
}

// quota.window.num and quota.window.size.seconds of one set of quota windows.
Apply window_num_key(quota::WindowConfig ServerConfig::*section) {
  return section_key(section, &quota::WindowConfig::num, 1, kI32Max);
}
Apply window_seconds_key(quota::WindowConfig ServerConfig::*section) {
  return section_key(section, &quota::WindowConfig::size_ms, 1, kI32Max, 1000);
}

// -1 (unbounded, Kafka's meaning) or a positive number of bytes.
Apply queued_request_bytes_key() {
  return [](ServerConfig& c, const std::string& k, const std::string& v) {
    auto r = parse_int<int64_t>(k, v, -1, kI64Max);
    if (!r.ok()) return r.status();
    if (r.value() == 0) return invalid(k, v, "must be -1 (unbounded) or positive");
    c.queued_max_request_bytes = r.value();
    return Status::OK();
  };
}

const std::map<std::string, Apply>& broker_keys() {
  static const std::map<std::string, Apply> keys = {
      {"node.id", int_key(&ServerConfig::node_id, 0, kI32Max)},
      {"num.partitions", int_key(&ServerConfig::num_partitions, 1, kI32Max)},
      {"default.replication.factor", int_key(&ServerConfig::default_replication_factor, 1, 32767)},
      {"log.retention.bytes", int_key(&ServerConfig::log_retention_bytes, -1, kI64Max)},
      {"log.segment.bytes", int_key(&ServerConfig::log_segment_bytes, 14, kI32Max)},
      {"message.max.bytes", int_key(&ServerConfig::message_max_bytes, 0, kI32Max)},
      {"socket.request.max.bytes", int_key(&ServerConfig::socket_request_max_bytes, 1, kI32Max)},
      {"queued.max.request.bytes", queued_request_bytes_key()},
      {"num.network.threads", int_key(&ServerConfig::num_network_threads, 1, kI32Max)},
      {"num.io.threads", int_key(&ServerConfig::num_io_threads, 1, kI32Max)},
      {"connections.max.idle.ms", int_key(&ServerConfig::connections_max_idle_ms, 1, kI64Max)},
      {"max.connections", int_key(&ServerConfig::max_connections, 0, kI32Max)},
      {"log.open.files.max", int_key(&ServerConfig::log_open_files_max, 0, kI32Max)},
      {"connections.max.reauth.ms", int_key(&ServerConfig::connections_max_reauth_ms, 0, kI64Max)},
      {"sasl.server.max.receive.size",
       int_key(&ServerConfig::sasl_server_max_receive_size, 1, kI32Max)},
      {"quota.window.num", window_num_key(&ServerConfig::quota_window)},
      {"quota.window.size.seconds", window_seconds_key(&ServerConfig::quota_window)},
      {"controller.quota.window.num", window_num_key(&ServerConfig::controller_quota_window)},
      {"controller.quota.window.size.seconds",
       window_seconds_key(&ServerConfig::controller_quota_window)},
      {"mirror.state.topic.num.partitions",
       mirror_key(&mirror::MirrorBrokerConfig::state_topic_partitions, 1, 1000)},
      {"mirror.num.fetchers", mirror_key(&mirror::MirrorBrokerConfig::num_fetchers, 1, 64)},
      {"mirror.replication.throttled.rate",
       mirror_key(&mirror::MirrorBrokerConfig::replication_throttled_rate, 0, kI64Max)},
      {"mirror.metadata.refresh.interval.ms",
       mirror_key(&mirror::MirrorBrokerConfig::metadata_refresh_interval_ms, 100, kI32Max)},
      {"mirror.failed.retry.initial.backoff.ms",
       mirror_key(&mirror::MirrorBrokerConfig::failed_retry_initial_backoff_ms, 1, kI32Max)},
      {"mirror.failed.retry.max.backoff.ms",
       mirror_key(&mirror::MirrorBrokerConfig::failed_retry_max_backoff_ms, 1, kI32Max)},
      {"mirror.failed.retry.max.attempts",
       mirror_key(&mirror::MirrorBrokerConfig::failed_retry_max_attempts, 0, kI32Max)},
      {"group.min.session.timeout.ms",
       group_key(&groups::GroupConfig::min_session_timeout_ms, 1, kI32Max)},
      {"group.max.session.timeout.ms",
       group_key(&groups::GroupConfig::max_session_timeout_ms, 1, kI32Max)},
      {"group.initial.rebalance.delay.ms",
       group_key(&groups::GroupConfig::initial_rebalance_delay_ms, 0, kI32Max)},
      {"group.max.size", group_key(&groups::GroupConfig::max_size, 1, kI32Max)},
      {"offsets.topic.num.partitions",
       group_key(&groups::GroupConfig::offsets_topic_partitions, 1, 1000)},
      {"offsets.topic.segment.bytes",
       group_key(&groups::GroupConfig::offsets_topic_segment_bytes, 14, kI32Max)},
      {"offsets.retention.minutes",
       group_key(&groups::GroupConfig::offsets_retention_ms, 1, kI64Max, 60000)},
      {"offsets.retention.check.interval.ms",
       group_key(&groups::GroupConfig::offsets_retention_check_interval_ms, 1, kI64Max)},
      {"offset.metadata.max.bytes",
       group_key(&groups::GroupConfig::offset_metadata_max_bytes, 0, kI32Max)},
      {"group.share.max.size", share_key(&groups::ShareGroupConfig::max_size, 1, 1000)},
      {"group.share.heartbeat.interval.ms",
       share_key(&groups::ShareGroupConfig::heartbeat_interval_ms, 1, kI32Max)},
      {"group.share.min.heartbeat.interval.ms",
       share_key(&groups::ShareGroupConfig::min_heartbeat_interval_ms, 1, kI32Max)},
      {"group.share.max.heartbeat.interval.ms",
       share_key(&groups::ShareGroupConfig::max_heartbeat_interval_ms, 1, kI32Max)},
      {"group.share.session.timeout.ms",
       share_key(&groups::ShareGroupConfig::session_timeout_ms, 1, kI32Max)},
      {"group.share.min.session.timeout.ms",
       share_key(&groups::ShareGroupConfig::min_session_timeout_ms, 1, kI32Max)},
      {"group.share.max.session.timeout.ms",
       share_key(&groups::ShareGroupConfig::max_session_timeout_ms, 1, kI32Max)},
      {"group.share.record.lock.duration.ms",
       share_key(&groups::ShareGroupConfig::record_lock_duration_ms, 1000, 3600000)},
      {"group.share.min.record.lock.duration.ms",
       share_key(&groups::ShareGroupConfig::min_record_lock_duration_ms, 1000, 30000)},
      {"group.share.max.record.lock.duration.ms",
       share_key(&groups::ShareGroupConfig::max_record_lock_duration_ms, 30000, 3600000)},
      {"group.share.delivery.count.limit",
       share_key(&groups::ShareGroupConfig::delivery_count_limit, 2, 10)},
      {"group.share.partition.max.record.locks",
       share_key(&groups::ShareGroupConfig::partition_max_record_locks, 100, 10000)},
      {"group.share.max.share.sessions",
       share_key(&groups::ShareGroupConfig::max_share_sessions, 1, kI32Max)},
      {"transaction.max.timeout.ms", txn_key(&txn::TxnConfig::max_timeout_ms, 1, kI32Max)},
      {"transactional.id.expiration.ms", txn_key(&txn::TxnConfig::id_expiration_ms, 1, kI32Max)},
      {"transaction.state.log.num.partitions",
       txn_key(&txn::TxnConfig::state_log_partitions, 1, 1000)},
      {"transaction.state.log.segment.bytes",
       txn_key(&txn::TxnConfig::state_log_segment_bytes, 14, kI32Max)},
      {"transaction.abort.timed.out.transaction.cleanup.interval.ms",
       txn_key(&txn::TxnConfig::abort_timed_out_interval_ms, 1, kI32Max)},
      {"transaction.remove.expired.transaction.cleanup.interval.ms",
       txn_key(&txn::TxnConfig::remove_expired_interval_ms, 1, kI32Max)},
      {"auto.create.topics.enable",
       [](ServerConfig& c, const std::string& k, const std::string& v) {
         auto r = parse_bool(k, v);
         if (!r.ok()) return r.status();
         c.auto_create_topics_enable = r.value();
         return Status::OK();
       }},
      {"password.encoder.secret",
       [](ServerConfig& c, const std::string&, const std::string& v) {
         c.password_encoder_secret = v;
         return Status::OK();
       }},
      {"password.encoder.old.secret",
       [](ServerConfig& c, const std::string&, const std::string& v) {
         c.password_encoder_old_secret = v;
         return Status::OK();
       }},
      {"password.encoder.iterations",
       int_key(&ServerConfig::password_encoder_iterations, 1024, 1 << 20)},
      // Mirra has Kafka's default only (security/password_encoder.h).
      {"password.encoder.keyfactory.algorithm",
       [](ServerConfig&, const std::string& k, const std::string& v) {
         if (trim(v) == "PBKDF2WithHmacSHA512") return Status::OK();
         return invalid(k, v, "only PBKDF2WithHmacSHA512 is supported");
       }},
      {"listeners",
       [](ServerConfig& c, const std::string& k, const std::string& v) {
         auto r = parse_listeners(k, v);
         if (!r.ok()) return r.status();
         c.listeners = std::move(r.value());
         return Status::OK();
       }},
      {"http.listeners",
       [](ServerConfig& c, const std::string& k, const std::string& v) {
         auto r = parse_listeners(k, v);
         if (!r.ok()) return r.status();
         if (r->size() != 1 || (r->front().name != "HTTP" && r->front().name != "HTTPS")) {
           return invalid(k, v, "expected one listener http://host:port or https://host:port");
         }
         c.http_listener = r->front();
         return Status::OK();
       }},
      // Checked here, read by server/http_endpoints.cc from the static settings.
      {"http.authentication",
       [](ServerConfig&, const std::string& k, const std::string& v) {
         const std::string value = to_lower(std::string(trim(v)));
         if (value != "none" && value != "basic") return invalid(k, v, "expected none or basic");
         return Status::OK();
       }},
      {"advertised.listeners",
       [](ServerConfig& c, const std::string& k, const std::string& v) {
         auto r = parse_listeners(k, v);
         if (!r.ok()) return r.status();
         c.advertised_listeners = std::move(r.value());
         return Status::OK();
       }},
  };
  return keys;
}

// Topic-level defaults under their broker names; storage's LogConfig validates them.
const std::set<std::string>& topic_default_keys() {
  static const std::set<std::string> keys = {"log.cleanup.policy",
                                             "log.cleaner.delete.retention.ms",
                                             "log.cleaner.min.compaction.lag.ms",
                                             "log.cleaner.max.compaction.lag.ms",
                                             "log.cleaner.min.cleanable.ratio",
                                             "log.roll.ms",
                                             "log.roll.hours",
                                             "log.roll.jitter.ms",
                                             "log.roll.jitter.hours",
                                             "log.index.size.max.bytes",
                                             "log.index.interval.bytes",
                                             "log.flush.interval.messages",
                                             "log.flush.interval.ms",
                                             "log.segment.delete.delay.ms",
                                             "log.message.timestamp.type",
                                             "log.message.timestamp.before.max.ms",
                                             "log.message.timestamp.after.max.ms",
                                             "log.preallocate",
                                             "min.insync.replicas",
                                             "compression.type",
                                             "unclean.leader.election.enable"};
  return keys;
}

// Keys of Kafka's stock server.properties that a single-node Mirra accepts and does not use
// yet (KRaft roles, internal-topic replication): no warning, so the stock file works as is.
const std::set<std::string>& accepted_unused_keys() {
  static const std::set<std::string> keys = {"process.roles",
                                             "controller.quorum.voters",
                                             "controller.quorum.bootstrap.servers",
                                             "controller.listener.names",
                                             "num.recovery.threads.per.data.dir",
                                             "offsets.topic.replication.factor",
                                             "transaction.state.log.replication.factor",
                                             "transaction.state.log.min.isr",
                                             "share.coordinator.state.topic.replication.factor",
                                             "share.coordinator.state.topic.min.isr",
                                             "log.retention.check.interval.ms",
                                             "socket.send.buffer.bytes",
                                             "socket.receive.buffer.bytes",
                                             "log.cleaner.enable"};
  return keys;
}

// Security keys read when the listeners start (server/listener_security.cc), where their values
// are checked; listener.name.<listener>.<key> overrides any of them for one listener. Kafka has
// ssl.* keys that only mean something to Java (ssl.keymanager.algorithm, ...): accepted too.
// http.ssl.<key> are the HTTPS listener's (server/http_endpoints.cc reads them at start).
bool is_security_key(const std::string& key) {
  static const std::set<std::string> keys = {"listener.security.protocol.map",
                                             "inter.broker.listener.name",
                                             "security.inter.broker.protocol",
                                             "sasl.enabled.mechanisms",
                                             "sasl.mechanism.inter.broker.protocol",
                                             "ssl.principal.mapping.rules",
                                             "authorizer.class.name",
                                             "super.users",
                                             "allow.everyone.if.no.acl.found"};
  return keys.count(key) != 0 || key.starts_with("listener.name.") || key.starts_with("ssl.") ||
         key.starts_with("http.ssl.") || key.starts_with("sasl.");
}

Status apply_listener_protocols(const std::map<std::string, std::pair<std::string, Source>>& set,
                                ServerConfig& c) {
  auto map_it = set.find("listener.security.protocol.map");
  auto map = parse_protocol_map(map_it == set.end() ? "" : map_it->second.first);
  if (!map.ok()) return map.status();
  if (Status s = resolve_protocols(c.listeners, map.value()); !s.ok()) return s;
  for (const Listener& a : c.advertised_listeners) {
    const bool known = std::any_of(c.listeners.begin(), c.listeners.end(),
                                   [&](const Listener& l) { return l.name == a.name; });
    if (!known) {
      return Status(
          ErrorCode::INVALID_CONFIG,
          fmt::format("advertised.listeners names {}, which is not in listeners", a.name));
    }
  }
  if (Status s = resolve_protocols(c.advertised_listeners, map.value()); !s.ok()) return s;
  if (auto it = set.find("inter.broker.listener.name"); it != set.end()) {
    const std::string name(trim(it->second.first));
    const bool known = std::any_of(c.listeners.begin(), c.listeners.end(),
                                   [&](const Listener& l) { return l.name == name; });
    if (!known) {
      return invalid(it->first, it->second.first, "not one of the names in listeners");
    }
  }
  return Status::OK();
}

// log.retention.ms wins over .minutes, which wins over .hours (Kafka's precedence).
Status apply_retention(const std::map<std::string, std::pair<std::string, Source>>& set,
                       ServerConfig& c) {
  struct Unit {
    const char* key;
    int64_t ms;
  };
  for (Unit u : {Unit{"log.retention.ms", 1}, Unit{"log.retention.minutes", 60000},
                 Unit{"log.retention.hours", 3600000}}) {
    auto it = set.find(u.key);
    if (it == set.end()) continue;
    auto r = parse_int<int64_t>(u.key, it->second.first, -1, kI64Max / u.ms);
    if (!r.ok()) return r.status();
    c.log_retention_ms = r.value() < 0 ? -1 : r.value() * u.ms;
    return Status::OK();
  }
  return Status::OK();
}

Status apply_log_dirs(const std::map<std::string, std::pair<std::string, Source>>& set,
                      ServerConfig& c) {
  auto it = set.find("log.dirs");
  if (it == set.end()) it = set.find("log.dir");
  if (it == set.end()) return Status::OK();
  const std::string v(trim(it->second.first));
  if (v.empty()) return invalid(it->first, it->second.first, "empty path");
  if (v.find(',') != std::string::npos) {
    return invalid(it->first, it->second.first, "more than one log directory is not supported yet");
  }
  c.log_dir = v;
  return Status::OK();
}

}  // namespace

std::string_view source_name(Source s) {
  switch (s) {
    case Source::kFile:
      return "file";
    case Source::kOverride:
      return "override";
    case Source::kDefault:
      break;
  }
  return "default";
}

Result<LoadedConfig> build_config(std::map<std::string, std::pair<std::string, Source>> set) {
  LoadedConfig loaded;
  ServerConfig& c = loaded.config;
  for (const auto& [key, entry] : set) {
    const std::string& value = entry.first;
    if (auto it = broker_keys().find(key); it != broker_keys().end()) {
      Status s = it->second(c, key, value);
      if (!s.ok()) return s;
    } else if (topic_default_keys().count(key) != 0) {
      c.topic_defaults[key] = std::string(trim(value));
      if (Status s = cluster::validate_broker_topic_default(key, c.topic_defaults[key]); !s.ok()) {
        return s;
      }
    } else if (key == "log.retention.ms" || key == "log.retention.minutes" ||
               key == "log.retention.hours" || key == "log.dirs" || key == "log.dir" ||
               accepted_unused_keys().count(key) != 0 || is_security_key(key)) {
      // retention and log dirs are applied below by precedence; the rest are accepted
    } else if (auto deprecated = cluster::deprecated_config_warning(key)) {
      loaded.warnings.push_back(*deprecated);
    } else {
      loaded.warnings.push_back(fmt::format("unknown configuration key '{}' ignored", key));
    }
  }
  if (Status s = apply_retention(set, c); !s.ok()) return s;
  if (Status s = apply_log_dirs(set, c); !s.ok()) return s;
  if (Status s = apply_listener_protocols(set, c); !s.ok()) return s;
  if (Status s = check_share_config(c.groups.share); !s.ok()) return s;
  auto authorizer =
      security::parse_authorizer_config([&](std::string_view key) -> std::optional<std::string> {
        auto it = set.find(std::string(key));
        if (it == set.end()) return std::nullopt;
        return it->second.first;
      });
  if (!authorizer.ok()) return authorizer.status();
  c.authorizer = std::move(authorizer.value());
  c.mirror.authorizer = c.authorizer.has_value();  // a mirror's ACL sync needs one
  loaded.set = std::move(set);
  return loaded;
}

Result<LoadedConfig> load_config(const std::optional<std::string>& path,
                                 const std::vector<std::string>& overrides) {
  std::map<std::string, std::pair<std::string, Source>> set;
  if (path) {
    std::ifstream in(*path, std::ios::binary);
    if (!in) return Status(ErrorCode::INVALID_CONFIG, fmt::format("cannot read {}", *path));
    std::stringstream text;
    text << in.rdbuf();
    auto props = parse_properties(text.str());
    if (!props.ok()) {
      return Status(ErrorCode::INVALID_CONFIG,
                    fmt::format("{}: {}", *path, props.status().message()));
    }
    for (Property& p : props.value()) set[p.key] = {std::move(p.value), Source::kFile};
  }
  for (const std::string& o : overrides) {
    const size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status(ErrorCode::INVALID_CONFIG,
                    fmt::format("bad --override '{}': expected key=value", o));
    }
    set[std::string(trim(o.substr(0, eq)))] = {o.substr(eq + 1), Source::kOverride};
  }
  return build_config(std::move(set));
}

int64_t queued_max_request_bytes(const ServerConfig& config) {
  return config.queued_max_request_bytes.value_or(2 * int64_t{config.socket_request_max_bytes});
}

}  // namespace mirra::server
