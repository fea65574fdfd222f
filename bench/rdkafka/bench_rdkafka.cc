#include "bench_rdkafka.h"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace bench {

void die(const std::string& msg) {
  std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, msg.c_str());
  std::exit(1);
}

long parse_long(const std::string& flag, const char* s, long min) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < min) {
    die(flag + ": expected an integer >= " + std::to_string(min) + ", got '" + s + "'");
  }
  return v;
}

void set(rd_kafka_conf_t* conf, const std::string& key, const std::string& value) {
  char err[512];
  if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
    die(key + "=" + value + ": " + err);
  }
}

rd_kafka_t* new_client(rd_kafka_type_t type, rd_kafka_conf_t* conf) {
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(type, conf, err, sizeof err);
  if (rk == nullptr) die(std::string("rd_kafka_new: ") + err);
  return rk;
}

void create_topic(rd_kafka_t* rk, const std::string& topic, int partitions) {
  char err[512];
  rd_kafka_NewTopic_t* nt = rd_kafka_NewTopic_new(topic.c_str(), partitions, 1, err, sizeof err);
  if (nt == nullptr) die("topic " + topic + ": " + err);
  rd_kafka_queue_t* q = rd_kafka_queue_new(rk);
  rd_kafka_CreateTopics(rk, &nt, 1, nullptr, q);
  rd_kafka_event_t* ev = rd_kafka_queue_poll(q, 10000);
  if (ev == nullptr) die("CreateTopics " + topic + ": no answer within 10 s");
  if (rd_kafka_event_error(ev) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    die("CreateTopics " + topic + ": " + rd_kafka_event_error_string(ev));
  }
  size_t n = 0;
  const rd_kafka_topic_result_t** res =
      rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
  for (size_t i = 0; i < n; ++i) {
    rd_kafka_resp_err_t e = rd_kafka_topic_result_error(res[i]);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR && e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
      const char* msg = rd_kafka_topic_result_error_string(res[i]);
      die("CreateTopics " + topic + ": " + rd_kafka_err2name(e) +
          (msg ? std::string(": ") + msg : ""));
    }
  }
  rd_kafka_event_destroy(ev);
  rd_kafka_queue_destroy(q);
  rd_kafka_NewTopic_destroy(nt);
}

int partition_count(rd_kafka_t* rk, const std::string& topic) {
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, rkt, &md, 10000);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) die("metadata for " + topic + ": " + rd_kafka_err2str(e));
  if (md->topic_cnt != 1 || md->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    die("metadata for " + topic + ": " +
        (md->topic_cnt == 1 ? rd_kafka_err2str(md->topics[0].err) : "topic missing"));
  }
  int n = md->topics[0].partition_cnt;
  rd_kafka_metadata_destroy(md);
  rd_kafka_topic_destroy(rkt);
  return n;
}

CpuTimes cpu_times() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return {s(ru.ru_utime), s(ru.ru_stime)};
}

CpuTimes operator-(const CpuTimes& a, const CpuTimes& b) {
  return {a.user_s - b.user_s, a.system_s - b.system_s};
}

std::string cpu_fields(const CpuTimes& c) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "cpu_s=%.2f cpu_user_s=%.2f cpu_sys_s=%.2f", c.total(), c.user_s,
                c.system_s);
  return buf;
}

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double percentile_ms(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t i = static_cast<size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
  return static_cast<double>(sorted[std::min(i, sorted.size() - 1)]) / 1000.0;
}

}  // namespace bench
