#include "server/http_endpoints.h"

#include <future>

#include "base/clock.h"
#include "base/log.h"
#include "base/text.h"
#include "console/console_files.h"
#include "security/acl.h"
#include "security/sasl.h"
#include "security/scram.h"
#include "security/tls_pem.h"
#include "server/broker_metrics.h"
#include "server/http_json.h"
#include "server/request_context.h"

namespace mirra::server {

constexpr std::string_view kMirraLogComponent = "server";

namespace {

// Prometheus' text exposition format, version 0.0.4.
constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";
constexpr const char* kJsonContentType = "application/json";

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

http::Response busy() { return http::text_response(503, "the broker did not answer in time\n"); }

// A route whose answer is written from a copy: `collect` copies on the core thread, `render`
// writes the copy on the HTTP thread.
template <typename T, typename Collect, typename Render>
http::Handler copied_route(asio::io_context& io, std::shared_ptr<bool> alive,
                           const char* content_type, Collect collect, Render render) {
  return [&io, alive, content_type, collect, render](const http::Request&) {
    std::optional<T> copy = on_core_thread<T>(io, alive, collect);
    if (!copy) return busy();
    http::Response out;
    out.content_type = content_type;
    out.body = render(*copy);
    return out;
  };
}

// The broker's HTTP routes but the console's files.
std::map<std::string, http::Handler> api_routes(asio::io_context& io,
                                                const std::shared_ptr<bool>& alive,
                                                BrokerState& broker, BrokerMetrics& metrics,
                                                const Server* server,
                                                const MirrorLagHistory& history) {
  std::map<std::string, http::Handler> routes;
  routes["/metrics"] = copied_route<MetricsSnapshot>(
      io, alive, kPrometheusContentType,
      [&broker, &metrics, server] { return collect_metrics(broker, metrics, server); },
      render_metrics);
  routes["/v1/mirrors"] = copied_route<std::vector<client::MirrorDescription>>(
      io, alive, kJsonContentType, [&broker] { return collect_mirror_descriptions(broker); },
      mirrors_json);
  routes["/v1/topics"] = copied_route<std::vector<TopicView>>(
      io, alive, kJsonContentType, [&broker] { return collect_topics(broker); }, topics_json);
  routes["/v1/groups"] = copied_route<MetricsSnapshot>(
      io, alive, kJsonContentType,
      [&broker] {
        MetricsSnapshot s;
        collect_groups(broker, s);
        return s;
      },
      groups_json);
  routes["/v1/history"] = copied_route<MirrorLagHistory>(
      io, alive, kJsonContentType, [&history] { return history; },
      [](const MirrorLagHistory& h) { return h.json(); });
  return routes;
}

using Credentials = std::vector<std::pair<security::ScramMechanism, security::ScramCredential>>;

// Basic auth (http.authentication=basic): the user's SCRAM credentials are copied on the core
// thread (the metadata image's), the password is checked here, off the core thread (PBKDF2).
bool password_ok(asio::io_context& io, const std::shared_ptr<bool>& alive, BrokerState& broker,
                 const std::string& user, const std::string& password) {
  auto credentials = on_core_thread<Credentials>(io, alive, [&broker, user] {
    Credentials out;
    for (auto m : {security::ScramMechanism::sha256, security::ScramMechanism::sha512}) {
      if (!broker.scram_credential) break;
      if (auto c = broker.scram_credential(user, m)) out.emplace_back(m, *c);
    }
    return out;
  });
  if (!credentials) return false;
  for (const auto& [m, c] : *credentials) {
    if (c.iterations <= 0) continue;  // a hostile record: never a PBKDF2 of no rounds
    const security::ScramCredential made = security::scram_credential(
        m, security::scram_salted_password(m, password, c.salt, c.iterations), c.salt,
        c.iterations);
    if (security::secrets_equal(made.stored_key, c.stored_key)) return true;
  }
  return false;
}

// With basic auth and an authorizer, a user needs DESCRIBE on the cluster, as for
// DescribeCluster and DescribeConfigs of the broker: 403 otherwise.
http::Handler authorized_only(asio::io_context& io, std::shared_ptr<bool> alive,
                              BrokerState& broker, http::Handler handler) {
  return [&io, alive, &broker, handler](const http::Request& r) {
    if (r.basic_auth) {
      auto allowed = on_core_thread<bool>(
          io, alive, [&broker, principal = "User:" + r.basic_auth->first, host = r.peer_host] {
            return broker.authorizer == nullptr ||
                   broker.authorizer->authorize(principal, host, security::AclOperation::describe,
                                                security::ResourceType::cluster,
                                                security::kClusterResourceName);
          });
      if (!allowed || !*allowed) {
        return http::text_response(403, "DESCRIBE on the cluster is required\n");
      }
    }
    return handler(r);
  };
}

// https:// in http.listeners: the certificate and key from the http.ssl.* keys, read as a Kafka
// listener reads its ssl.* keys.
Status add_tls(const std::map<std::string, std::string>& static_settings,
               http::ServerOptions& options) {
  auto settings = security::read_tls_settings([&](std::string_view key) {
    auto it = static_settings.find("http." + std::string(key));
    return it == static_settings.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
  if (!settings.ok()) return settings.status();
  auto pem = security::keystore_as_pem(*settings);
  if (!pem.ok()) {
    return Status(ErrorCode::INVALID_CONFIG,
                  "http.listeners https:// needs the http.ssl.* keystore: " +
                      pem.status().message());
  }
  options.tls_certificate_pem = std::move(pem->certificate_chain);
  options.tls_key_pem = std::move(pem->private_key);
  return Status::OK();
}

}  // namespace

bool basic_http_auth(const std::map<std::string, std::string>& static_settings) {
  auto it = static_settings.find("http.authentication");
  return it != static_settings.end() && to_lower(trim(it->second)) == "basic";
}

Result<std::unique_ptr<HttpEndpoints>> HttpEndpoints::start(
    const Listener& listener, const std::map<std::string, std::string>& static_settings,
    asio::io_context& io, BrokerState& broker, BrokerMetrics& metrics, const Server* server) {
  const bool basic_auth = basic_http_auth(static_settings);
  std::unique_ptr<HttpEndpoints> endpoints(new HttpEndpoints(io));
  std::shared_ptr<bool> alive = endpoints->alive_;
  std::map<std::string, http::Handler> routes =
      api_routes(io, alive, broker, metrics, server, endpoints->history_);
  for (const console::EmbeddedFile& file : console::files()) {
    routes[std::string(file.url)] = [file](const http::Request&) {
      http::Response out;
      out.content_type = std::string(console::content_type(file.url));
      out.body = std::string(file.bytes);
      return out;
    };
  }
  http::ServerOptions options;
  options.host = listener.host;
  options.port = listener.port;
  const bool tls = listener.name == "HTTPS";
  if (tls) {
    if (Status st = add_tls(static_settings, options); !st.ok()) return st;
  }
  if (basic_auth) {
    for (auto& [path, handler] : routes) handler = authorized_only(io, alive, broker, handler);
    options.authenticate = [&io, alive, &broker](const std::string& user,
                                                 const std::string& password) {
      return password_ok(io, alive, broker, user, password);
    };
  }
  auto http = http::HttpServer::start(std::move(options), std::move(routes));
  if (!http.ok()) return http.status();
  endpoints->http_ = std::move(http.value());
  // Scripts and tests read the port from this line.
  MIRRA_LOG_INFO("listening for HTTP on {}://{}:{}", tls ? "https" : "http",
                 listener.host.empty() ? "0.0.0.0" : listener.host, endpoints->http_->port());
  endpoints->sample_lag(broker);
  return endpoints;
}

void HttpEndpoints::sample_lag(BrokerState& broker) {
  MetricsSnapshot s;
  collect_mirrors(broker, s);
  history_.add(now_ms(), s.mirrors, s.mirror_partitions);
  sample_timer_.expires_after(std::chrono::milliseconds(MirrorLagHistory::kIntervalMs));
  // `alive` first: a wait that completed before the endpoints went away still runs.
  sample_timer_.async_wait([this, alive = alive_, &broker](std::error_code ec) {
    if (!*alive || ec) return;
    sample_lag(broker);
  });
}

HttpEndpoints::~HttpEndpoints() {
  *alive_ = false;
  http_.reset();
  sample_timer_.cancel();
}

}  // namespace mirra::server
