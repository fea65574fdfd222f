// HttpEndpoints: the broker's HTTP listener (http.listeners) and what it serves:
//   /metrics  Prometheus text (server/broker_metrics.h; docs/observability.md)
//
// The listener's thread (src/http) never touches broker state: a handler posts the collection
// to the core thread and waits for its copy (at most kCollectTimeout, then 503), and writes the
// answer from the copy on its own thread. A slow or hostile HTTP client therefore costs the
// Kafka listeners nothing, and a scrape costs the core thread only the copy.
//
// Threading: made and destroyed on the core thread; destroying it stops the listener (waiting
// for a handler in progress) and makes collections still queued on the core thread do nothing.
#pragma once

#include <chrono>
#include <memory>

#include "base/asio.h"
#include "base/status.h"
#include "http/http_server.h"
#include "server/listeners.h"

namespace mirra::server {

struct BrokerState;
class BrokerMetrics;
class Server;

class HttpEndpoints {
 public:
  static constexpr std::chrono::seconds kCollectTimeout{5};

  // `broker`, `metrics` and `server` (may be null) must outlive the endpoints.
  static Result<std::unique_ptr<HttpEndpoints>> start(const Listener& listener,
                                                      asio::io_context& io, BrokerState& broker,
                                                      BrokerMetrics& metrics, const Server* server);
  ~HttpEndpoints();

  uint16_t port() const { return http_->port(); }

 private:
  HttpEndpoints() = default;

  // Core thread only: false once the endpoints are gone, for collections still queued.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::unique_ptr<http::HttpServer> http_;
};

}  // namespace mirra::server
