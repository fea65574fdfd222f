// Pieces shared by the benchmark clients on librdkafka's C API (mirra_load_gen, mirra_relay):
// they link no Mirra library, so they measure a broker from the outside, as any Kafka client
// would, and work against Kafka too.
#pragma once

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace bench {

using Clock = std::chrono::steady_clock;

// Prints "<program>: msg" on stderr and exits with 1.
[[noreturn]] void die(const std::string& msg);

// A command-line integer >= min; dies naming the flag otherwise.
long parse_long(const std::string& flag, const char* s, long min);

// rd_kafka_conf_set, dying with librdkafka's message on a bad key or value.
void set(rd_kafka_conf_t* conf, const std::string& key, const std::string& value);

// rd_kafka_new, dying with librdkafka's message.
rd_kafka_t* new_client(rd_kafka_type_t type, rd_kafka_conf_t* conf);

// Creates the topic with this partition count (an existing one is kept as it is), so a run does
// not depend on the broker's num.partitions for auto-created topics.
void create_topic(rd_kafka_t* rk, const std::string& topic, int partitions);

// The topic's partition count from a metadata request; dies if the topic is unknown.
int partition_count(rd_kafka_t* rk, const std::string& topic);

// This process's CPU seconds so far, user and system apart: on a shared VM the system part
// (page faults, copies to and from sockets and files) is the one that moves between runs.
struct CpuTimes {
  double user_s = 0;
  double system_s = 0;
  double total() const { return user_s + system_s; }
};
CpuTimes cpu_times();
CpuTimes operator-(const CpuTimes& a, const CpuTimes& b);
// "cpu_s=T cpu_user_s=U cpu_sys_s=S": the CPU fields of a result line (T = U + S).
std::string cpu_fields(const CpuTimes& c);

double seconds_between(Clock::time_point a, Clock::time_point b);

// The p-th percentile (0..1) of sorted microsecond values, in milliseconds; 0 when empty.
double percentile_ms(const std::vector<int64_t>& sorted, double p);

}  // namespace bench
