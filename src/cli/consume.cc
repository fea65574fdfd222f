// `mirra consume`: a topic's records to stdout, like kafka-console-consumer.sh.
//
// No consumer groups yet: it reads one partition (--partition) or all of them, starting at the
// latest offset, the earliest (--from-beginning) or --offset. Output follows Kafka's
// DefaultMessageFormatter and its print.* / separator properties.
#include <chrono>
#include <cstdio>

#include <fmt/core.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/record_printer.h"

namespace mirra::cli {
namespace {

constexpr std::string_view kCommand = "consume";
using Clock = std::chrono::steady_clock;

struct ConsumeArgs {
  std::string bootstrap;
  std::string topic;
  std::optional<int32_t> partition;
  std::optional<std::string> offset;
  bool from_beginning = false;
  std::optional<int64_t> max_messages;
  std::optional<int64_t> timeout_ms;
  std::string isolation = "read_uncommitted";
  std::vector<std::string> properties;
  std::vector<std::string> consumer_properties;
  std::string consumer_config;  // --consumer.config / --command-config FILE
};

// The first offset to read: earliest, latest (-1/-2 in ListOffsets terms) or a number.
Result<int64_t> start_spec(const ConsumeArgs& a) {
  if (a.offset && !a.partition) {
    return Status(ErrorCode::INVALID_CONFIG, "The partition is required when offset is specified.");
  }
  if (a.offset && a.from_beginning) {
    return Status(ErrorCode::INVALID_CONFIG,
                  "Options from-beginning and offset cannot be specified together.");
  }
  if (a.from_beginning) return client::kEarliestTimestamp;
  if (!a.offset || *a.offset == "latest") return client::kLatestTimestamp;
  if (*a.offset == "earliest") return client::kEarliestTimestamp;
  auto n = parse_int(*a.offset, "--offset");
  if (!n.ok() || n.value() < 0) {
    return Status(ErrorCode::INVALID_CONFIG,
                  fmt::format("The provided offset value '{}' is incorrect. Valid values are "
                              "'earliest', 'latest', or a non-negative long.",
                              *a.offset));
  }
  return n.value();
}

// Resolves earliest/latest for the positions that need it.
Status resolve(client::SyncClient& client, std::vector<client::FetchPosition>& positions,
               int64_t spec, client::IsolationLevel isolation) {
  if (spec >= 0) {
    for (auto& p : positions) p.offset = spec;
    return Status::OK();
  }
  std::vector<client::OffsetQuery> queries;
  for (const auto& p : positions) queries.push_back({p.tp, spec});
  auto offsets = client.list_offsets(std::move(queries), isolation);
  if (!offsets.ok()) return offsets.status();
  for (size_t i = 0; i < positions.size(); ++i) {
    if (!(*offsets)[i].status.ok()) return (*offsets)[i].status;
    positions[i].offset = (*offsets)[i].offset;
  }
  return Status::OK();
}

int run_consume(const ConsumeArgs& a) {
  auto props = parse_properties(a.properties, "--property");
  auto citems = with_config_file(a.consumer_config, "--consumer.config", a.consumer_properties);
  if (!citems.ok()) return fail(kCommand, citems.status().message());
  auto cprops = parse_properties(citems.value(), "--consumer-property");
  if (!props.ok()) return fail(kCommand, props.status().message());
  if (!cprops.ok()) return fail(kCommand, cprops.status().message());
  auto printer = RecordPrinter::from_properties(props.value());
  auto spec = start_spec(a);
  auto options = client_options(a.bootstrap, cprops.value());
  for (const Status& s : {printer.status(), spec.status(), options.status()}) {
    if (!s.ok()) return fail(kCommand, s.message());
  }
  if (a.isolation != "read_committed" && a.isolation != "read_uncommitted") {
    return fail(kCommand, fmt::format("--isolation-level must be read_committed or "
                                      "read_uncommitted, not '{}'",
                                      a.isolation));
  }
  const auto isolation = a.isolation == "read_committed" ? client::IsolationLevel::read_committed
                                                         : client::IsolationLevel::read_uncommitted;
  auto client = client::SyncClient::create(options.value());
  if (!client.ok()) return fail(kCommand, client.status().message());
  auto topic = client.value()->topic(a.topic);
  if (!topic.ok()) return fail(kCommand, topic.status().message());
  std::vector<client::FetchPosition> positions;
  for (const auto& p : topic->partitions) {
    if (!a.partition || *a.partition == p.partition)
      positions.push_back({{a.topic, p.partition}, 0});
  }
  if (positions.empty()) {
    return fail(kCommand, fmt::format("partition {} does not exist (topic {} has {} partitions)",
                                      *a.partition, a.topic, topic->partitions.size()));
  }
  if (Status s = resolve(*client.value(), positions, spec.value(), isolation); !s.ok()) {
    return fail(kCommand, s.message());
  }
  client::FetchOptions fo;
  fo.isolation = isolation;
  if (a.timeout_ms) fo.max_wait_ms = static_cast<int32_t>(std::min<int64_t>(*a.timeout_ms, 500));
  int64_t printed = 0;
  auto last_record = Clock::now();
  while (!a.max_messages || printed < *a.max_messages) {
    if (a.timeout_ms && Clock::now() - last_record >= std::chrono::milliseconds(*a.timeout_ms))
      break;
    auto fetched = client.value()->fetch(positions, fo);
    if (!fetched.ok()) return fail(kCommand, fetched.status().message());
    for (size_t i = 0; i < positions.size(); ++i) {
      const client::FetchedPartition& f = (*fetched)[i];
      if (f.status.code() == ErrorCode::OFFSET_OUT_OF_RANGE) {
        // Like auto.offset.reset: back to the start (--from-beginning) or the end.
        std::vector<client::FetchPosition> one{positions[i]};
        const int64_t reset = a.from_beginning ? client::kEarliestTimestamp
                                               : client::kLatestTimestamp;
        if (Status s = resolve(*client.value(), one, reset, isolation); !s.ok())
          return fail(kCommand, s.message());
        positions[i].offset = one[0].offset;
        continue;
      }
      // A consumer quota held the fetch back: fetched again once the throttle has passed.
      if (f.status.code() == ErrorCode::THROTTLING_QUOTA_EXCEEDED) continue;
      if (!f.status.ok()) return fail(kCommand, f.status.message());
      const int64_t limit = a.max_messages ? *a.max_messages - printed : -1;
      auto n = printer->print(f, positions[i].offset, limit, stdout);
      if (!n.ok()) return fail(kCommand, n.status().message());
      printed += n.value();
      if (n.value() > 0) last_record = Clock::now();
    }
    std::fflush(stdout);
  }
  fmt::print(stderr, "Processed a total of {} messages\n", printed);
  return 0;
}

}  // namespace

void add_consume_command(CLI::App& app, CommandResult& result) {
  auto args = std::make_shared<ConsumeArgs>();
  CLI::App* sub = app.add_subcommand("consume",
                                     "Print a topic's records "
                                     "(like kafka-console-consumer.sh)");
  add_bootstrap_option(sub, args->bootstrap);
  sub->add_option("--topic", args->topic, "REQUIRED: the topic to consume");
  sub->add_option("--partition", args->partition, "Only this partition (default: all)");
  sub->add_option("--offset", args->offset,
                  "earliest, latest (default) or an offset; needs --partition");
  sub->add_flag("--from-beginning", args->from_beginning, "Start at the earliest offset");
  sub->add_option("--max-messages", args->max_messages, "Exit after this many records");
  sub->add_option("--timeout-ms", args->timeout_ms, "Exit when no record came for this long");
  sub->add_option("--isolation-level", args->isolation,
                  "read_uncommitted (default) or read_committed");
  sub->add_option("--property", args->properties,
                  "Output: print.key, print.value, print.timestamp, print.offset, "
                  "print.partition, print.headers, key.separator, line.separator, "
                  "headers.separator, headers.key.separator, null.literal");
  sub->add_option("--consumer-property", args->consumer_properties,
                  "Consumer property key=value (client.id, request.timeout.ms, "
                  "max.partition.fetch.bytes, ...)");
  sub->add_option("--consumer.config,--command-config", args->consumer_config,
                  "Consumer properties file (security.protocol, sasl.*, ssl.*, ...)");
  sub->callback([args, &result] {
    if (args->topic.empty()) {
      result.exit_code = fail(kCommand, "--topic is required");
      return;
    }
    result.exit_code = run_consume(*args);
  });
}

}  // namespace mirra::cli
