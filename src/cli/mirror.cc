// `mirra mirror`: manage the mirrors of a Mirra cluster, with the option names of KIP-1279's
// kafka-mirror.sh (docs/mirroring-design.md §7): --create, --delete, --list, --add, --describe,
// --remove (failover), --pause, --resume (which also recovers FAILED partitions). Later drafts of
// the KIP name the tool kafka-cluster-mirrors.sh and spell three of them differently; both
// spellings work (src/cli/README.md): --start is --add, --stop is --remove and --recover is
// --resume (the same ResumeMirrorTopics request: a FAILED partition goes back to the state it
// failed in with its retries reset, a PAUSED one is fetched again).
// --describe --watch redraws the table until Ctrl-C (mirror_watch.h).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/clock.h"
#include "base/properties.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/mirror_describe_format.h"
#include "cli/mirror_watch.h"
#include "cli/table.h"

namespace mirra::cli {
namespace {

constexpr std::string_view kCommand = "mirror";

struct MirrorArgs {
  std::string bootstrap;
  std::string command_config;
  std::vector<std::string> command_properties;
  bool create = false, remove = false, list = false, add = false, describe = false;
  bool failover = false;  // --remove
  bool pause = false, resume = false;
  bool json = false;
  bool watch = false;                  // --describe --watch
  std::optional<int64_t> interval_ms;  // --interval-ms, with --watch
  std::string mirror;
  std::string mirror_config;
  std::vector<std::string> topics;  // --topic: names or regular expressions
};

Result<std::string> read_file(const std::string& path, std::string_view option) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status(ErrorCode::INVALID_CONFIG,
                  fmt::format("cannot read {} {}: {}", option, path, std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A properties file as (key, value) pairs, a later key overriding an earlier one.
Result<std::map<std::string, std::string>> read_properties_file(const std::string& path,
                                                                std::string_view option) {
  auto text = read_file(path, option);
  if (!text.ok()) return text.status();
  auto props = mirra::parse_properties(text.value());
  if (!props.ok()) {
    return Status(ErrorCode::INVALID_CONFIG,
                  fmt::format("{} {}: {}", option, path, props.status().message()));
  }
  std::map<std::string, std::string> out;
  for (const Property& p : props.value()) out[p.key] = p.value;
  return out;
}

// --command-config FILE and --command-property k=v (the latter wins), as client properties.
Result<std::vector<std::string>> client_properties(const MirrorArgs& a) {
  std::vector<std::string> items;
  if (!a.command_config.empty()) {
    auto file = read_properties_file(a.command_config, "--command-config");
    if (!file.ok()) return file.status();
    for (const auto& [key, value] : file.value()) items.push_back(key + "=" + value);
  }
  items.insert(items.end(), a.command_properties.begin(), a.command_properties.end());
  return items;
}

// --watch and --interval-ms (mirror_watch.h).
Status check_watch_args(const MirrorArgs& a) {
  if (a.watch && !a.describe) {
    return Status(ErrorCode::INVALID_REQUEST, "--watch goes with --describe only");
  }
  if (a.watch && a.json) {
    return Status(ErrorCode::INVALID_REQUEST,
                  "--watch redraws the table and does not go with --json (for JSON over time, "
                  "run --describe --json repeatedly)");
  }
  if (a.interval_ms && !a.watch) {
    return Status(ErrorCode::INVALID_REQUEST, "--interval-ms goes with --watch only");
  }
  if (a.interval_ms && (*a.interval_ms < 1 || *a.interval_ms > kMaxWatchIntervalMs)) {
    return Status(ErrorCode::INVALID_REQUEST,
                  fmt::format("--interval-ms must be from 1 to {} (a day), not {}",
                              kMaxWatchIntervalMs, *a.interval_ms));
  }
  return Status::OK();
}

Status check_args(const MirrorArgs& a) {
  const int actions = int(a.create) + int(a.remove) + int(a.list) + int(a.add) + int(a.describe) +
                      int(a.failover) + int(a.pause) + int(a.resume);
  if (actions != 1) {
    return Status(ErrorCode::INVALID_REQUEST,
                  "exactly one of --create, --delete, --add "
                  "(--start), --remove (--stop), --pause, --resume "
                  "(--recover), --list and --describe is needed");
  }
  const bool topic_action = a.add || a.failover || a.pause || a.resume;
  if ((a.create || a.remove || topic_action) && a.mirror.empty()) {
    return Status(ErrorCode::INVALID_REQUEST,
                  "--mirror is required with --create, --delete, "
                  "--add (--start), --remove (--stop), --pause and "
                  "--resume (--recover)");
  }
  if (topic_action != !a.topics.empty()) {
    return Status(ErrorCode::INVALID_REQUEST,
                  "--topic goes with --add (--start), --remove (--stop), --pause and --resume "
                  "(--recover), which need it");
  }
  if (a.json && !a.describe) {
    return Status(ErrorCode::INVALID_REQUEST, "--json goes with --describe only");
  }
  if (Status s = check_watch_args(a); !s.ok()) return s;
  if (a.create && a.mirror_config.empty()) {
    return Status(ErrorCode::INVALID_REQUEST,
                  "--create needs --mirror-config FILE (with at least bootstrap.servers)");
  }
  if (!a.create && !a.mirror_config.empty()) {
    return Status(ErrorCode::INVALID_REQUEST, "--mirror-config goes with --create only");
  }
  return Status::OK();
}

int create(client::SyncClient& c, const MirrorArgs& a) {
  auto configs = read_properties_file(a.mirror_config, "--mirror-config");
  if (!configs.ok()) return fail(kCommand, configs.status().message());
  Status s = c.create_mirror(a.mirror, {configs->begin(), configs->end()});
  if (!s.ok()) return fail(kCommand, s.message());
  fmt::print("Created mirror \"{}\".\n", a.mirror);
  return 0;
}

int remove(client::SyncClient& c, const MirrorArgs& a) {
  Status s = c.delete_mirror(a.mirror);
  if (!s.ok()) return fail(kCommand, s.message());
  fmt::print("Deleted mirror \"{}\".\n", a.mirror);
  return 0;
}

int list(client::SyncClient& c) {
  auto mirrors = c.list_mirrors(false);
  if (!mirrors.ok()) return fail(kCommand, mirrors.status().message());
  Table table({"MIRROR", "SOURCE-BOOTSTRAP-SERVERS", "SOURCE-CLUSTER-ID", "TOPICS"});
  for (const client::MirrorListing& m : mirrors.value()) {
    table.add({m.name, m.source_bootstrap_servers, m.source_cluster_id.value_or("-"),
               std::to_string(m.topic_count)});
  }
  fmt::print("{}", table.render());
  return 0;
}

// --topic values: a plain topic name is a name, anything else a regular expression.
bool is_plain_name(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  });
}

Result<std::vector<client::MirrorTopicResult>> send_topics_request(
    client::SyncClient& c, const MirrorArgs& a, std::vector<std::string> names,
    std::vector<std::string> patterns) {
  if (a.add) return c.add_topics_to_mirror(a.mirror, std::move(names), std::move(patterns));
  if (a.failover) {
    return c.remove_topics_from_mirror(a.mirror, std::move(names), std::move(patterns));
  }
  client::Client& async = c.async();
  if (a.pause) {
    return c.run(async.pause_mirror_topics(a.mirror, std::move(names), std::move(patterns)));
  }
  return c.run(async.resume_mirror_topics(a.mirror, std::move(names), std::move(patterns)));
}

// "0:5, 1:7": one field per partition, as the --add and --remove lines show them.
template <typename T>
std::string per_partition(const std::vector<T>& items, int64_t T::*field) {
  std::vector<std::string> out;
  for (const T& item : items) out.push_back(fmt::format("{}:{}", item.partition, item.*field));
  return fmt::format("{}", fmt::join(out, ", "));
}

template <typename T>
int64_t total_discarded(const std::vector<T>& items) {
  int64_t total = 0;
  for (const T& item : items) total += item.discarded;
  return total;
}

// --add of a topic that was restarted (a failback, or a restart after a failover, §6) and
// --remove (§5): where each partition was truncated and how many offsets above that point the
// broker discarded, per partition and in total, so the operator need not read the broker's log.
void print_restarts(const client::MirrorTopicResult& t) {
  fmt::print(
      "Topic \"{}\" was truncated before mirroring resumed: truncated to (partition:offset) {}; "
      "discarded above it (partition:offsets) {}, {} in total.\n",
      t.name, per_partition(t.restarts, &client::MirrorPartitionRestart::truncated_to),
      per_partition(t.restarts, &client::MirrorPartitionRestart::discarded),
      total_discarded(t.restarts));
}

void print_failover(const client::MirrorTopicResult& t) {
  fmt::print(
      "Topic \"{}\" failed over and is writable; last mirrored offsets (partition:LMO) {}; "
      "discarded above the LSO (partition:offsets) {}, {} in total.\n",
      t.name, per_partition(t.stops, &client::MirrorPartitionStop::last_mirrored_offset),
      per_partition(t.stops, &client::MirrorPartitionStop::discarded), total_discarded(t.stops));
}

// --add, --remove, --pause and --resume: the topics' outcomes, the first error as the
// command's.
int topics_command(client::SyncClient& c, const MirrorArgs& a) {
  std::vector<std::string> names, patterns;
  for (const std::string& t : a.topics) (is_plain_name(t) ? names : patterns).push_back(t);
  auto r = send_topics_request(c, a, std::move(names), std::move(patterns));
  if (!r.ok()) return fail(kCommand, r.status().message());
  std::string first_error;
  for (const client::MirrorTopicResult& t : r.value()) {
    if (!t.status.ok()) {
      if (first_error.empty()) first_error = t.status.message();
    } else if (a.add) {
      fmt::print("Topic \"{}\" (id {}) is mirrored by \"{}\".\n", t.name, t.id.to_string(),
                 a.mirror);
      if (!t.restarts.empty()) print_restarts(t);
    } else if (a.pause || a.resume) {
      fmt::print("Topic \"{}\" is {}.\n", t.name, a.pause ? "paused" : "mirrored again");
    } else {
      print_failover(t);
    }
  }
  if (!first_error.empty()) return fail(kCommand, first_error);
  if (r->empty()) return fail(kCommand, "no topic matches --topic");
  return 0;
}

// --mirror M, or every mirror.
std::optional<std::vector<std::string>> described_names(const MirrorArgs& a) {
  if (a.mirror.empty()) return std::nullopt;
  return std::vector<std::string>{a.mirror};
}

int watch(client::SyncClient& c, const MirrorArgs& a) {
  WatchSettings s{a.bootstrap, a.interval_ms.value_or(1000), ::isatty(STDOUT_FILENO) == 1};
  return watch_mirrors(c, described_names(a), s);
}

int describe(client::SyncClient& c, const MirrorArgs& a) {
  if (a.watch) return watch(c, a);
  auto names = described_names(a);
  auto r = c.describe_mirrors(names);
  if (!r.ok()) return fail(kCommand, r.status().message());
  for (const auto& m : r.value()) {
    if (!m.status.ok()) return fail(kCommand, m.status.message());
  }
  fmt::print("{}", a.json ? describe_json(r.value()) : describe_text(r.value(), now_ms()));
  return 0;
}

int run_mirror(const MirrorArgs& a) {
  if (Status s = check_args(a); !s.ok()) return fail(kCommand, s.message());
  auto props = client_properties(a);
  if (!props.ok()) return fail(kCommand, props.status().message());
  auto client = open_client(a.bootstrap, props.value());
  if (!client.ok()) return fail(kCommand, client.status().message());
  client::SyncClient& c = *client.value();
  if (a.create) return create(c, a);
  if (a.remove) return remove(c, a);
  if (a.add || a.failover || a.pause || a.resume) return topics_command(c, a);
  if (a.describe) return describe(c, a);
  return list(c);
}

}  // namespace

void add_mirror_command(CLI::App& app, CommandResult& result) {
  auto a = std::make_shared<MirrorArgs>();
  CLI::App* sub = app.add_subcommand(
      "mirror",
      "Manage mirrors of source clusters: create, add topics, describe, fail over, "
      "delete (like kafka-mirror.sh; kafka-cluster-mirrors.sh's --start, --stop and "
      "--recover are accepted as --add, --remove and --resume)");
  add_bootstrap_option(sub, a->bootstrap);
  sub->add_option("--command-config", a->command_config, "Client properties file");
  sub->add_option("--command-property", a->command_properties, "Client property key=value");
  sub->add_flag("--create", a->create, "Create a mirror (--mirror, --mirror-config)");
  sub->add_flag("--delete", a->remove, "Delete a mirror whose topics are all failed over");
  sub->add_flag("--list", a->list, "List the mirrors");
  sub->add_flag("--add,--start", a->add, "Start mirroring source topics (--mirror, --topic)");
  sub->add_flag("--remove,--stop", a->failover,
                "Fail topics over: stop mirroring them, truncate to the LSO, make writable "
                "(--mirror, --topic)");
  sub->add_flag("--pause", a->pause,
                "Stop fetching topics; they stay read-only (--mirror, --topic)");
  sub->add_flag("--resume,--recover", a->resume,
                "Fetch paused topics again from their log end; recovers FAILED partitions too: "
                "the state they failed in, retries reset (--mirror, --topic)");
  sub->add_flag("--describe", a->describe,
                "Per partition: state, source high watermark, destination log end, lag, LMO, "
                "retries, last error ([--mirror M] [--json | --watch [--interval-ms N]])");
  sub->add_flag("--json", a->json, "With --describe: JSON");
  sub->add_flag("--watch", a->watch,
                "With --describe: redraw the table every second (--interval-ms) until Ctrl-C");
  sub->add_option("--interval-ms", a->interval_ms,
                  "With --watch: milliseconds between two describes (default 1000)");
  sub->add_option("--topic", a->topics,
                  "With --add/--remove/--pause/--resume: a topic name or a regular expression "
                  "(repeatable)");
  sub->add_option("--mirror", a->mirror, "The mirror's name");
  sub->add_option("--mirror-config", a->mirror_config,
                  "Properties file of the mirror's configs (bootstrap.servers, security, "
                  "mirror.*)");
  sub->callback([a, &result] { result.exit_code = run_mirror(*a); });
}

}  // namespace mirra::cli
