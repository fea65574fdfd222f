#include "server/config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace mirra::server {
namespace {

Result<LoadedConfig> load(const std::vector<std::string>& overrides) {
  return load_config(std::nullopt, overrides);
}

void expect_error(const std::vector<std::string>& overrides, const std::string& needle) {
  auto r = load(overrides);
  ASSERT_FALSE(r.ok()) << overrides[0];
  EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
}

TEST(Config, Defaults) {
  auto r = load({});
  ASSERT_TRUE(r.ok());
  const ServerConfig& c = r->config;
  EXPECT_EQ(c.node_id, 1);
  ASSERT_EQ(c.listeners.size(), 1u);
  EXPECT_EQ(c.listeners[0].to_string(), "PLAINTEXT://127.0.0.1:9092");
  EXPECT_EQ(c.log_dir, "./data");
  EXPECT_EQ(c.message_max_bytes, 1048588);
  EXPECT_EQ(c.socket_request_max_bytes, 104857600);
  EXPECT_EQ(c.connections_max_idle_ms, 600000);
  EXPECT_EQ(c.max_connections, 2147483647);
  EXPECT_EQ(c.log_retention_ms, 168LL * 3600 * 1000);
  EXPECT_TRUE(c.auto_create_topics_enable);
  EXPECT_TRUE(r->warnings.empty());
}

TEST(Config, FileThenOverrides) {
  const auto path = std::filesystem::temp_directory_path() / "mirra_config_test.properties";
  {
    std::ofstream out(path);
    out << "node.id=7\nlog.dirs=/tmp/x\nnum.partitions : 3\nlog.cleanup.policy=compact\n";
  }
  auto r = load_config(path.string(), {"num.partitions=5", "auto.create.topics.enable=FALSE"});
  std::filesystem::remove(path);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->config.node_id, 7);
  EXPECT_EQ(r->config.log_dir, "/tmp/x");
  EXPECT_EQ(r->config.num_partitions, 5);
  EXPECT_FALSE(r->config.auto_create_topics_enable);
  EXPECT_EQ(r->config.topic_defaults.at("log.cleanup.policy"), "compact");
  EXPECT_EQ(r->set.at("num.partitions").second, Source::kOverride);
  EXPECT_EQ(r->set.at("node.id").second, Source::kFile);
}

TEST(Config, RetentionPrecedence) {
  EXPECT_EQ(load({"log.retention.hours=1"})->config.log_retention_ms, 3600000);
  EXPECT_EQ(load({"log.retention.hours=1", "log.retention.minutes=2"})->config.log_retention_ms,
            120000);
  EXPECT_EQ(load({"log.retention.minutes=2", "log.retention.ms=5"})->config.log_retention_ms, 5);
  EXPECT_EQ(load({"log.retention.ms=-1"})->config.log_retention_ms, -1);
}

TEST(Config, LogDirFallsBackToLogDir) {
  EXPECT_EQ(load({"log.dir=/a"})->config.log_dir, "/a");
  EXPECT_EQ(load({"log.dir=/a", "log.dirs=/b"})->config.log_dir, "/b");
  expect_error({"log.dirs=/a,/b"}, "log.dirs");
}

TEST(Config, UnknownKeyIsAWarning) {
  auto r = load({"no.such.key=1"});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].find("no.such.key"), std::string::npos);
}

TEST(Config, StockKafkaKeysAreAccepted) {
  auto r = load({"process.roles=broker,controller", "offsets.topic.replication.factor=1"});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->warnings.empty());
}

TEST(Config, InvalidValuesNameKeyAndValue) {
  expect_error({"node.id=abc"}, "invalid value 'abc' for node.id");
  expect_error({"num.partitions=0"}, "num.partitions");
  expect_error({"message.max.bytes=99999999999"}, "message.max.bytes");
  expect_error({"auto.create.topics.enable=yes"}, "auto.create.topics.enable");
  expect_error({"log.retention.hours=1x"}, "log.retention.hours");
  expect_error({"connections.max.idle.ms=0"}, "connections.max.idle.ms");
}

// Broker-level topic defaults are checked as their topic keys are, naming the broker key.
TEST(Config, TopicDefaultsAreCheckedAtStartUp) {
  expect_error({"log.cleaner.min.cleanable.ratio=nan"}, "log.cleaner.min.cleanable.ratio");
  expect_error({"log.cleaner.min.cleanable.ratio=2"}, "log.cleaner.min.cleanable.ratio");
  expect_error({"log.roll.hours=soon"}, "log.roll.hours");
  expect_error({"log.preallocate=maybe"}, "log.preallocate");
  expect_error({"compression.type=brotli"}, "compression.type");
  for (const char* ok :
       {"log.cleaner.min.cleanable.ratio=0.1", "log.roll.hours=2", "compression.type=zstd"}) {
    EXPECT_TRUE(load({ok}).ok()) << ok;
  }
}

// queued.max.request.bytes: finite by default (twice socket.request.max.bytes, following it),
// -1 unbounded as in Kafka, 0 refused.
TEST(Config, QueuedMaxRequestBytes) {
  auto defaults = load({});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(queued_max_request_bytes(defaults->config), 2 * 104857600LL);
  auto follows = load({"socket.request.max.bytes=1000"});
  ASSERT_TRUE(follows.ok());
  EXPECT_EQ(queued_max_request_bytes(follows->config), 2000);
  auto set = load({"queued.max.request.bytes=5000", "socket.request.max.bytes=1000"});
  ASSERT_TRUE(set.ok());
  EXPECT_TRUE(set->warnings.empty());
  EXPECT_EQ(queued_max_request_bytes(set->config), 5000);
  auto unbounded = load({"queued.max.request.bytes=-1"});
  ASSERT_TRUE(unbounded.ok());
  EXPECT_EQ(queued_max_request_bytes(unbounded->config), -1);
  expect_error({"queued.max.request.bytes=0"}, "queued.max.request.bytes");
  expect_error({"queued.max.request.bytes=-2"}, "queued.max.request.bytes");
}

TEST(Config, Listeners) {
  auto r = parse_listeners("listeners", "PLAINTEXT://:0");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()[0].host, "");
  EXPECT_EQ(r.value()[0].port, 0);
  auto v6 = parse_listeners("listeners", "PLAINTEXT://[::1]:9093");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6.value()[0].host, "::1");
  EXPECT_EQ(v6.value()[0].to_string(), "PLAINTEXT://[::1]:9093");
  expect_error({"listeners=localhost:9092"}, "listeners");
  expect_error({"listeners=PLAINTEXT://h:99999"}, "99999");
  expect_error({"listeners=PLAINTEXT://h"}, "port");
  expect_error({"listeners=PLAINTEXT://a:1,PLAINTEXT://b:2"}, "unique");
  expect_error({"listeners=PLAINTEXT://a:1,plaintext://b:2"}, "unique");
  expect_error({"advertised.listeners=nope"}, "advertised.listeners");
  expect_error({"listeners=BAD-NAME://h:1"}, "letters, digits and underscores");
}

TEST(Config, ListenerProtocols) {
  auto r = load({"listeners=PLAINTEXT://h:1,SSL://h:2,sasl_plaintext://h:3,SASL_SSL://h:4"});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const auto& l = r->config.listeners;
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[0].protocol, SecurityProtocol::plaintext);
  EXPECT_EQ(l[1].protocol, SecurityProtocol::ssl);
  EXPECT_EQ(l[2].name, "SASL_PLAINTEXT");  // names are upper case, as Kafka normalises them
  EXPECT_EQ(l[2].protocol, SecurityProtocol::sasl_plaintext);
  EXPECT_EQ(l[3].protocol, SecurityProtocol::sasl_ssl);
  EXPECT_TRUE(r->warnings.empty());

  auto named = load({"listeners=CLIENT://h:1,INTERNAL://h:2",
                     "listener.security.protocol.map=CLIENT:SASL_SSL,INTERNAL:PLAINTEXT",
                     "inter.broker.listener.name=INTERNAL",
                     "advertised.listeners=CLIENT://example.com:9093"});
  ASSERT_TRUE(named.ok()) << named.status().to_string();
  EXPECT_EQ(named->config.listeners[0].protocol, SecurityProtocol::sasl_ssl);
  EXPECT_EQ(named->config.listeners[1].protocol, SecurityProtocol::plaintext);
  EXPECT_EQ(named->config.advertised_listeners[0].protocol, SecurityProtocol::sasl_ssl);

  // A name the map does not know, a protocol that does not exist, names that do not match.
  expect_error({"listeners=CLIENT://h:1"}, "listener.security.protocol.map");
  expect_error({"listeners=CLIENT://h:1", "listener.security.protocol.map=CLIENT:TLS"},
               "PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL");
  expect_error({"listeners=CLIENT://h:1", "listener.security.protocol.map=CLIENT:SSL,CLIENT:SSL"},
               "twice");
  expect_error({"listeners=PLAINTEXT://h:1", "advertised.listeners=SSL://h:2"}, "not in listeners");
  expect_error({"listeners=PLAINTEXT://h:1", "inter.broker.listener.name=SSL"},
               "inter.broker.listener.name");
}

TEST(Config, SecurityKeysAreAccepted) {
  auto r = load({"listeners=SASL_SSL://h:1", "sasl.enabled.mechanisms=PLAIN",
                 "listener.name.sasl_ssl.plain.sasl.jaas.config=x", "ssl.keystore.type=PEM",
                 "ssl.keymanager.algorithm=SunX509", "connections.max.reauth.ms=60000",
                 "sasl.server.max.receive.size=1000"});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_TRUE(r->warnings.empty());
  EXPECT_EQ(r->config.connections_max_reauth_ms, 60000);
  EXPECT_EQ(r->config.sasl_server_max_receive_size, 1000);
  expect_error({"connections.max.reauth.ms=-1"}, "connections.max.reauth.ms");
  expect_error({"sasl.server.max.receive.size=0"}, "sasl.server.max.receive.size");
}

TEST(Config, BadOverrideSyntax) {
  expect_error({"novalue"}, "--override");
  expect_error({"=1"}, "--override");
}

TEST(Config, MissingFile) {
  auto r = load_config(std::string("/nonexistent/server.properties"), {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent/server.properties"), std::string::npos);
}

// group.share.* (KIP-932): Kafka's defaults, each key's own range, and the relations between
// them; lowering the minimums is how tests get fast session expiry, as in Kafka.
TEST(Config, ShareGroupKeys) {
  auto r = load({});
  ASSERT_TRUE(r.ok());
  const groups::ShareGroupConfig& d = r->config.groups.share;
  EXPECT_EQ(d.max_size, 200);
  EXPECT_EQ(d.heartbeat_interval_ms, 5000);
  EXPECT_EQ(d.session_timeout_ms, 45000);
  EXPECT_EQ(d.record_lock_duration_ms, 30000);
  EXPECT_EQ(d.min_record_lock_duration_ms, 15000);
  EXPECT_EQ(d.max_record_lock_duration_ms, 60000);
  EXPECT_EQ(d.delivery_count_limit, 5);
  EXPECT_EQ(d.partition_max_record_locks, 2000);
  EXPECT_EQ(d.max_share_sessions, 2000);

  auto fast =
      load({"group.share.min.session.timeout.ms=100", "group.share.session.timeout.ms=300",
            "group.share.min.heartbeat.interval.ms=50", "group.share.heartbeat.interval.ms=100"});
  ASSERT_TRUE(fast.ok()) << fast.status().to_string();
  EXPECT_EQ(fast->config.groups.share.session_timeout_ms, 300);
  EXPECT_TRUE(fast->warnings.empty());

  expect_error({"group.share.delivery.count.limit=11"}, "group.share.delivery.count.limit");
  expect_error({"group.share.max.size=0"}, "group.share.max.size");
  expect_error({"group.share.max.size=1001"}, "group.share.max.size");
  expect_error({"group.share.min.record.lock.duration.ms=999"},
               "group.share.min.record.lock.duration.ms");
  expect_error({"group.share.partition.max.record.locks=99"},
               "group.share.partition.max.record.locks");
  expect_error({"group.share.session.timeout.ms=30000"},
               "group.share.session.timeout.ms must be greater than or equal to "
               "group.share.min.session.timeout.ms");
  expect_error({"group.share.heartbeat.interval.ms=20000"},
               "group.share.heartbeat.interval.ms must be less than or equal to "
               "group.share.max.heartbeat.interval.ms");
  expect_error({"group.share.record.lock.duration.ms=70000"},
               "group.share.max.record.lock.duration.ms must be greater than or equal to "
               "group.share.record.lock.duration.ms");
  expect_error({"group.share.max.share.sessions=100"}, "group.share.max.share.sessions");
  expect_error({"group.share.min.session.timeout.ms=100", "group.share.session.timeout.ms=300"},
               "group.share.heartbeat.interval.ms must be less than "
               "group.share.session.timeout.ms");
}

}  // namespace
}  // namespace mirra::server
