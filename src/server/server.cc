#include "server/server.h"

#include "base/log.h"
#include "base/log_limit.h"
#include "share/share_state.h"

namespace mirra::server {
namespace {

constexpr std::string_view kMirraLogComponent = "server";

std::string endpoint_string(const asio::ip::tcp::endpoint& ep) {
  const auto addr = ep.address();
  return addr.is_v6() ? fmt::format("[{}]:{}", addr.to_string(), ep.port())
                      : fmt::format("{}:{}", addr.to_string(), ep.port());
}

}  // namespace

Server::Server(asio::io_context& io, const ServerConfig& config, BrokerState& broker)
    : io_(io),
      config_(config),
      broker_(broker),
      request_memory_(std::make_shared<RequestMemory>(queued_max_request_bytes(config))),
      stop_timer_(io),
      closed_wake_(io) {}

asio::awaitable<void> Server::wait_closed() {
  while (!(stopping_ && connections_.empty())) {
    closed_wake_.expires_at(asio::steady_timer::time_point::max());
    asio::error_code ec;
    co_await closed_wake_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

namespace {

// What clients are told to connect to: the advertised listener of the same name, else the
// bound address (a wildcard host is replaced by this machine's name, as Kafka does).
AdvertisedEndpoint advertised_for(const ServerConfig& config, const Listener& l,
                                  const asio::ip::tcp::endpoint& bound) {
  for (const Listener& a : config.advertised_listeners) {
    if (a.name == l.name) return {l.name, a.host, a.port == 0 ? bound.port() : a.port};
  }
  std::string host = l.host;
  if (host.empty() || host == "0.0.0.0" || host == "::") host = asio::ip::host_name();
  return {l.name, host, bound.port()};
}

}  // namespace

Status Server::start() {
  for (const Listener& l : config_.listeners) {
    if (Status s = start_listener(l); !s.ok()) return s;
  }
  return Status::OK();
}

Status Server::start_listener(const Listener& l) {
  static const std::map<std::string, std::string> kNoSettings;
  auto security = make_listener_security(
      l, config_, broker_.static_settings != nullptr ? *broker_.static_settings : kNoSettings);
  if (!security.ok()) return security.status();
  // SCRAM credentials live in the metadata image, which changes while the broker runs.
  security.value()->users.scram = [this](const std::string& user, security::ScramMechanism m) {
    return broker_.scram_credential ? broker_.scram_credential(user, m) : std::nullopt;
  };
  asio::error_code ec;
  const std::string host = l.host.empty() ? "0.0.0.0" : l.host;
  const auto addr = asio::ip::make_address(host, ec);
  if (ec) {
    return Status(ErrorCode::INVALID_CONFIG,
                  fmt::format("listener {}: '{}' is not an IP address", l.to_string(), host));
  }
  auto acceptor = std::make_unique<asio::ip::tcp::acceptor>(io_);
  const asio::ip::tcp::endpoint ep(addr, l.port);
  acceptor->open(ep.protocol(), ec);
  if (!ec) acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor->bind(ep, ec);
  if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status(ErrorCode::NETWORK_EXCEPTION,
                  fmt::format("cannot listen on {}: {}", l.to_string(), ec.message()));
  }
  bound_.push_back(acceptor->local_endpoint());
  broker_.endpoints.push_back(advertised_for(config_, l, bound_.back()));
  // Scripts and tests read the port from this line: its form stays "listening on NAME://ep".
  MIRRA_LOG_INFO("listening on {}://{}", l.name, endpoint_string(bound_.back()));
  if (l.protocol != SecurityProtocol::plaintext) {
    MIRRA_LOG_INFO("listener {} is {}{}", l.name, protocol_name(l.protocol),
                   uses_sasl(l.protocol) ? fmt::format(" with SASL mechanisms {}",
                                                       security.value()->mechanisms_text())
                                         : std::string());
  }
  asio::co_spawn(io_, accept_loop(*acceptor, *security.value()), asio::detached);
  acceptors_.push_back(std::move(acceptor));
  listener_security_.push_back(std::move(security.value()));
  return Status::OK();
}

asio::awaitable<void> Server::accept_loop(asio::ip::tcp::acceptor& acceptor,
                                          const ListenerSecurity& security) {
  const std::string& listener = security.listener.name;
  while (!stopping_) {
    asio::error_code ec;
    asio::ip::tcp::socket socket =
        co_await acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (stopping_) break;
    if (ec) {
      // EMFILE and friends: log and keep accepting rather than stop serving.
      static log::Limiter limiter("accepting a connection");
      MIRRA_LOG_WARN_LIMITED(limiter, "accept on {}: {}", listener, ec.message());
      asio::steady_timer backoff(io_, std::chrono::milliseconds(100));
      co_await backoff.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    accepted(std::move(socket), security);
  }
}

void Server::accepted(asio::ip::tcp::socket socket, const ListenerSecurity& security) {
  const std::string& listener = security.listener.name;
  asio::error_code ec;
  const auto peer_ep = socket.remote_endpoint(ec);
  if (ec) return;  // the client already went away
  ConnectionInfo info{next_id_++, endpoint_string(peer_ep), listener,
                      peer_ep.address().to_string()};
  if (connections_.size() >= static_cast<size_t>(config_.max_connections)) {
    static log::Limiter limiter("refusing a connection over max.connections");
    MIRRA_LOG_WARN_LIMITED(limiter, "max.connections ({}) reached: refusing connection from {}",
                           config_.max_connections, info.peer);
    socket.close(ec);
    return;
  }
  socket.set_option(asio::ip::tcp::no_delay(true), ec);
  ConnectionLimits limits;
  limits.max_request_bytes = config_.socket_request_max_bytes;
  limits.idle = std::chrono::milliseconds(config_.connections_max_idle_ms);
  MIRRA_LOG_DEBUG("connection {} from {} on {}", info.id, info.peer, listener);
  auto conn = std::make_shared<Connection>(std::move(socket), info, limits, request_memory_,
                                           broker_, *this, &security);
  connections_.emplace(info.id, conn);
  conn->start();
}

std::map<std::string, uint64_t> Server::connections_by_listener() const {
  std::map<std::string, uint64_t> out;
  for (const Listener& l : config_.listeners) out[l.name] = 0;  // an idle listener shows 0
  for (const auto& [id, c] : connections_) ++out[c->info().listener];
  return out;
}

void Server::on_closed(uint64_t id) {
  connections_.erase(id);
  // A share session dies with its connection; what its member held goes back.
  if (broker_.share != nullptr) broker_.share->connection_closed(id);
  if (stopping_ && connections_.empty()) {
    stop_timer_.cancel();
    closed_wake_.cancel();
  }
}

void Server::stop(std::chrono::milliseconds grace) {
  if (stopping_) return;
  stopping_ = true;
  MIRRA_LOG_INFO("stopping: no new connections, finishing {} open connection(s)",
                 connections_.size());
  for (auto& a : acceptors_) {
    asio::error_code ec;
    a->close(ec);
  }
  // Copy: stop_reading() may close a connection, which erases it from the map.
  std::vector<std::shared_ptr<Connection>> open;
  for (auto& [id, c] : connections_) open.push_back(c);
  for (auto& c : open) c->stop_reading();
  if (connections_.empty()) {
    closed_wake_.cancel();
    return;
  }
  stop_timer_.expires_after(grace);
  stop_timer_.async_wait([this](asio::error_code ec) {
    if (ec) return;  // everything closed in time
    std::vector<std::shared_ptr<Connection>> left;
    for (auto& [id, c] : connections_) left.push_back(c);
    for (auto& c : left) c->close("still open at the end of the shutdown grace period");
  });
}

}  // namespace mirra::server
