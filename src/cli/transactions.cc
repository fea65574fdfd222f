// `mirra transactions`: list and describe transactions, describe a partition's producers, find
// hanging transactions and abort them, like kafka-transactions.sh, with its subcommands, option
// names and columns.
//
// A transaction "hangs" when a partition holds an open transaction that its coordinator does
// not know about (a producer wrote without AddPartitionsToTxn, or the coordinator lost it): its
// last stable offset never moves, and read_committed consumers stop there. find-hanging reports
// such transactions and abort writes the ABORT marker the coordinator never will.
#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/table.h"

namespace mirra::cli {
namespace {

constexpr std::string_view kCommand = "transactions";

struct TransactionsArgs {
  std::string bootstrap;
  std::vector<std::string> command_properties;
  std::string command_config;  // --command-config FILE
  std::string transactional_id;
  std::string topic;
  std::optional<int32_t> partition, broker_id;
  std::optional<int64_t> start_offset, producer_id, duration_filter;
  std::optional<int32_t> producer_epoch, coordinator_epoch;
  int64_t max_transaction_timeout_min = 15;  // Kafka's default
};

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string or_none(int64_t v) { return v < 0 ? "None" : std::to_string(v); }

std::string partitions_text(const std::vector<client::TopicPartition>& tps) {
  std::vector<std::string> items;
  for (const auto& tp : tps) items.push_back(fmt::format("{}-{}", tp.topic, tp.partition));
  return fmt::format("{}", fmt::join(items, ","));
}

int list(client::SyncClient& c, const TransactionsArgs& a) {
  client::TransactionFilter filter;
  if (a.duration_filter) filter.min_duration_ms = *a.duration_filter;
  auto listed = c.list_transactions(filter);
  if (!listed.ok()) return fail(kCommand, listed.status().message());
  if (!listed->errors.empty()) {
    return fail(kCommand, fmt::format("cannot list the transactions of every broker: {}",
                                      listed->errors.front().message()));
  }
  Table table({"TransactionalId", "Coordinator", "ProducerId", "TransactionState"});
  for (const client::TransactionListing& t : listed->transactions) {
    table.add({t.transactional_id, std::to_string(t.coordinator_id), std::to_string(t.producer_id),
               t.state});
  }
  fmt::print("{}", table.render());
  return 0;
}

int describe(client::SyncClient& c, const TransactionsArgs& a) {
  if (a.transactional_id.empty()) return fail(kCommand, "describe needs --transactional-id");
  auto r = c.describe_transactions({a.transactional_id});
  if (!r.ok()) return fail(kCommand, r.status().message());
  const client::TransactionDescription& d = r->front();
  if (!d.status.ok()) return fail(kCommand, d.status.message());
  Table table({"CoordinatorId", "TransactionalId", "ProducerId", "ProducerEpoch",
               "TransactionState", "TransactionTimeoutMs", "CurrentTransactionStartTimeMs",
               "TransactionDurationMs", "TopicPartitions"});
  const int64_t duration = d.start_time_ms < 0 ? -1
                                               : std::max<int64_t>(0, now_ms() - d.start_time_ms);
  table.add({std::to_string(d.coordinator.node_id), d.transactional_id,
             std::to_string(d.producer_id), std::to_string(d.producer_epoch), d.state,
             std::to_string(d.timeout_ms), or_none(d.start_time_ms), or_none(duration),
             partitions_text(d.partitions)});
  fmt::print("{}", table.render());
  return 0;
}

// The one partition of --topic and --partition.
Result<client::TopicPartition> one_partition(const TransactionsArgs& a, std::string_view action) {
  if (a.topic.empty() || !a.partition) {
    return Status(ErrorCode::INVALID_REQUEST,
                  fmt::format("{} needs --topic and --partition", action));
  }
  return client::TopicPartition{a.topic, *a.partition};
}

Result<client::PartitionProducers> producers_of(client::SyncClient& c,
                                                const client::TopicPartition& tp,
                                                std::optional<int32_t> broker_id) {
  auto r = c.describe_producers({tp}, broker_id);
  if (!r.ok()) return r.status();
  if (!r->front().status.ok()) return r->front().status;
  return std::move(r->front());
}

int describe_producers(client::SyncClient& c, const TransactionsArgs& a) {
  auto tp = one_partition(a, "describe-producers");
  if (!tp.ok()) return fail(kCommand, tp.status().message());
  auto p = producers_of(c, tp.value(), a.broker_id);
  if (!p.ok()) return fail(kCommand, p.status().message());
  Table table({"ProducerId", "ProducerEpoch", "LatestCoordinatorEpoch", "LastSequence",
               "LastTimestamp", "CurrentTransactionStartOffset"});
  for (const client::ProducerState& s : p->producers) {
    table.add({std::to_string(s.producer_id), std::to_string(s.producer_epoch),
               std::to_string(s.coordinator_epoch), std::to_string(s.last_sequence),
               std::to_string(s.last_timestamp), or_none(s.current_txn_start_offset)});
  }
  fmt::print("{}", table.render());
  return 0;
}

// The abort of --start-offset (the open transaction found there) or of the explicit
// --producer-id, --producer-epoch and --coordinator-epoch.
Result<client::AbortTransactionSpec> abort_spec(client::SyncClient& c, const TransactionsArgs& a,
                                                const client::TopicPartition& tp) {
  const bool explicit_producer = a.producer_id || a.producer_epoch || a.coordinator_epoch;
  if (a.start_offset.has_value() == explicit_producer) {
    return Status(ErrorCode::INVALID_REQUEST,
                  "abort needs either --start-offset or all of --producer-id, --producer-epoch "
                  "and --coordinator-epoch");
  }
  if (explicit_producer) {
    if (!a.producer_id || !a.producer_epoch || !a.coordinator_epoch) {
      return Status(ErrorCode::INVALID_REQUEST,
                    "abort needs all of --producer-id, --producer-epoch and --coordinator-epoch");
    }
    return client::AbortTransactionSpec{tp, *a.producer_id, static_cast<int16_t>(*a.producer_epoch),
                                        *a.coordinator_epoch};
  }
  auto p = producers_of(c, tp, std::nullopt);
  if (!p.ok()) return p.status();
  for (const client::ProducerState& s : p->producers) {
    if (s.current_txn_start_offset != *a.start_offset) continue;
    // A producer without a marker yet has no coordinator epoch: 0 is the lowest real one.
    return client::AbortTransactionSpec{tp, s.producer_id, static_cast<int16_t>(s.producer_epoch),
                                        std::max(0, s.coordinator_epoch)};
  }
  return Status(ErrorCode::INVALID_REQUEST,
                fmt::format("could not find any open transaction starting at offset {} on "
                            "partition {}",
                            *a.start_offset, client::to_string(tp)));
}

int abort_transaction(client::SyncClient& c, const TransactionsArgs& a) {
  auto tp = one_partition(a, "abort");
  if (!tp.ok()) return fail(kCommand, tp.status().message());
  auto spec = abort_spec(c, a, tp.value());
  if (!spec.ok()) return fail(kCommand, spec.status().message());
  if (Status s = c.abort_transaction(spec.value()); !s.ok()) return fail(kCommand, s.message());
  fmt::print("Aborted the transaction of producer {} (epoch {}) on {}.\n", spec->producer_id,
             spec->producer_epoch, client::to_string(tp.value()));
  return 0;
}

struct OpenTransaction {
  client::TopicPartition tp;
  client::ProducerState producer;
};

// The partitions find-hanging looks at: --topic (one --partition or all), or every partition
// with a replica on --broker-id.
Result<std::vector<client::TopicPartition>> hanging_scope(client::SyncClient& c,
                                                          const TransactionsArgs& a) {
  if (a.topic.empty() == !a.broker_id.has_value()) {
    return Status(ErrorCode::INVALID_REQUEST, "find-hanging needs --topic or --broker-id");
  }
  std::vector<client::TopicPartition> out;
  if (!a.topic.empty()) {
    if (a.partition) return std::vector<client::TopicPartition>{{a.topic, *a.partition}};
    auto t = c.topic(a.topic);
    if (!t.ok()) return t.status();
    for (const auto& p : t->partitions) out.push_back({a.topic, p.partition});
    return out;
  }
  auto md = c.metadata(std::nullopt);
  if (!md.ok()) return md.status();
  for (const auto& t : md->topics) {
    for (const auto& p : t.partitions) {
      if (std::count(p.replicas.begin(), p.replicas.end(), *a.broker_id)) {
        out.push_back({t.name, p.partition});
      }
    }
  }
  return out;
}

// Open transactions older than the longest timeout a coordinator allows: a live one would have
// been aborted by its coordinator by then.
Result<std::vector<OpenTransaction>> old_open_transactions(client::SyncClient& c,
                                                           const TransactionsArgs& a) {
  auto scope = hanging_scope(c, a);
  if (!scope.ok()) return scope.status();
  std::vector<OpenTransaction> out;
  if (scope->empty()) return out;
  auto described = c.describe_producers(scope.value(), a.broker_id);
  if (!described.ok()) return described.status();
  const int64_t max_age_ms = a.max_transaction_timeout_min * 60 * 1000;
  const int64_t now = now_ms();
  for (const client::PartitionProducers& p : described.value()) {
    if (!p.status.ok()) return p.status;
    for (const client::ProducerState& s : p.producers) {
      if (s.current_txn_start_offset >= 0 && now - s.last_timestamp >= max_age_ms) {
        out.push_back({p.tp, s});
      }
    }
  }
  return out;
}

// Whether a coordinator has the producer's transaction open on the partition.
bool coordinator_knows(const OpenTransaction& t,
                       const std::vector<client::TransactionDescription>& descriptions) {
  static const std::set<std::string> kOpen{"Ongoing", "PrepareCommit", "PrepareAbort",
                                           "PrepareEpochFence"};
  return std::any_of(descriptions.begin(), descriptions.end(), [&](const auto& d) {
    return d.status.ok() && d.producer_id == t.producer.producer_id && kOpen.count(d.state) &&
           std::count(d.partitions.begin(), d.partitions.end(), t.tp);
  });
}

int find_hanging(client::SyncClient& c, const TransactionsArgs& a) {
  if (a.max_transaction_timeout_min < 0) {
    return fail(kCommand, "--max-transaction-timeout must not be negative");
  }
  auto open = old_open_transactions(c, a);
  if (!open.ok()) return fail(kCommand, open.status().message());
  std::vector<client::TransactionDescription> descriptions;
  if (!open->empty()) {
    client::TransactionFilter filter;
    for (const OpenTransaction& t : *open) filter.producer_ids.push_back(t.producer.producer_id);
    auto listed = c.list_transactions(filter);
    if (!listed.ok()) return fail(kCommand, listed.status().message());
    if (!listed->errors.empty()) return fail(kCommand, listed->errors.front().message());
    std::vector<std::string> ids;
    for (const auto& l : listed->transactions) ids.push_back(l.transactional_id);
    if (!ids.empty()) {
      auto d = c.describe_transactions(ids);
      if (!d.ok()) return fail(kCommand, d.status().message());
      descriptions = std::move(d.value());
    }
  }
  Table table({"Topic", "Partition", "ProducerId", "ProducerEpoch", "CoordinatorEpoch",
               "StartOffset", "LastTimestamp", "Duration(min)"});
  const int64_t now = now_ms();
  for (const OpenTransaction& t : *open) {
    if (coordinator_knows(t, descriptions)) continue;
    const client::ProducerState& s = t.producer;
    table.add({t.tp.topic, std::to_string(t.tp.partition), std::to_string(s.producer_id),
               std::to_string(s.producer_epoch), std::to_string(s.coordinator_epoch),
               std::to_string(s.current_txn_start_offset), std::to_string(s.last_timestamp),
               std::to_string((now - s.last_timestamp) / 60000)});
  }
  fmt::print("{}", table.render());
  return 0;
}

using Action = int (*)(client::SyncClient&, const TransactionsArgs&);

int run(const TransactionsArgs& a, Action action) {
  auto client = open_client(a.bootstrap, a.command_config, a.command_properties);
  if (!client.ok()) return fail(kCommand, client.status().message());
  return action(*client.value(), a);
}

void add_partition_options(CLI::App* sub, TransactionsArgs& a, bool required) {
  sub->add_option("--topic", a.topic, "The topic")->required(required);
  sub->add_option("--partition", a.partition, "The partition")->required(required);
}

}  // namespace

void add_transactions_command(CLI::App& app, CommandResult& result) {
  auto a = std::make_shared<TransactionsArgs>();
  CLI::App* sub = app.add_subcommand(
      "transactions", "List, describe and abort transactions (like kafka-transactions.sh)");
  add_bootstrap_option(sub, a->bootstrap);
  sub->add_option("--command-property", a->command_properties, "Client property key=value");
  sub->add_option("--command-config", a->command_config,
                  "Client properties file (security.protocol, sasl.*, ssl.*, ...)");
  sub->require_subcommand(1);
  auto action = [&result, a](CLI::App* cmd, Action run_it) {
    cmd->fallthrough();  // --bootstrap-server may follow the subcommand too
    cmd->callback([&result, a, run_it] { result.exit_code = run(*a, run_it); });
  };

  CLI::App* l = sub->add_subcommand("list", "List the transactions of every broker");
  l->add_option("--duration-filter", a->duration_filter,
                "Only transactions open for at least this many milliseconds");
  action(l, list);

  CLI::App* d = sub->add_subcommand("describe", "Describe a transaction (its coordinator's view)");
  d->add_option("--transactional-id", a->transactional_id, "The transactional id")->required();
  action(d, describe);

  CLI::App* dp =
      sub->add_subcommand("describe-producers", "The producers a partition's leader knows");
  add_partition_options(dp, *a, true);
  dp->add_option("--broker-id", a->broker_id, "Ask this broker instead of the leader");
  action(dp, describe_producers);

  CLI::App* ab = sub->add_subcommand("abort", "Abort a hanging transaction on one partition");
  add_partition_options(ab, *a, true);
  ab->add_option("--start-offset", a->start_offset, "The first offset of the open transaction");
  ab->add_option("--producer-id", a->producer_id, "With --producer-epoch, --coordinator-epoch");
  ab->add_option("--producer-epoch", a->producer_epoch, "The producer's epoch");
  ab->add_option("--coordinator-epoch", a->coordinator_epoch, "The coordinator epoch");
  action(ab, abort_transaction);

  CLI::App* fh =
      sub->add_subcommand("find-hanging", "Open transactions their coordinators do not know");
  add_partition_options(fh, *a, false);
  fh->add_option("--broker-id", a->broker_id, "Every partition with a replica on this broker");
  fh->add_option("--max-transaction-timeout", a->max_transaction_timeout_min,
                 "Minutes: only transactions open longer than this (default 15, the broker's "
                 "transaction.max.timeout.ms)");
  action(fh, find_hanging);
}

}  // namespace mirra::cli
