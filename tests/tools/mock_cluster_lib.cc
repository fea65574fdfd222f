#include "mock_cluster.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <cstdlib>
#include <stdexcept>

namespace mirra::testing {
namespace {

std::string err_text(rd_kafka_resp_err_t err) {
  return err == RD_KAFKA_RESP_ERR_NO_ERROR ? std::string() : rd_kafka_err2str(err);
}

}  // namespace

MockCluster::MockCluster(int brokers) {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  // The handle only does the mock's bookkeeping; keep it quiet.
  rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof errstr);
  // MIRRA_MOCK_DEBUG=mock,protocol (librdkafka debug contexts) traces what the mock serves.
  if (const char* debug = std::getenv("MIRRA_MOCK_DEBUG")) {
    rd_kafka_conf_set(conf, "debug", debug, errstr, sizeof errstr);
    rd_kafka_conf_set(conf, "log_level", "7", errstr, sizeof errstr);
  }
  handle_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (handle_ == nullptr) {
    rd_kafka_conf_destroy(conf);
    throw std::runtime_error(std::string("rd_kafka_new: ") + errstr);
  }
  cluster_ = rd_kafka_mock_cluster_new(handle_, brokers);
  if (cluster_ == nullptr) {
    rd_kafka_destroy(handle_);
    throw std::runtime_error("rd_kafka_mock_cluster_new failed");
  }
}

MockCluster::~MockCluster() {
  rd_kafka_mock_cluster_destroy(cluster_);
  rd_kafka_destroy(handle_);
}

std::string MockCluster::bootstrap_servers() const {
  return rd_kafka_mock_cluster_bootstraps(cluster_);
}

std::string MockCluster::create_topic(const std::string& name, int partitions,
                                      int replication_factor) {
  return err_text(
      rd_kafka_mock_topic_create(cluster_, name.c_str(), partitions, replication_factor));
}

std::string MockCluster::set_leader(const std::string& topic, int32_t partition, int32_t broker) {
  return err_text(rd_kafka_mock_partition_set_leader(cluster_, topic.c_str(), partition, broker));
}

std::string MockCluster::set_broker_down(int32_t broker) {
  return err_text(rd_kafka_mock_broker_set_down(cluster_, broker));
}

std::string MockCluster::set_broker_up(int32_t broker) {
  return err_text(rd_kafka_mock_broker_set_up(cluster_, broker));
}

void MockCluster::set_topic_error(const std::string& topic, int16_t kafka_error) {
  rd_kafka_mock_topic_set_error(cluster_, topic.c_str(),
                                static_cast<rd_kafka_resp_err_t>(kafka_error));
}

std::string MockCluster::set_rtt(int32_t broker, int rtt_ms) {
  return err_text(rd_kafka_mock_broker_set_rtt(cluster_, broker, rtt_ms));
}

std::string MockCluster::set_api_versions(int16_t api_key, int16_t min_version,
                                          int16_t max_version) {
  return err_text(rd_kafka_mock_set_apiversion(cluster_, api_key, min_version, max_version));
}

}  // namespace mirra::testing
