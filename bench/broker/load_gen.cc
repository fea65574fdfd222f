// mirra_load_gen: a broker load generator on librdkafka's C API, so the figures are those an
// ordinary Kafka client sees (and so it works against Kafka too: it uses no Mirra code).
//
//   produce  N records of S bytes as fast as librdkafka takes them, or paced at --rate records/s;
//            records/s and MB/s from the first send to the last delivery report.
//   consume  N records, every partition read from the beginning (no consumer group: the broker
//            has none yet); MB/s from the start of consumption to the N-th record.
//   latency  paced sends at --rate for --seconds; delivery-report latency percentiles.
//
// Each result is one line of key=value pairs on stdout (MB = 10^6 bytes of record values;
// cpu_s = this process's user + system CPU over the measured interval, which stays meaningful
// when the machine is shared and wall-clock figures are not; cpu_user_s and cpu_sys_s are the
// two apart); diagnostics go to stderr. Any delivery or fetch error makes the exit code 1.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench_rdkafka.h"

namespace {

using bench::Clock;
using bench::cpu_fields;
using bench::cpu_times;
using bench::create_topic;
using bench::die;
using bench::parse_long;
using bench::partition_count;
using bench::percentile_ms;
using bench::seconds_between;
using bench::set;

struct Options {
  std::string mode;
  std::string bootstrap;
  std::string topic;
  long records = 0;
  long size = 1024;
  std::string acks = "1";
  int partitions = 1;
  std::string compression = "none";
  long linger_ms = -1;  // -1: the mode's default (5 for produce, 0 for latency)
  long batch_size = 0;  // 0: librdkafka's default
  long rate = -1;       // -1: the mode's default (unpaced for produce, 5000 msg/s for latency)
  long seconds = 10;
  std::vector<std::pair<std::string, std::string>> extra;  // --set key=value
};

const char kUsage[] =
    "usage: mirra_load_gen produce --bootstrap H:P --topic T --records N --size S\n"
    "                              [--acks 1] [--partitions P] [--compression none]\n"
    "                              [--linger-ms 5] [--batch-size BYTES] [--rate RECORDS_PER_S]\n"
    "                              [--set key=value]...\n"
    "       mirra_load_gen consume --bootstrap H:P --topic T --records N [--set key=value]...\n"
    "       mirra_load_gen latency --bootstrap H:P --topic T [--rate 5000] [--seconds 10]\n"
    "                              [--size 1024] [--acks 1] [--partitions P] [--linger-ms 0]\n";

Options parse_args(int argc, char** argv) {
  if (argc < 2) die(std::string("missing mode\n") + kUsage);
  Options o;
  o.mode = argv[1];
  if (o.mode != "produce" && o.mode != "consume" && o.mode != "latency") {
    die("unknown mode '" + o.mode + "' (expected produce, consume or latency)");
  }
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) die(flag + ": missing value");
    const char* v = argv[++i];
    if (flag == "--bootstrap") o.bootstrap = v;
    else if (flag == "--topic") o.topic = v;
    else if (flag == "--records") o.records = parse_long(flag, v, 1);
    else if (flag == "--size") o.size = parse_long(flag, v, 0);
    else if (flag == "--acks") o.acks = v;
    else if (flag == "--partitions") o.partitions = static_cast<int>(parse_long(flag, v, 1));
    else if (flag == "--compression") o.compression = v;
    else if (flag == "--linger-ms") o.linger_ms = parse_long(flag, v, 0);
    else if (flag == "--batch-size") o.batch_size = parse_long(flag, v, 1);
    else if (flag == "--rate") o.rate = parse_long(flag, v, 1);
    else if (flag == "--seconds") o.seconds = parse_long(flag, v, 1);
    else if (flag == "--set") {
      const char* eq = std::strchr(v, '=');
      if (eq == nullptr || eq == v) die("--set: expected key=value, got '" + std::string(v) + "'");
      o.extra.emplace_back(std::string(v, eq), std::string(eq + 1));
    } else {
      die("unknown option '" + flag + "' (run without arguments for the usage)");
    }
  }
  if (o.bootstrap.empty()) die("--bootstrap is required");
  if (o.topic.empty()) die("--topic is required");
  if (o.mode != "latency" && o.records == 0) die("--records is required");
  if (o.linger_ms < 0) o.linger_ms = o.mode == "latency" ? 0 : 5;
  if (o.rate < 0) o.rate = o.mode == "latency" ? 5000 : 0;
  return o;
}

rd_kafka_conf_t* base_conf(const Options& o) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", o.bootstrap);
  set(conf, "client.id", "mirra_load_gen");
  return conf;
}

// --set comes last so it can override anything this tool sets.
rd_kafka_t* new_client(rd_kafka_type_t type, rd_kafka_conf_t* conf, const Options& o) {
  for (const auto& [k, v] : o.extra) set(conf, k, v);
  return bench::new_client(type, conf);
}

// ---- payloads -------------------------------------------------------------------------------

// A pool of pseudo-random bytes (xorshift: not compressible, cheap); record i's value is a
// window into it at a shifting offset, so values differ without generating bytes per record.
class Payloads {
 public:
  explicit Payloads(size_t size) : size_(size), pool_(size + kSpan) {
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (auto& b : pool_) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      b = static_cast<char>(x >> 56);
    }
  }
  char* value(long i) { return pool_.data() + (static_cast<size_t>(i) * 4099) % kSpan; }
  size_t size() const { return size_; }

 private:
  static constexpr size_t kSpan = 1 << 20;
  size_t size_;
  std::vector<char> pool_;
};

// ---- produce --------------------------------------------------------------------------------

struct ProduceStats {
  std::atomic<long> delivered{0};
  std::atomic<long> errors{0};
  long expected = 0;
  Clock::time_point last_delivery;
  std::vector<Clock::time_point>* sent_at = nullptr;  // latency mode only
  std::vector<int64_t> latency_us;                    // latency mode only
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  auto* st = static_cast<ProduceStats*>(opaque);
  const auto now = Clock::now();
  if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    // Print the first few only: a dead broker would otherwise print one line per record.
    if (st->errors.fetch_add(1) < 5) {
      std::fprintf(stderr, "mirra_load_gen: delivery failed: %s\n", rd_kafka_err2str(m->err));
    }
  } else if (st->sent_at != nullptr) {
    const auto idx = reinterpret_cast<intptr_t>(m->_private);
    st->latency_us.push_back(
        std::chrono::duration_cast<std::chrono::microseconds>(now - (*st->sent_at)[idx]).count());
  }
  if (st->delivered.fetch_add(1) + 1 == st->expected) st->last_delivery = now;
}

rd_kafka_t* new_producer(const Options& o, ProduceStats* st) {
  rd_kafka_conf_t* conf = base_conf(o);
  set(conf, "acks", o.acks);
  set(conf, "compression.type", o.compression);
  set(conf, "linger.ms", std::to_string(o.linger_ms));
  if (o.batch_size > 0) set(conf, "batch.size", std::to_string(o.batch_size));
  set(conf, "queue.buffering.max.messages", "1000000");
  rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  rd_kafka_conf_set_opaque(conf, st);
  return new_client(RD_KAFKA_PRODUCER, conf, o);
}

// Enqueues one record, serving delivery reports while librdkafka's queue is full. The value is
// not copied (no RD_KAFKA_MSG_F_COPY): the pool outlives the producer.
void send(rd_kafka_t* rk, const Options& o, char* value, size_t len, int32_t partition,
          void* opaque) {
  for (;;) {
    rd_kafka_resp_err_t e =
        rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(o.topic.c_str()), RD_KAFKA_V_PARTITION(partition),
                          RD_KAFKA_V_VALUE(value, len), RD_KAFKA_V_OPAQUE(opaque), RD_KAFKA_V_END);
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR) return;
    if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) die(std::string("produce: ") + rd_kafka_err2str(e));
    rd_kafka_poll(rk, 1);
  }
}

// Waits for every outstanding delivery report; dies if they do not come within a minute.
void flush_all(rd_kafka_t* rk) {
  if (rd_kafka_flush(rk, 60000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    die("flush: " + std::to_string(rd_kafka_outq_len(rk)) + " records undelivered after 60 s");
  }
}

int run_produce(const Options& o) {
  ProduceStats st;
  st.expected = o.records;
  rd_kafka_t* rk = new_producer(o, &st);
  create_topic(rk, o.topic, o.partitions);
  const int parts = partition_count(rk, o.topic);
  Payloads pay(static_cast<size_t>(o.size));

  const bench::CpuTimes cpu0 = cpu_times();
  const auto start = Clock::now();
  const auto interval = std::chrono::nanoseconds(o.rate > 0 ? 1'000'000'000 / o.rate : 0);
  for (long i = 0; i < o.records; ++i) {
    // Paced in steps of 16 records: one sleep per record would cost more than the send.
    if (o.rate > 0 && (i & 15) == 0) std::this_thread::sleep_until(start + i * interval);
    // Round robin rather than librdkafka's sticky partitioner, so every partition gets an even
    // share whatever the run's length.
    send(rk, o, pay.value(i), pay.size(), static_cast<int32_t>(i % parts), nullptr);
    if ((i & 1023) == 0) rd_kafka_poll(rk, 0);
  }
  flush_all(rk);
  const bench::CpuTimes cpu = cpu_times() - cpu0;
  const double secs = seconds_between(start, st.last_delivery);
  const double bytes = static_cast<double>(o.records) * o.size;
  std::printf(
      "mode=produce topic=%s records=%ld size=%ld partitions=%d acks=%s compression=%s "
      "linger_ms=%ld rate=%ld seconds=%.3f records_per_s=%.0f mb_per_s=%.1f %s "
      "errors=%ld\n",
      o.topic.c_str(), o.records, o.size, parts, o.acks.c_str(), o.compression.c_str(), o.linger_ms,
      o.rate, secs, o.records / secs, bytes / secs / 1e6, cpu_fields(cpu).c_str(),
      st.errors.load());
  rd_kafka_destroy(rk);
  return st.errors.load() == 0 ? 0 : 1;
}

// ---- latency --------------------------------------------------------------------------------

int run_latency(const Options& o) {
  const long total = o.rate * o.seconds;
  std::vector<Clock::time_point> sent_at(static_cast<size_t>(total));
  ProduceStats st;
  st.expected = total;
  rd_kafka_t* rk = new_producer(o, &st);
  create_topic(rk, o.topic, o.partitions);
  const int parts = partition_count(rk, o.topic);
  Payloads pay(static_cast<size_t>(o.size));

  // One record first, so connecting and the partition's first append are not in the figures.
  send(rk, o, pay.value(0), pay.size(), 0, nullptr);
  flush_all(rk);
  if (st.errors.load() != 0) die("warm-up record was not delivered");
  st.delivered = 0;
  st.sent_at = &sent_at;
  st.latency_us.reserve(static_cast<size_t>(total));

  // Delivery reports are served by their own thread, which sleeps in rd_kafka_poll until one
  // arrives: polling between paced sends would add up to one send interval to every figure.
  std::atomic<bool> done{false};
  std::thread poller([&] {
    while (!done.load()) rd_kafka_poll(rk, 50);
  });
  const auto interval = std::chrono::nanoseconds(1'000'000'000 / o.rate);
  const bench::CpuTimes cpu0 = cpu_times();
  const auto start = Clock::now();
  for (long i = 0; i < total; ++i) {
    // Sends stay on the schedule even after a stall (no catching up by skipping), so a slow
    // broker shows as queueing latency, as for a real producer at this rate.
    std::this_thread::sleep_until(start + i * interval);
    sent_at[static_cast<size_t>(i)] = Clock::now();
    send(rk, o, pay.value(i), pay.size(), static_cast<int32_t>(i % parts),
         reinterpret_cast<void*>(static_cast<intptr_t>(i)));
  }
  const double send_secs = seconds_between(start, Clock::now());
  while (st.delivered.load() < total && seconds_between(start, Clock::now()) < o.seconds + 60) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const bench::CpuTimes cpu = cpu_times() - cpu0;
  done = true;
  poller.join();
  if (st.delivered.load() < total) die("latency: records undelivered 60 s after the last send");

  std::vector<int64_t>& lat = st.latency_us;
  std::sort(lat.begin(), lat.end());
  std::printf(
      "mode=latency topic=%s rate=%ld achieved_rate=%.0f seconds=%ld size=%ld "
      "partitions=%d acks=%s linger_ms=%ld sent=%ld errors=%ld p50_ms=%.3f p99_ms=%.3f "
      "p999_ms=%.3f max_ms=%.3f seconds_total=%.3f %s\n",
      o.topic.c_str(), o.rate, total / send_secs, o.seconds, o.size, parts, o.acks.c_str(),
      o.linger_ms, total, st.errors.load(), percentile_ms(lat, 0.50), percentile_ms(lat, 0.99),
      percentile_ms(lat, 0.999), lat.empty() ? 0.0 : static_cast<double>(lat.back()) / 1000.0,
      seconds_between(start, Clock::now()), cpu_fields(cpu).c_str());
  rd_kafka_destroy(rk);
  return st.errors.load() == 0 ? 0 : 1;
}

// ---- consume --------------------------------------------------------------------------------

int run_consume(const Options& o) {
  rd_kafka_conf_t* conf = base_conf(o);
  // librdkafka's high-level consumer needs a group even for manual assignment, and the broker
  // has no groups yet: the simple consumer (one consume_start per partition, one shared queue)
  // needs none. No offsets are stored, so nothing is committed anywhere.
  set(conf, "enable.auto.offset.store", "false");
  set(conf, "enable.partition.eof", "false");
  rd_kafka_t* rk = new_client(RD_KAFKA_CONSUMER, conf, o);
  const int parts = partition_count(rk, o.topic);
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, o.topic.c_str(), nullptr);
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk);

  const bench::CpuTimes cpu0 = cpu_times();
  const auto start = Clock::now();
  for (int p = 0; p < parts; ++p) {
    if (rd_kafka_consume_start_queue(rkt, p, RD_KAFKA_OFFSET_BEGINNING, q) != 0) {
      die("consume_start " + o.topic + "-" + std::to_string(p) + ": " +
          rd_kafka_err2str(rd_kafka_last_error()));
    }
  }
  long got = 0, errors = 0;
  double bytes = 0;
  auto last_progress = Clock::now();
  std::vector<rd_kafka_message_t*> batch(1024);
  while (got < o.records) {
    const ssize_t n = rd_kafka_consume_batch_queue(q, 100, batch.data(), batch.size());
    const auto now = Clock::now();
    if (n < 0) die(std::string("consume: ") + rd_kafka_err2str(rd_kafka_last_error()));
    for (ssize_t i = 0; i < n; ++i) {
      rd_kafka_message_t* m = batch[static_cast<size_t>(i)];
      if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (errors++ < 5) {
          std::fprintf(stderr, "mirra_load_gen: consume: %s\n", rd_kafka_message_errstr(m));
        }
      } else {
        ++got;
        bytes += static_cast<double>(m->len);
        last_progress = now;
      }
      rd_kafka_message_destroy(m);
    }
    if (n == 0 && seconds_between(last_progress, now) > 10) {
      std::fprintf(stderr, "mirra_load_gen: consume: no record for 10 s after %ld of %ld\n", got,
                   o.records);
      ++errors;
      break;
    }
  }
  const bench::CpuTimes cpu = cpu_times() - cpu0;
  const double secs = seconds_between(start, last_progress);
  std::printf(
      "mode=consume topic=%s records=%ld partitions=%d seconds=%.3f records_per_s=%.0f "
      "mb_per_s=%.1f %s errors=%ld\n",
      o.topic.c_str(), got, parts, secs, got / secs, bytes / secs / 1e6, cpu_fields(cpu).c_str(),
      errors);
  for (int p = 0; p < parts; ++p) rd_kafka_consume_stop(rkt, p);
  rd_kafka_queue_destroy(q);
  rd_kafka_topic_destroy(rkt);
  rd_kafka_destroy(rk);
  return errors == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_args(argc, argv);
  if (o.mode == "produce") return run_produce(o);
  if (o.mode == "consume") return run_consume(o);
  return run_latency(o);
}
