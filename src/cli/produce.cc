// `mirra produce`: lines from stdin to a topic, like kafka-console-producer.sh.
//
// Records are batched per partition up to --batch-size bytes and sent when a batch is full,
// when stdin has no further complete line ready (so interactive typing is sent at once), and
// at end of input. Without --partition, keyed records go where Kafka's default partitioner
// would put them (murmur2) and unkeyed ones stick to one partition per batch.
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <map>

#include <fmt/core.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "cli/line_format.h"
#include "protocol/records/batch_builder.h"

namespace mirra::cli {
namespace {

constexpr std::string_view kCommand = "produce";

struct ProduceArgs {
  std::string bootstrap;
  std::string topic;
  std::vector<std::string> properties;
  std::vector<std::string> producer_properties;
  std::string producer_config;  // --producer.config / --command-config FILE
  std::optional<int32_t> partition;
  std::optional<std::string> compression;
  std::string acks = "-1";
  int64_t batch_size = 16384;
  int64_t request_timeout_ms = 1500;
};

// Reads stdin by lines with read(2), so it can tell whether another line is ready already.
class LineReader {
 public:
  // False at end of input. A final line without '\n' still counts; "\r\n" ends a line too.
  bool next(std::string& line) {
    while (true) {
      const size_t nl = buf_.find('\n', pos_);
      if (nl != std::string::npos) {
        line.assign(buf_, pos_, nl - pos_);
        pos_ = nl + 1;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        return true;
      }
      if (eof_) {
        if (pos_ >= buf_.size()) return false;
        line.assign(buf_, pos_);
        pos_ = buf_.size();
        return true;
      }
      fill();
    }
  }
  // True when next() would not block.
  bool ready() const {
    if (eof_ || buf_.find('\n', pos_) != std::string::npos) return true;
    pollfd fd{0, POLLIN, 0};
    return ::poll(&fd, 1, 0) > 0;
  }

 private:
  void fill() {
    buf_.erase(0, pos_);
    pos_ = 0;
    char chunk[65536];
    const ssize_t n = ::read(0, chunk, sizeof chunk);
    if (n <= 0) {
      eof_ = true;
      return;
    }
    buf_.append(chunk, static_cast<size_t>(n));
  }

  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
};

class Producer {
 public:
  Producer(client::SyncClient& client, std::string topic, int32_t partitions,
           records::Compression codec, client::ProduceOptions options)
      : client_(client),
        topic_(std::move(topic)),
        partitions_(partitions),
        codec_(codec),
        options_(options) {}

  int32_t partition_for(const LineRecord& r) const {
    if (!r.key) return sticky_;
    return (murmur2(r.key->data(), r.key->size()) & 0x7fffffff) % partitions_;
  }

  void add(int32_t partition, LineRecord r) {
    pending_bytes_[partition] += (r.key ? r.key->size() : 0) + (r.value ? r.value->size() : 0) + 16;
    for (const auto& [k, v] : r.headers)
      pending_bytes_[partition] += k.size() + (v ? v->size() : 0);
    pending_[partition].push_back(std::move(r));
  }
  size_t pending_bytes(int32_t partition) { return pending_bytes_[partition]; }

  Status flush() {
    if (pending_.empty()) return Status::OK();
    std::vector<client::ProduceBatch> batches;
    for (auto& [partition, recs] : pending_) {
      auto batch = build(recs);
      if (!batch.ok()) return batch.status();
      batches.push_back({{topic_, partition}, std::move(batch.value())});
    }
    pending_.clear();
    pending_bytes_.clear();
    sticky_ = (sticky_ + 1) % partitions_;
    auto results = client_.produce(std::move(batches), options_);
    if (!results.ok()) return results.status();
    for (const auto& r : *results) {
      if (!r.status.ok()) return r.status;
    }
    return Status::OK();
  }

 private:
  Result<protocol::Bytes> build(const std::vector<LineRecord>& recs) const {
    records::BatchOptions bo;
    bo.compression = codec_;
    records::BatchBuilder builder(bo);
    const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    auto bytes = [](const std::optional<std::string>& s) -> records::NullableBytes {
      if (!s) return std::nullopt;
      return records::Bytes(reinterpret_cast<const uint8_t*>(s->data()), s->size());
    };
    for (const LineRecord& r : recs) {
      std::vector<records::HeaderInput> headers;
      for (const auto& [k, v] : r.headers) headers.push_back({k, bytes(v)});
      records::RecordInput in;
      in.key = bytes(r.key);
      in.value = bytes(r.value);
      in.timestamp = now;
      in.headers = headers;
      if (Status s = builder.append(in); !s.ok()) return s;
    }
    return builder.finish();
  }

  client::SyncClient& client_;
  std::string topic_;
  int32_t partitions_;
  records::Compression codec_;
  client::ProduceOptions options_;
  std::map<int32_t, std::vector<LineRecord>> pending_;
  std::map<int32_t, size_t> pending_bytes_;
  int32_t sticky_ = 0;
};

Result<records::Compression> parse_codec(const std::optional<std::string>& name) {
  if (!name) return records::Compression::none;
  if (name->empty()) return records::Compression::gzip;  // Kafka: the flag alone means gzip
  for (int id = 0; id <= 4; ++id) {
    auto c = static_cast<records::Compression>(id);
    if (*name == records::compression_name(c)) return c;
  }
  return Status(
      ErrorCode::INVALID_CONFIG,
      fmt::format("unknown compression codec '{}' (none, gzip, snappy, lz4, zstd)", *name));
}

Result<int16_t> parse_acks(const std::string& text) {
  if (text == "all") return int16_t{-1};
  auto v = parse_int(text, "--request-required-acks");
  if (!v.ok() || (v.value() != -1 && v.value() != 0 && v.value() != 1)) {
    return Status(ErrorCode::INVALID_CONFIG,
                  fmt::format("--request-required-acks must be all, -1, 0 or 1, not '{}'", text));
  }
  return static_cast<int16_t>(v.value());
}

int run_produce(ProduceArgs& a) {
  auto props = parse_properties(a.properties, "--property");
  auto pitems = with_config_file(a.producer_config, "--producer.config", a.producer_properties);
  if (!pitems.ok()) return fail(kCommand, pitems.status().message());
  auto pprops = parse_properties(pitems.value(), "--producer-property");
  if (!props.ok()) return fail(kCommand, props.status().message());
  if (!pprops.ok()) return fail(kCommand, pprops.status().message());
  // --producer-property wins over the dedicated options, as in Kafka's tool.
  if (auto it = pprops->find("acks"); it != pprops->end()) a.acks = it->second;
  if (auto it = pprops->find("compression.type"); it != pprops->end()) a.compression = it->second;
  if (auto it = pprops->find("batch.size"); it != pprops->end()) {
    auto v = parse_int(it->second, "batch.size");
    if (!v.ok()) return fail(kCommand, v.status().message());
    a.batch_size = v.value();
  }
  auto format = LineFormat::from_properties(props.value());
  auto codec = parse_codec(a.compression);
  auto acks = parse_acks(a.acks);
  auto options = client_options(a.bootstrap, pprops.value());
  for (const Status& s : {format.status(), codec.status(), acks.status(), options.status()}) {
    if (!s.ok()) return fail(kCommand, s.message());
  }
  options->allow_auto_topic_creation = true;  // as Kafka's producer
  auto client = client::SyncClient::create(options.value());
  if (!client.ok()) return fail(kCommand, client.status().message());
  auto topic = client.value()->topic(a.topic);
  if (!topic.ok()) return fail(kCommand, topic.status().message());
  const auto partitions = static_cast<int32_t>(topic->partitions.size());
  if (a.partition && (*a.partition < 0 || *a.partition >= partitions)) {
    return fail(kCommand, fmt::format("partition {} does not exist (topic {} has {} partitions)",
                                      *a.partition, a.topic, partitions));
  }
  client::ProduceOptions po;
  po.acks = acks.value();
  po.timeout_ms = static_cast<int32_t>(a.request_timeout_ms);
  Producer producer(*client.value(), a.topic, partitions, codec.value(), po);
  LineReader reader;
  std::string line;
  for (int64_t n = 1; reader.next(line); ++n) {
    auto rec = format->parse(line, n);
    if (!rec.ok()) return fail(kCommand, rec.status().message());
    const int32_t partition = a.partition.value_or(producer.partition_for(rec.value()));
    producer.add(partition, std::move(rec.value()));
    if (producer.pending_bytes(partition) >= static_cast<size_t>(a.batch_size) || !reader.ready()) {
      if (Status s = producer.flush(); !s.ok()) return fail(kCommand, s.message());
    }
  }
  if (Status s = producer.flush(); !s.ok()) return fail(kCommand, s.message());
  return 0;
}

}  // namespace

void add_produce_command(CLI::App& app, CommandResult& result) {
  auto args = std::make_shared<ProduceArgs>();
  CLI::App* sub = app.add_subcommand("produce",
                                     "Write lines from stdin to a topic "
                                     "(like kafka-console-producer.sh)");
  add_bootstrap_option(sub, args->bootstrap);
  sub->add_option("--topic", args->topic, "REQUIRED: the topic to produce to");
  sub->add_option("--property", args->properties,
                  "Line parsing: parse.key, key.separator, parse.headers, headers.delimiter, "
                  "headers.separator, headers.key.separator, null.marker, ignore.error");
  sub->add_option("--producer-property", args->producer_properties,
                  "Producer property key=value (acks, compression.type, batch.size, client.id, "
                  "request.timeout.ms, delivery.timeout.ms, ...)");
  sub->add_option("--producer.config,--command-config", args->producer_config,
                  "Producer properties file (security.protocol, sasl.*, ssl.*, ...)");
  sub->add_option("--partition", args->partition,
                  "Write every record to this partition (Mirra extension)");
  sub->add_option("--compression-codec", args->compression,
                  "none, gzip, snappy, lz4 or zstd (alone: gzip)")
      ->expected(0, 1);
  sub->add_option("--request-required-acks", args->acks, "all/-1, 1 or 0 (default -1)");
  sub->add_option("--batch-size", args->batch_size, "Bytes per partition batch (default 16384)");
  sub->add_option("--request-timeout-ms", args->request_timeout_ms,
                  "The broker's wait for acks (default 1500)");
  sub->callback([args, &result] {
    if (args->topic.empty()) {
      result.exit_code = fail(kCommand, "--topic is required");
      return;
    }
    result.exit_code = run_produce(*args);
  });
}

}  // namespace mirra::cli
