// FrontedCluster: a fake cluster of several nodes in front of one real Mirra broker, for the
// client's fetch session tests: the broker's own FetchSessionCache shows what the client did.
//
// The broker (server::Broker, without listeners of its own) runs on the test's io_context. Each
// node is a listener on 127.0.0.1 whose requests go through the broker's real request path
// (dispatch_request), except that the answers to Metadata are rewritten to list the fake nodes
// as brokers and the leaders the test sets (node 1 by default, and the controller), and that
// the Fetch range in ApiVersions answers can be narrowed. Every Fetch request and its answer's
// session fields are recorded as seen on the wire, and a node's connections can be dropped.
//
// Threading: everything runs on the thread that runs the io_context (run()/run_until()).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/uuid.h"
#include "client/types.h"
#include "protocol/wire.h"
#include "server/broker.h"

namespace mirra::client::test {

class FrontedCluster {
 public:
  struct SeenPartition {
    std::string topic;  // before v13
    Uuid topic_id;      // from v13
    int32_t partition = 0;
    int64_t offset = -1;  // -1 for forgotten partitions
  };
  // One Fetch request as the broker received it, and its answer's top-level fields.
  struct SeenFetch {
    int32_t node = 0;
    int16_t version = 0;
    int32_t session_id = 0;
    int32_t epoch = -1;
    std::vector<SeenPartition> partitions;
    std::vector<SeenPartition> forgotten;
    bool answered = false;
    int16_t error_code = 0;
    int32_t response_session_id = 0;
    std::vector<SeenPartition> response_partitions;  // offset: the high watermark
  };

  // A broker with `overrides` (server.properties lines; log.dirs defaults to a fresh temporary
  // directory) behind `nodes` listeners (node ids 1..nodes). Fails the test on error.
  static std::unique_ptr<FrontedCluster> start(asio::io_context& io, int nodes,
                                               std::vector<std::string> overrides = {});
  ~FrontedCluster();  // closes the listeners, lets handlers finish, stops the broker

  std::string bootstrap_servers() const;  // node 1
  void set_leader(const std::string& topic, int32_t partition, int32_t node);
  // ApiVersions answers advertise Fetch up to `version` at most (nullopt: as the broker does).
  void set_max_fetch_version(std::optional<int16_t> version) { max_fetch_version_ = version; }
  // Closes every connection to `node` (as a network failure would).
  void drop_connections(int32_t node);

  server::FetchSessionCache& sessions() { return *broker_->state().fetch_sessions; }
  const std::vector<SeenFetch>& fetches() const { return fetches_; }

  // Runs the io_context until the coroutine completes (rethrowing its exception).
  void run(asio::awaitable<void> a);
  // Runs the io_context until `done()` holds; false after `limit`.
  template <typename F>
  bool run_until(F done, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      if (io_.stopped()) io_.restart();  // it stops whenever it runs out of work
      io_.run_for(std::chrono::milliseconds(5));
    }
    return true;
  }

 private:
  explicit FrontedCluster(asio::io_context& io) : io_(io) {}
  asio::awaitable<void> accept_loop(int32_t node);
  asio::awaitable<void> serve(int32_t node, std::shared_ptr<asio::ip::tcp::socket> socket);
  // The answer the node gives to `frame` (no size prefix), or nullopt: close the connection.
  asio::awaitable<std::optional<protocol::Bytes>> answer(int32_t node,
                                                         const server::ConnectionInfo& info,
                                                         protocol::Bytes& frame);
  protocol::Bytes rewrite_metadata(const protocol::Bytes& frame, int16_t version);
  protocol::Bytes rewrite_api_versions(const protocol::Bytes& frame, int16_t version);
  // Index of the new entry in fetches_.
  size_t record_request(int32_t node, std::span<const uint8_t> body, int16_t version);
  void record_answer(size_t index, const protocol::Bytes& frame, int16_t version);

  asio::io_context& io_;
  std::string dir_;
  server::LoadedConfig loaded_;
  std::unique_ptr<server::Broker> broker_;
  std::map<int32_t, std::unique_ptr<asio::ip::tcp::acceptor>> acceptors_;  // by node id
  std::map<int32_t, uint16_t> ports_;
  std::map<int32_t, std::set<std::shared_ptr<asio::ip::tcp::socket>>> sockets_;
  std::map<TopicPartition, int32_t> leaders_;
  std::optional<int16_t> max_fetch_version_;
  std::vector<SeenFetch> fetches_;
  uint64_t next_connection_id_ = 1;
  int running_ = 0;  // accept loops and connections still running
};

}  // namespace mirra::client::test
