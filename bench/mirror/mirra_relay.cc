// mirra_relay: the clients of the mirroring benchmark (bench/mirror/run.sh), on librdkafka's C API
// and no Mirra code, so they work against Kafka too.
//
//   copy       what MirrorMaker 2 does: a consumer on the source, assigned every partition of the
//              topic from the beginning, feeding a producer into a normal topic on the
//              destination (same partition, key, value, timestamp and headers). It copies what
//              the source holds when it starts (its high watermarks) and stops; MB/s from the
//              first fetch to the last delivery report.
//   lag        reads a topic from the beginning until N records, and for each one takes the
//              wall clock minus the record's timestamp (CreateTime, set by the producer):
//              p50/p99/p99.9/max. On a mirrored topic that is produce -> source -> mirror ->
//              destination -> this consumer; on the source topic it is the same minus the mirror.
//   caught-up  polls the destination's high watermarks every 100 ms until every partition of the
//              topic has the source's (the source must be idle), e.g. while a mirror catches up.
//
// Each result is one line of key=value pairs on stdout (MB = 10^6 bytes of record values; cpu_s
// = this process's user + system CPU, cpu_user_s and cpu_sys_s the two apart); diagnostics go
// to stderr. Any delivery or fetch error, or no progress for --stall-seconds, makes the exit
// code 1.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench_rdkafka.h"

namespace {

using bench::Clock;
using bench::die;
using bench::seconds_between;
using bench::set;
using Settings = std::vector<std::pair<std::string, std::string>>;

struct Options {
  std::string mode;
  std::string source;       // copy, caught-up
  std::string destination;  // copy, caught-up
  std::string bootstrap;    // lag
  std::string topic;
  std::string to_topic;    // copy, caught-up: the destination's topic (default: --topic)
  long records = 0;        // lag
  std::string ready_file;  // lag: created once every partition has been read to its end once
  long stall_seconds = 60;
  Settings consumer_set, producer_set;  // copy: --consumer-set / --producer-set key=value
};

const char kUsage[] =
    "usage: mirra_relay copy --source H:P --destination H:P --topic T [--to-topic T2]\n"
    "                        [--consumer-set key=value]... [--producer-set key=value]...\n"
    "       mirra_relay lag --bootstrap H:P --topic T --records N [--ready-file F]\n"
    "       mirra_relay caught-up --source H:P --destination H:P --topic T [--to-topic T2]\n"
    "       (every mode: [--stall-seconds 60])\n";

std::pair<std::string, std::string> key_value(const std::string& flag, const char* v) {
  const char* eq = std::strchr(v, '=');
  if (eq == nullptr || eq == v) die(flag + ": expected key=value, got '" + v + "'");
  return {std::string(v, eq), std::string(eq + 1)};
}

Options parse_args(int argc, char** argv) {
  if (argc < 2) die(std::string("missing mode\n") + kUsage);
  Options o;
  o.mode = argv[1];
  if (o.mode != "copy" && o.mode != "lag" && o.mode != "caught-up") {
    die("unknown mode '" + o.mode + "' (expected copy, lag or caught-up)");
  }
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) die(flag + ": missing value");
    const char* v = argv[++i];
    if (flag == "--source") o.source = v;
    else if (flag == "--destination") o.destination = v;
    else if (flag == "--bootstrap") o.bootstrap = v;
    else if (flag == "--topic") o.topic = v;
    else if (flag == "--to-topic") o.to_topic = v;
    else if (flag == "--records") o.records = bench::parse_long(flag, v, 1);
    else if (flag == "--ready-file") o.ready_file = v;
    else if (flag == "--stall-seconds") o.stall_seconds = bench::parse_long(flag, v, 1);
    else if (flag == "--consumer-set") o.consumer_set.push_back(key_value(flag, v));
    else if (flag == "--producer-set") o.producer_set.push_back(key_value(flag, v));
    else die("unknown option '" + flag + "' (run without arguments for the usage)");
  }
  if (o.topic.empty()) die("--topic is required");
  if (o.to_topic.empty()) o.to_topic = o.topic;
  if (o.mode == "lag") {
    if (o.bootstrap.empty()) die("lag: --bootstrap is required");
    if (o.records == 0) die("lag: --records is required");
  } else if (o.source.empty() || o.destination.empty()) {
    die(o.mode + ": --source and --destination are required");
  }
  return o;
}

rd_kafka_conf_t* conf_for(const std::string& bootstrap) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstrap);
  set(conf, "client.id", "mirra_relay");
  return conf;
}

// The legacy (simple) consumer: every partition assigned by hand, as MirrorMaker 2's source task
// assigns its partitions rather than subscribing, and no group or committed offsets needed.
struct PartitionReader {
  rd_kafka_t* rk = nullptr;
  rd_kafka_topic_t* rkt = nullptr;
  rd_kafka_queue_t* queue = nullptr;
  int partitions = 0;

  PartitionReader(rd_kafka_conf_t* conf, const std::string& topic) {
    set(conf, "enable.auto.offset.store", "false");
    rk = bench::new_client(RD_KAFKA_CONSUMER, conf);
    partitions = bench::partition_count(rk, topic);
    rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
    queue = rd_kafka_queue_new(rk);
  }
  void start_all() {
    for (int p = 0; p < partitions; ++p) {
      if (rd_kafka_consume_start_queue(rkt, p, RD_KAFKA_OFFSET_BEGINNING, queue) != 0) {
        die(std::string("consume_start ") + rd_kafka_topic_name(rkt) + "-" + std::to_string(p) +
            ": " + rd_kafka_err2str(rd_kafka_last_error()));
      }
    }
  }
  ~PartitionReader() {
    for (int p = 0; p < partitions; ++p) rd_kafka_consume_stop(rkt, p);
    rd_kafka_queue_destroy(queue);
    rd_kafka_topic_destroy(rkt);
    rd_kafka_destroy(rk);
  }
};

// Each partition's high watermark, in one ListOffsets request per leader (timestamp -1 is
// "latest"), not one round trip per partition: with 1,000 partitions polled every 100 ms the
// latter would load the brokers it measures. A topic the broker does not know yet counts as
// empty.
std::vector<int64_t> high_watermarks(rd_kafka_t* rk, const std::string& topic, int partitions) {
  std::vector<int64_t> hw(static_cast<size_t>(partitions), 0);
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; ++p) {
    rd_kafka_topic_partition_list_add(list, topic.c_str(), p)->offset = RD_KAFKA_OFFSET_END;
  }
  const rd_kafka_resp_err_t e = rd_kafka_offsets_for_times(rk, list, 10000);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR && e != RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
    die("watermarks of " + topic + ": " + rd_kafka_err2str(e));
  }
  for (int i = 0; e == RD_KAFKA_RESP_ERR_NO_ERROR && i < list->cnt; ++i) {
    const rd_kafka_topic_partition_t& tp = list->elems[i];
    if (tp.err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      hw[static_cast<size_t>(tp.partition)] = tp.offset;
    } else if (tp.err != RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
      die("watermarks of " + topic + "-" + std::to_string(tp.partition) + ": " +
          rd_kafka_err2str(tp.err));
    }
  }
  rd_kafka_topic_partition_list_destroy(list);
  return hw;
}

int64_t sum(const std::vector<int64_t>& v) {
  int64_t s = 0;
  for (int64_t x : v) s += x;
  return s;
}

// ---- copy -----------------------------------------------------------------------------------

struct CopyStats {
  long delivered = 0;
  long errors = 0;
  Clock::time_point last_delivery;
};

// The consumer's message rides along as the produced record's opaque: its value and key are
// sent without a copy and freed once delivered.
void on_copied(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* st = static_cast<CopyStats*>(opaque);
  if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR && st->errors++ < 5) {
    std::fprintf(stderr, "mirra_relay: delivery failed: %s\n", rd_kafka_err2str(m->err));
  }
  ++st->delivered;
  st->last_delivery = Clock::now();
  rd_kafka_message_destroy(static_cast<rd_kafka_message_t*>(m->_private));
}

// MirrorMaker 2 runs on Kafka Connect, whose producers use acks=all and (Kafka >= 3.0)
// idempotence; lz4 as the source batches are. Batching is librdkafka's (linger.ms=5, batches up
// to 1 MB), which is kinder to the relay than Java's 16 KiB default.
rd_kafka_t* new_relay_producer(const Options& o, CopyStats* st) {
  rd_kafka_conf_t* conf = conf_for(o.destination);
  set(conf, "acks", "all");
  set(conf, "enable.idempotence", "true");
  set(conf, "compression.type", "lz4");
  rd_kafka_conf_set_dr_msg_cb(conf, on_copied);
  rd_kafka_conf_set_opaque(conf, st);
  for (const auto& [k, v] : o.producer_set) set(conf, k, v);
  return bench::new_client(RD_KAFKA_PRODUCER, conf);
}

// Produces one consumed record to the same partition of the destination topic, serving delivery
// reports while the producer's queue is full (the consumer waits meanwhile: back pressure).
void relay(rd_kafka_t* producer, const std::string& to_topic, rd_kafka_message_t* m) {
  rd_kafka_headers_t* headers = nullptr;
  rd_kafka_message_headers(m, &headers);
  rd_kafka_timestamp_type_t ts_type;
  const int64_t ts = rd_kafka_message_timestamp(m, &ts_type);
  for (;;) {
    rd_kafka_headers_t* copy = headers != nullptr ? rd_kafka_headers_copy(headers) : nullptr;
    rd_kafka_resp_err_t e = rd_kafka_producev(
        producer, RD_KAFKA_V_TOPIC(to_topic.c_str()), RD_KAFKA_V_PARTITION(m->partition),
        RD_KAFKA_V_VALUE(m->payload, m->len), RD_KAFKA_V_KEY(m->key, m->key_len),
        RD_KAFKA_V_TIMESTAMP(ts), RD_KAFKA_V_HEADERS(copy), RD_KAFKA_V_OPAQUE(m), RD_KAFKA_V_END);
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR) return;  // the producer owns the headers now
    if (copy != nullptr) rd_kafka_headers_destroy(copy);
    if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) die(std::string("produce: ") + rd_kafka_err2str(e));
    rd_kafka_poll(producer, 10);
  }
}

int run_copy(const Options& o) {
  rd_kafka_conf_t* cconf = conf_for(o.source);
  set(cconf, "enable.partition.eof", "false");
  for (const auto& [k, v] : o.consumer_set) set(cconf, k, v);
  PartitionReader source(cconf, o.topic);
  const std::vector<int64_t> end = high_watermarks(source.rk, o.topic, source.partitions);
  CopyStats st;
  rd_kafka_t* producer = new_relay_producer(o, &st);
  bench::create_topic(producer, o.to_topic, source.partitions);

  std::vector<int64_t> next(end.size(), 0);  // per partition: the offset after the last consumed
  long consumed = 0, fetch_errors = 0;
  double bytes = 0;
  const bench::CpuTimes cpu0 = bench::cpu_times();
  const auto start = Clock::now();
  auto last_progress = start;
  source.start_all();
  std::vector<rd_kafka_message_t*> batch(1024);
  while (next != end) {
    const ssize_t n = rd_kafka_consume_batch_queue(source.queue, 100, batch.data(), batch.size());
    if (n < 0) die(std::string("consume: ") + rd_kafka_err2str(rd_kafka_last_error()));
    for (ssize_t i = 0; i < n; ++i) {
      rd_kafka_message_t* m = batch[static_cast<size_t>(i)];
      if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (fetch_errors++ < 5)
          std::fprintf(stderr, "mirra_relay: consume: %s\n", rd_kafka_message_errstr(m));
        rd_kafka_message_destroy(m);
        continue;
      }
      next[static_cast<size_t>(m->partition)] = m->offset + 1;
      ++consumed;
      bytes += static_cast<double>(m->len);
      relay(producer, o.to_topic, m);
    }
    rd_kafka_poll(producer, 0);
    if (n > 0) last_progress = Clock::now();
    if (seconds_between(last_progress, Clock::now()) > static_cast<double>(o.stall_seconds)) {
      die("copy: no record for " + std::to_string(o.stall_seconds) + " s after " +
          std::to_string(consumed) + " of " + std::to_string(sum(end)));
    }
  }
  if (rd_kafka_flush(producer, 60000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    die("flush: " + std::to_string(rd_kafka_outq_len(producer)) +
        " records undelivered after 60 s");
  }
  const bench::CpuTimes cpu = bench::cpu_times() - cpu0;
  const double secs = seconds_between(start, st.last_delivery);
  std::printf(
      "mode=copy topic=%s to_topic=%s partitions=%d records=%ld seconds=%.3f "
      "records_per_s=%.0f mb_per_s=%.1f %s errors=%ld\n",
      o.topic.c_str(), o.to_topic.c_str(), source.partitions, consumed, secs, consumed / secs,
      bytes / secs / 1e6, bench::cpu_fields(cpu).c_str(), st.errors + fetch_errors);
  rd_kafka_destroy(producer);
  return st.errors + fetch_errors == 0 ? 0 : 1;
}

// ---- lag ------------------------------------------------------------------------------------

struct LagStats {
  std::vector<int64_t> lag_us;
  long errors = 0;
  long eof_partitions = 0;
  bool log_append_time = false;
};

void on_record(rd_kafka_message_t* m, void* opaque) {
  auto* st = static_cast<LagStats*>(opaque);
  const int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
    ++st->eof_partitions;
  } else if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    if (st->errors++ < 5)
      std::fprintf(stderr, "mirra_relay: consume: %s\n", rd_kafka_message_errstr(m));
  } else {
    rd_kafka_timestamp_type_t type;
    const int64_t ts_ms = rd_kafka_message_timestamp(m, &type);
    if (type == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME) st->log_append_time = true;
    st->lag_us.push_back(now_us - ts_ms * 1000);
  }
}

int run_lag(const Options& o) {
  rd_kafka_conf_t* conf = conf_for(o.bootstrap);
  // EOF events tell when every partition has been fetched once (--ready-file).
  set(conf, "enable.partition.eof", "true");
  PartitionReader reader(conf, o.topic);
  LagStats st;
  st.lag_us.reserve(static_cast<size_t>(o.records));
  const bench::CpuTimes cpu0 = bench::cpu_times();
  reader.start_all();
  bool ready = o.ready_file.empty();
  auto last_progress = Clock::now();
  while (static_cast<long>(st.lag_us.size()) < o.records) {
    // The callback form hands over each record as it arrives; the batch form would hold
    // records back until the batch is full or the timeout ends, and that would count as lag.
    const int n = rd_kafka_consume_callback_queue(reader.queue, 100, on_record, &st);
    if (n < 0) die(std::string("consume: ") + rd_kafka_err2str(rd_kafka_last_error()));
    if (!ready && st.eof_partitions >= reader.partitions) {
      std::ofstream(o.ready_file) << "ready\n";
      ready = true;
    }
    if (n > 0) last_progress = Clock::now();
    if (seconds_between(last_progress, Clock::now()) > static_cast<double>(o.stall_seconds)) {
      std::fprintf(stderr, "mirra_relay: lag: no record for %ld s after %zu of %ld\n",
                   o.stall_seconds, st.lag_us.size(), o.records);
      return 1;
    }
  }
  const bench::CpuTimes cpu = bench::cpu_times() - cpu0;
  if (st.log_append_time)
    std::fprintf(stderr, "mirra_relay: lag: LogAppendTime records: not produce-to-consume lag\n");
  std::vector<int64_t>& lag = st.lag_us;
  std::sort(lag.begin(), lag.end());
  std::printf(
      "mode=lag topic=%s records=%zu p50_ms=%.1f p99_ms=%.1f p999_ms=%.1f max_ms=%.1f "
      "%s errors=%ld\n",
      o.topic.c_str(), lag.size(), bench::percentile_ms(lag, 0.50), bench::percentile_ms(lag, 0.99),
      bench::percentile_ms(lag, 0.999), static_cast<double>(lag.back()) / 1000.0,
      bench::cpu_fields(cpu).c_str(), st.errors);
  return st.errors == 0 && !st.log_append_time ? 0 : 1;
}

// ---- caught-up ------------------------------------------------------------------------------

int run_caught_up(const Options& o) {
  rd_kafka_t* src = bench::new_client(RD_KAFKA_PRODUCER, conf_for(o.source));
  rd_kafka_t* dst = bench::new_client(RD_KAFKA_PRODUCER, conf_for(o.destination));
  const int parts = bench::partition_count(src, o.topic);
  const std::vector<int64_t> target = high_watermarks(src, o.topic, parts);
  const auto start = Clock::now();
  auto last_progress = start;
  int64_t last_sum = -1;
  for (;;) {
    const std::vector<int64_t> now = high_watermarks(dst, o.to_topic, parts);
    if (now == target) break;
    if (sum(now) != last_sum) last_sum = sum(now), last_progress = Clock::now();
    if (seconds_between(last_progress, Clock::now()) > static_cast<double>(o.stall_seconds)) {
      std::fprintf(stderr, "mirra_relay: caught-up: %s stuck at %lld of %lld records for %ld s\n",
                   o.to_topic.c_str(), static_cast<long long>(last_sum),
                   static_cast<long long>(sum(target)), o.stall_seconds);
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::printf("mode=caught_up topic=%s to_topic=%s partitions=%d records=%lld seconds=%.3f\n",
              o.topic.c_str(), o.to_topic.c_str(), parts, static_cast<long long>(sum(target)),
              seconds_between(start, Clock::now()));
  rd_kafka_destroy(dst);
  rd_kafka_destroy(src);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_args(argc, argv);
  if (o.mode == "copy") return run_copy(o);
  if (o.mode == "lag") return run_lag(o);
  return run_caught_up(o);
}
