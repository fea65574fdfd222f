// `mirra topics`: create, list, describe, alter and delete topics, like kafka-topics.sh, with
// its option names and its output format.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "cli/common.h"

namespace mirra::cli {
namespace {

constexpr std::string_view kCommand = "topics";

struct TopicsArgs {
  std::string bootstrap;
  std::string topic;
  bool create = false, list = false, describe = false, alter = false, remove = false;
  int32_t partitions = -1;
  int16_t replication_factor = -1;
  std::vector<std::string> configs;
  bool if_not_exists = false, if_exists = false;
  std::vector<std::string> command_config;  // --command-property items
  std::string command_config_file;          // --command-config
};

// Kafka shows a topic's configs that are not defaults, "k=v,k=v".
std::string describe_configs(client::SyncClient& c, const std::string& topic) {
  auto r =
      c.describe_configs({client::ConfigResource{client::ConfigResourceType::topic, topic, {}}});
  if (!r.ok() || r->empty() || !r->front().status.ok()) return "";
  std::vector<std::string> items;
  for (const auto& e : r->front().entries) {
    if (e.source == client::ConfigSource::default_config) continue;
    items.push_back(
        fmt::format("{}={}", e.name, e.sensitive ? "(sensitive)" : e.value.value_or("null")));
  }
  return fmt::format("{}", fmt::join(items, ","));
}

std::string node_list(const std::vector<int32_t>& nodes) {
  return fmt::format("{}", fmt::join(nodes, ","));
}

int describe(client::SyncClient& c, const TopicsArgs& a) {
  std::optional<std::vector<std::string>> names;
  if (!a.topic.empty()) names = std::vector<std::string>{a.topic};
  auto md = c.metadata(names);
  if (!md.ok()) return fail(kCommand, md.status().message());
  for (const client::TopicInfo& t : md->topics) {
    if (t.error == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION && a.if_exists) continue;
    if (t.error != ErrorCode::NONE) {
      return fail(kCommand, fmt::format("topic '{}': {}", t.name, error_message(t.error)));
    }
    const size_t rf = t.partitions.empty() ? 0 : t.partitions.front().replicas.size();
    fmt::print("Topic: {}\tTopicId: {}\tPartitionCount: {}\tReplicationFactor: {}\tConfigs: {}\n",
               t.name, t.id.to_string(), t.partitions.size(), rf, describe_configs(c, t.name));
    for (const client::PartitionInfo& p : t.partitions) {
      fmt::print("\tTopic: {}\tPartition: {}\tLeader: {}\tReplicas: {}\tIsr: {}\n", t.name,
                 p.partition, p.leader >= 0 ? std::to_string(p.leader) : "none",
                 node_list(p.replicas), node_list(p.isr));
    }
  }
  return 0;
}

int list(client::SyncClient& c) {
  auto md = c.metadata(std::nullopt);
  if (!md.ok()) return fail(kCommand, md.status().message());
  for (const client::TopicInfo& t : md->topics) fmt::print("{}\n", t.name);
  return 0;
}

// The single per-topic outcome of an admin call, with the --if-exists/--if-not-exists excuse.
int outcome(Result<std::vector<client::TopicResult>> r, ErrorCode excused) {
  if (!r.ok()) return fail(kCommand, r.status().message());
  for (const auto& t : *r) {
    if (!t.status.ok() && t.status.code() != excused) return fail(kCommand, t.status.message());
  }
  return 0;
}

int create(client::SyncClient& c, const TopicsArgs& a) {
  auto configs = parse_properties(a.configs, "--config");
  if (!configs.ok()) return fail(kCommand, configs.status().message());
  client::NewTopic t{a.topic, a.partitions, a.replication_factor, {}};
  for (const auto& kv : configs.value()) t.configs.push_back(kv);
  auto r = c.create_topics({t});
  const bool existed = r.ok() && r->size() == 1 &&
                       r->front().status.code() == ErrorCode::TOPIC_ALREADY_EXISTS;
  const int code =
      outcome(std::move(r), a.if_not_exists ? ErrorCode::TOPIC_ALREADY_EXISTS : ErrorCode::NONE);
  if (code == 0 && !existed) fmt::print("Created topic {}.\n", a.topic);
  return code;
}

int run_topics(const TopicsArgs& a) {
  const int actions = a.create + a.list + a.describe + a.alter + a.remove;
  if (actions != 1) {
    return fail(kCommand,
                "Command must include exactly one action: --list, --describe, "
                "--create, --alter or --delete");
  }
  if ((a.create || a.alter || a.remove) && a.topic.empty()) {
    return fail(kCommand, "--topic is required with --create, --alter and --delete");
  }
  if (a.alter && a.partitions < 1) return fail(kCommand, "--alter needs --partitions N");
  auto client = open_client(a.bootstrap, a.command_config_file, a.command_config);
  if (!client.ok()) return fail(kCommand, client.status().message());
  client::SyncClient& c = *client.value();
  const ErrorCode unknown = a.if_exists ? ErrorCode::UNKNOWN_TOPIC_OR_PARTITION : ErrorCode::NONE;
  if (a.list) return list(c);
  if (a.describe) return describe(c, a);
  if (a.create) return create(c, a);
  if (a.alter) return outcome(c.create_partitions({{a.topic, a.partitions}}), unknown);
  return outcome(c.delete_topics({a.topic}), unknown);
}

}  // namespace

void add_topics_command(CLI::App& app, CommandResult& result) {
  auto a = std::make_shared<TopicsArgs>();
  CLI::App* sub = app.add_subcommand("topics",
                                     "Create, list, describe, alter and delete topics "
                                     "(like kafka-topics.sh)");
  add_bootstrap_option(sub, a->bootstrap);
  sub->add_flag("--create", a->create, "Create a topic");
  sub->add_flag("--list", a->list, "List the topics");
  sub->add_flag("--describe", a->describe, "Describe one topic (--topic) or all");
  sub->add_flag("--alter", a->alter, "Raise a topic's partition count (--partitions)");
  sub->add_flag("--delete", a->remove, "Delete a topic");
  sub->add_option("--topic", a->topic, "The topic");
  sub->add_option("--partitions", a->partitions,
                  "Partition count (create: default num.partitions)");
  sub->add_option("--replication-factor", a->replication_factor,
                  "Replicas per partition (default default.replication.factor)");
  sub->add_option("--config", a->configs, "A topic config key=value (repeatable)");
  sub->add_flag("--if-not-exists", a->if_not_exists, "With --create: no error if it exists");
  sub->add_flag("--if-exists", a->if_exists,
                "With --alter/--delete/--describe: no error if it does not exist");
  sub->add_option("--command-property", a->command_config, "Client property key=value");
  sub->add_option("--command-config", a->command_config_file,
                  "Client properties file (security.protocol, sasl.*, ssl.*, ...)");
  sub->callback([a, &result] { result.exit_code = run_topics(*a); });
}

}  // namespace mirra::cli
