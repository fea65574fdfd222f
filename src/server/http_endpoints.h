// HttpEndpoints: the broker's HTTP listener (http.listeners, http.authentication, http.ssl.*)
// and what it
// serves (docs/observability.md):
//   /metrics            Prometheus text (server/broker_metrics.h)
//   /v1/mirrors, /v1/topics, /v1/groups, /v1/history   JSON for tools (server/http_json.h)
//   /, /console.js, ... the web console (src/console), built into the binary
// and keeps each mirror's lag of the last minutes for the console's chart, sampled once a
// second on the core thread (server/mirror_lag_history.h).
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
#include <map>
#include <memory>
#include <string>

#include "base/asio.h"
#include "base/status.h"
#include "http/http_server.h"
#include "server/listeners.h"
#include "server/mirror_lag_history.h"

namespace mirra::server {

struct BrokerState;
class BrokerMetrics;
class Server;

// http.authentication from the static settings (server/config.cc checks its value): "basic".
bool basic_http_auth(const std::map<std::string, std::string>& static_settings);

class HttpEndpoints {
 public:
  static constexpr std::chrono::seconds kCollectTimeout{5};

  // `broker`, `metrics` and `server` (may be null) must outlive the endpoints. From the
  // static settings: http.authentication=basic (every request needs the name and password of
  // one of the cluster's SCRAM users, and with an authorizer DESCRIBE on the cluster, 403
  // otherwise), and for an https:// listener its http.ssl.* keystore (INVALID_CONFIG naming
  // the key when it is missing or unreadable).
  static Result<std::unique_ptr<HttpEndpoints>> start(
      const Listener& listener, const std::map<std::string, std::string>& static_settings,
      asio::io_context& io, BrokerState& broker, BrokerMetrics& metrics, const Server* server);
  ~HttpEndpoints();

  uint16_t port() const { return http_->port(); }

 private:
  explicit HttpEndpoints(asio::io_context& io) : sample_timer_(io) {}

  // Samples the mirrors' lag into history_ now and every MirrorLagHistory::kIntervalMs.
  void sample_lag(BrokerState& broker);

  // Core thread only: false once the endpoints are gone, for collections still queued.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  MirrorLagHistory history_;  // core thread
  asio::steady_timer sample_timer_;
  std::unique_ptr<http::HttpServer> http_;
};

}  // namespace mirra::server
