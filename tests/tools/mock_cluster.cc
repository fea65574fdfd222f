// mock_cluster: librdkafka's mock Kafka cluster as a process, for tests in any language.
//
//   mock_cluster [--brokers N] [--topic name:partitions[:replication]]...
//
// Prints the bootstrap servers as one line on stdout, then reads commands from stdin, one per
// line, answering each with "ok" or "error: <why>" on stdout:
//   leader <topic> <partition> <broker>    move a partition's leader (-1: none)
//   down <broker> | up <broker>            take a broker's listener down or up
//   topic <name> <partitions> [<rf>]       create a topic
//   topic-error <name> <kafka error code>  Metadata reports this error for the topic
// It exits 0 when stdin closes (so a test that dies takes the cluster with it).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "mock_cluster.h"

namespace {

struct TopicArg {
  std::string name;
  int partitions = 1;
  int replication = 1;
};

bool parse_topic(const std::string& text, TopicArg& out) {
  std::vector<std::string> parts;
  std::stringstream ss(text);
  for (std::string p; std::getline(ss, p, ':');) parts.push_back(p);
  if (parts.empty() || parts.size() > 3 || parts[0].empty()) return false;
  try {
    out.name = parts[0];
    if (parts.size() > 1) out.partitions = std::stoi(parts[1]);
    if (parts.size() > 2) out.replication = std::stoi(parts[2]);
  } catch (const std::exception&) {
    return false;
  }
  return out.partitions > 0 && out.replication > 0;
}

std::string run_command(mirra::testing::MockCluster& cluster, const std::string& line) {
  std::istringstream in(line);
  std::string cmd;
  in >> cmd;
  if (cmd == "leader") {
    std::string topic;
    int partition = 0, broker = 0;
    if (in >> topic >> partition >> broker) return cluster.set_leader(topic, partition, broker);
  } else if (cmd == "down" || cmd == "up") {
    int broker = 0;
    if (in >> broker)
      return cmd == "down" ? cluster.set_broker_down(broker) : cluster.set_broker_up(broker);
  } else if (cmd == "topic-error") {
    std::string name;
    int code = 0;
    if (in >> name >> code) {
      cluster.set_topic_error(name, static_cast<int16_t>(code));
      return "";
    }
  } else if (cmd == "topic") {
    std::string name;
    int partitions = 0, rf = 1;
    if (in >> name >> partitions) {
      in >> rf;
      return cluster.create_topic(name, partitions, rf);
    }
  }
  return "unknown or malformed command: " + line;
}

}  // namespace

int main(int argc, char** argv) {
  int brokers = 3;
  std::vector<TopicArg> topics;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--brokers" && i + 1 < argc) {
      brokers = std::atoi(argv[++i]);
    } else if (arg == "--topic" && i + 1 < argc) {
      TopicArg t;
      if (!parse_topic(argv[++i], t)) {
        std::fprintf(stderr, "mock_cluster: bad --topic '%s' (name:partitions[:replication])\n",
                     argv[i]);
        return 1;
      }
      topics.push_back(t);
    } else {
      std::fprintf(stderr, "usage: mock_cluster [--brokers N] [--topic name:partitions[:rf]]...\n");
      return 1;
    }
  }
  if (brokers < 1) {
    std::fprintf(stderr, "mock_cluster: --brokers must be at least 1\n");
    return 1;
  }
  try {
    mirra::testing::MockCluster cluster(brokers);
    for (const TopicArg& t : topics) {
      if (std::string err = cluster.create_topic(t.name, t.partitions, t.replication);
          !err.empty()) {
        std::fprintf(stderr, "mock_cluster: topic %s: %s\n", t.name.c_str(), err.c_str());
        return 1;
      }
    }
    std::cout << cluster.bootstrap_servers() << std::endl;
    for (std::string line; std::getline(std::cin, line);) {
      if (line.empty()) continue;
      const std::string err = run_command(cluster, line);
      std::cout << (err.empty() ? "ok" : "error: " + err) << std::endl;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mock_cluster: %s\n", e.what());
    return 1;
  }
  return 0;
}
