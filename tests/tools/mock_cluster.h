// librdkafka's mock cluster (rdkafka_mock.h) behind a small RAII class: a Kafka-compatible
// cluster that Mirra did not write, for client tests now and mirroring tests later.
//
// The mock runs on librdkafka's own threads; every call here is synchronous. It serves
// ApiVersions, Metadata, Produce, Fetch, ListOffsets and the group/transaction APIs, but no
// admin APIs (topics are made with create_topic()).
#pragma once

#include <cstdint>
#include <string>

struct rd_kafka_s;
struct rd_kafka_mock_cluster_s;

namespace mirra::testing {

class MockCluster {
 public:
  // Starts `brokers` mock brokers (node ids 1..brokers) on 127.0.0.1; throws on failure.
  explicit MockCluster(int brokers = 3);
  ~MockCluster();
  MockCluster(const MockCluster&) = delete;
  MockCluster& operator=(const MockCluster&) = delete;

  // "127.0.0.1:port,127.0.0.1:port,..."
  std::string bootstrap_servers() const;

  // Each returns an empty string on success, else librdkafka's error text.
  std::string create_topic(const std::string& name, int partitions, int replication_factor = 1);
  std::string set_leader(const std::string& topic, int32_t partition, int32_t broker);
  std::string set_broker_down(int32_t broker);
  std::string set_broker_up(int32_t broker);
  // Makes Metadata report `kafka_error` for a topic (the mock auto-creates unknown topics at
  // Metadata v0-2, its whole range, so this is how a test gets UNKNOWN_TOPIC_OR_PARTITION).
  void set_topic_error(const std::string& topic, int16_t kafka_error);
  // Delays every response of a broker (-1: all brokers) by rtt_ms.
  std::string set_rtt(int32_t broker, int rtt_ms);
  // Narrows the range a broker advertises for an API (-1, -1: not at all).
  std::string set_api_versions(int16_t api_key, int16_t min_version, int16_t max_version);

  rd_kafka_mock_cluster_s* raw() { return cluster_; }

 private:
  rd_kafka_s* handle_ = nullptr;
  rd_kafka_mock_cluster_s* cluster_ = nullptr;
};

}  // namespace mirra::testing
