// The broker's network front: listeners, the connection set, graceful stop.
//
// Threading model: one "core" thread runs the io_context that owns all broker state
// (BrokerState), every listener and every connection; handlers run there too, so broker state
// needs no locks. Blocking disk work (appends, fsync, reads, segment roll, compaction) runs on
// the shard threads (cluster/shard_pool.h, num.io.threads of them), which own the partition
// logs; handlers post to them and resume on the core thread. Sharding connections across
// several cores is a non-goal for now; num.network.threads is accepted and not used.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/asio.h"
#include "base/status.h"
#include "server/config.h"
#include "server/connection.h"
#include "server/listener_security.h"
#include "server/request_memory.h"

namespace mirra::server {

class Server {
 public:
  // `broker` must outlive the server; start() fills in its endpoints.
  Server(asio::io_context& io, const ServerConfig& config, BrokerState& broker);
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds every listener and starts accepting; logs "listening on PLAINTEXT://host:port" with
  // the bound port (an ephemeral one for port 0).
  Status start();
  // Stops accepting, lets each connection finish the requests it has read, then closes them;
  // connections still open after `grace` are closed. io_context::run() returns once all is
  // closed.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(5000));
  // Completes once stop() was called and every connection is closed.
  asio::awaitable<void> wait_closed();

  // Bound endpoints, in listener order (for tests and the start-up log).
  const std::vector<asio::ip::tcp::endpoint>& bound() const { return bound_; }
  size_t connection_count() const { return connections_.size(); }
  // Open connections per listener name (for /metrics).
  std::map<std::string, uint64_t> connections_by_listener() const;
  // The request memory every connection reserves from (queued.max.request.bytes).
  const RequestMemory& request_memory() const { return *request_memory_; }

  // Called by a Connection when it closes.
  void on_closed(uint64_t id);

 private:
  asio::awaitable<void> accept_loop(asio::ip::tcp::acceptor& acceptor,
                                    const ListenerSecurity& security);
  void accepted(asio::ip::tcp::socket socket, const ListenerSecurity& security);
  Status start_listener(const Listener& l);

  asio::io_context& io_;
  const ServerConfig& config_;
  BrokerState& broker_;
  std::shared_ptr<RequestMemory> request_memory_;
  std::vector<std::unique_ptr<asio::ip::tcp::acceptor>> acceptors_;
  std::vector<std::unique_ptr<ListenerSecurity>> listener_security_;  // one per listener
  std::vector<asio::ip::tcp::endpoint> bound_;
  std::unordered_map<uint64_t, std::shared_ptr<Connection>> connections_;
  uint64_t next_id_ = 1;
  bool stopping_ = false;
  asio::steady_timer stop_timer_;
  asio::steady_timer closed_wake_;
};

}  // namespace mirra::server
