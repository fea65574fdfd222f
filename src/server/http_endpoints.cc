#include "server/http_endpoints.h"

#include <future>

#include "base/log.h"
#include "server/broker_metrics.h"

namespace mirra::server {

constexpr std::string_view kMirraLogComponent = "server";

namespace {

// Prometheus' text exposition format, version 0.0.4.
constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

// Runs `collect` on the core thread and waits for its result; nullopt when the core thread
// does not get to it in time (a stuck broker must not pile up HTTP threads) or the endpoints
// are going away.
template <typename T, typename F>
std::optional<T> on_core_thread(asio::io_context& io, std::shared_ptr<bool> alive, F collect) {
  auto promise = std::make_shared<std::promise<std::optional<T>>>();
  std::future<std::optional<T>> result = promise->get_future();
  asio::post(io, [promise, alive, collect = std::move(collect)]() mutable {
    promise->set_value(*alive ? std::optional<T>(collect()) : std::nullopt);
  });
  if (result.wait_for(HttpEndpoints::kCollectTimeout) != std::future_status::ready) {
    return std::nullopt;
  }
  return result.get();
}

}  // namespace

Result<std::unique_ptr<HttpEndpoints>> HttpEndpoints::start(const Listener& listener,
                                                            asio::io_context& io,
                                                            BrokerState& broker,
                                                            BrokerMetrics& metrics,
                                                            const Server* server) {
  std::unique_ptr<HttpEndpoints> endpoints(new HttpEndpoints());
  std::shared_ptr<bool> alive = endpoints->alive_;
  std::map<std::string, http::Handler> routes;
  routes["/metrics"] = [&io, &broker, &metrics, server, alive](const http::Request&) {
    auto snapshot = on_core_thread<MetricsSnapshot>(io, alive, [&broker, &metrics, server] {
      return collect_metrics(broker, metrics, server);
    });
    if (!snapshot) return http::text_response(503, "the broker did not answer in time\n");
    http::Response out;
    out.content_type = kPrometheusContentType;
    out.body = render_metrics(*snapshot);
    return out;
  };
  http::ServerOptions options;
  options.host = listener.host;
  options.port = listener.port;
  auto http = http::HttpServer::start(std::move(options), std::move(routes));
  if (!http.ok()) return http.status();
  endpoints->http_ = std::move(http.value());
  // Scripts and tests read the port from this line.
  MIRRA_LOG_INFO("listening for HTTP on http://{}:{}",
                 listener.host.empty() ? "0.0.0.0" : listener.host, endpoints->http_->port());
  return endpoints;
}

HttpEndpoints::~HttpEndpoints() {
  *alive_ = false;
  http_.reset();
}

}  // namespace mirra::server
