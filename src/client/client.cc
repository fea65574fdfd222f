#include "client/client.h"

#include <algorithm>

#include "client/client_routing.h"

namespace mirra::client {
namespace {

template <typename T, typename Key, typename Proj>
T* find_sorted(std::vector<T>& v, const Key& key, Proj proj) {
  auto it = std::lower_bound(v.begin(), v.end(), key,
                             [&](const T& e, const Key& k) { return proj(e) < k; });
  return it != v.end() && proj(*it) == key ? &*it : nullptr;
}

ClusterMetadata from_response(const protocol::MetadataResponse& r) {
  ClusterMetadata md;
  md.cluster_id = r.cluster_id;
  md.controller_id = r.controller_id;
  for (const auto& b : r.brokers) md.brokers.push_back({b.node_id, b.host, b.port, b.rack});
  for (const auto& t : r.topics) {
    TopicInfo ti;
    ti.name = t.name.value_or("");
    ti.id = t.topic_id;
    ti.error = error_from_number(t.error_code);
    ti.internal = t.is_internal;
    for (const auto& p : t.partitions) {
      ti.partitions.push_back({p.partition_index, error_from_number(p.error_code), p.leader_id,
                               p.leader_epoch, p.replica_nodes, p.isr_nodes, p.offline_replicas});
    }
    std::sort(ti.partitions.begin(), ti.partitions.end(),
              [](const auto& a, const auto& b) { return a.partition < b.partition; });
    md.topics.push_back(std::move(ti));
  }
  std::sort(md.brokers.begin(), md.brokers.end(),
            [](const auto& a, const auto& b) { return a.node_id < b.node_id; });
  std::sort(md.topics.begin(), md.topics.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return md;
}

}  // namespace

Status status_from(int16_t code, const std::optional<std::string>& message, std::string_view what) {
  const ErrorCode ec = error_from_number(code);
  if (ec == ErrorCode::NONE) return Status::OK();
  const std::string_view text = message && !message->empty() ? std::string_view(*message)
                                                             : error_message(ec);
  return Status(ec, fmt::format("{}: {}", what, text));
}

Result<std::unique_ptr<Client>> Client::create(asio::any_io_executor ex, ClientOptions options) {
  auto servers = parse_bootstrap_servers(options.bootstrap_servers);
  if (!servers.ok()) return servers.status();
  if (Status s = prepare_client_security(options.security); !s.ok()) return s;
  return std::unique_ptr<Client>(
      new Client(std::move(ex), std::move(options), std::move(servers.value())));
}

Client::Client(asio::any_io_executor ex, ClientOptions options, std::vector<HostPort> bootstrap)
    : ex_(std::move(ex)), options_(std::move(options)), bootstrap_(std::move(bootstrap)) {}

Client::~Client() { close(); }

void Client::close() {
  for (auto& [id, conn] : connections_) {
    conn->close(Status(ErrorCode::NETWORK_EXCEPTION, "the client was closed"));
  }
  connections_.clear();
}

ConnectionOptions Client::connection_options() const {
  ConnectionOptions o;
  o.client_id = options_.client_id;
  o.connect_timeout = options_.connect_timeout;
  o.request_timeout = options_.request_timeout;
  o.security = options_.security;  // the TLS context is shared, not copied
  o.throttled_ms_total = throttled_ms_total_;
  return o;
}

asio::awaitable<Result<std::shared_ptr<BrokerConnection>>> Client::open(int32_t key,
                                                                        std::string host,
                                                                        uint16_t port) {
  auto conn = co_await BrokerConnection::connect(ex_, std::move(host), port, connection_options());
  if (!conn.ok()) co_return conn.status();
  // Another call may have opened the same broker while this one was connecting.
  auto& slot = connections_[key];
  if (slot && slot->is_open()) {
    conn.value()->close(Status::OK());
    co_return slot;
  }
  slot = std::move(conn.value());
  co_return slot;
}

asio::awaitable<Result<std::shared_ptr<BrokerConnection>>> Client::connection(int32_t node_id) {
  auto it = connections_.find(node_id);
  if (it != connections_.end() && it->second->is_open()) co_return it->second;
  const BrokerInfo* b = cache_.broker(node_id);
  if (b == nullptr) {
    co_return Status(ErrorCode::LEADER_NOT_AVAILABLE,
                     fmt::format("broker {} is not in the cluster metadata", node_id));
  }
  std::string host = b->host;
  const auto port = static_cast<uint16_t>(b->port);
  co_return co_await open(node_id, std::move(host), port);
}

asio::awaitable<Result<std::shared_ptr<BrokerConnection>>> Client::any_connection() {
  for (auto& [id, conn] : connections_) {
    if (conn->is_open()) co_return conn;
  }
  Status last;
  const std::vector<BrokerInfo> known = cache_.brokers;
  for (const BrokerInfo& b : known) {
    auto conn = co_await connection(b.node_id);
    if (conn.ok()) co_return conn;
    last = conn.status();
  }
  for (size_t i = 0; i < bootstrap_.size(); ++i) {
    auto conn = co_await open(-1 - static_cast<int32_t>(i), bootstrap_[i].host, bootstrap_[i].port);
    if (conn.ok()) co_return conn;
    last = conn.status();
  }
  co_return Status(last.code(), fmt::format("cannot reach any broker: {}", last.message()));
}

asio::awaitable<Result<std::shared_ptr<BrokerConnection>>> Client::controller_connection() {
  if (metadata_stale_ || cache_.controller_id < 0) {
    const std::set<std::string> none;
    if (Status s = co_await refresh_metadata(none); !s.ok()) co_return s;
  }
  if (cache_.controller_id >= 0) {
    auto conn = co_await connection(cache_.controller_id);
    if (conn.ok()) co_return conn;
  }
  co_return co_await any_connection();
}

asio::awaitable<Result<ClusterMetadata>> Client::metadata(
    std::optional<std::vector<std::string>> topics) {
  protocol::MetadataRequest req;
  if (topics) {
    req.topics.emplace();
    for (auto& name : *topics) {
      protocol::MetadataRequest::MetadataRequestTopic t;
      t.name = name;
      req.topics->push_back(std::move(t));
    }
  } else {
    req.topics = std::nullopt;
  }
  req.allow_auto_topic_creation = options_.allow_auto_topic_creation;
  // A connection that dies under the request is replaced once by another broker's.
  Status failure;
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto conn = co_await any_connection();
    if (!conn.ok()) co_return conn.status();
    auto reply = co_await conn.value()->send(req);
    if (!reply.ok()) {
      failure = reply.status();
      if (conn.value()->is_open()) break;
      continue;
    }
    ClusterMetadata md = from_response(reply->body);
    merge_metadata(md, !topics.has_value());
    co_return md;
  }
  co_return failure;
}

asio::awaitable<Status> Client::refresh_metadata(const std::set<std::string>& topics) {
  known_topics_.insert(topics.begin(), topics.end());
  auto md = co_await metadata(std::vector<std::string>(known_topics_.begin(), known_topics_.end()));
  if (!md.ok()) co_return md.status();
  metadata_stale_ = false;
  co_return Status::OK();
}

void Client::merge_metadata(ClusterMetadata fresh, bool all_topics) {
  if (!fresh.brokers.empty()) cache_.brokers = std::move(fresh.brokers);
  cache_.cluster_id = std::move(fresh.cluster_id);
  cache_.controller_id = fresh.controller_id;
  if (all_topics) {
    cache_.topics = std::move(fresh.topics);
    return;
  }
  for (TopicInfo& t : fresh.topics) {
    TopicInfo* old = find_sorted(cache_.topics, t.name,
                                 [](const TopicInfo& e) -> const std::string& { return e.name; });
    if (old != nullptr) {
      *old = std::move(t);
    } else {
      auto at =
          std::lower_bound(cache_.topics.begin(), cache_.topics.end(), t.name,
                           [](const TopicInfo& e, const std::string& n) { return e.name < n; });
      cache_.topics.insert(at, std::move(t));
    }
  }
}

asio::awaitable<Result<TopicInfo>> Client::topic(const std::string& name) {
  const TopicInfo* t = cache_.topic(name);
  if (t == nullptr || t->error != ErrorCode::NONE || metadata_stale_) {
    // Named, not a braced argument: g++ 12 fails on initializer lists inside co_await.
    const std::set<std::string> topics{name};
    if (Status s = co_await refresh_metadata(topics); !s.ok()) co_return s;
    t = cache_.topic(name);
  }
  if (t == nullptr) {
    co_return Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                     fmt::format("topic {} is not in the broker's metadata", name));
  }
  if (t->error != ErrorCode::NONE) {
    co_return status_from(error_number(t->error), std::nullopt, "topic " + name);
  }
  co_return *t;
}

asio::awaitable<Result<ClusterDescription>> Client::describe_cluster() {
  auto conn = co_await any_connection();
  if (!conn.ok()) co_return conn.status();
  if (conn.value()->broker_range(protocol::DescribeClusterRequest::kApiKey)) {
    auto reply = co_await conn.value()->send(protocol::DescribeClusterRequest{});
    if (!reply.ok()) co_return reply.status();
    const auto& r = reply->body;
    if (Status s = status_from(r.error_code, r.error_message, "DescribeCluster"); !s.ok()) {
      co_return s;
    }
    ClusterDescription d{r.cluster_id, r.controller_id, {}};
    for (const auto& b : r.brokers) d.brokers.push_back({b.broker_id, b.host, b.port, b.rack});
    co_return d;
  }
  // Brokers before Kafka 2.8 have no DescribeCluster: Metadata carries the same facts.
  auto md = co_await metadata(std::vector<std::string>{});
  if (!md.ok()) co_return md.status();
  co_return ClusterDescription{md->cluster_id.value_or(""), md->controller_id, md->brokers};
}

asio::awaitable<void> Client::backoff(int round) {
  auto delay = options_.retry_backoff * (int64_t{1} << std::min(round, 10));
  asio::steady_timer timer(ex_, std::min<Millis>(delay, options_.retry_backoff_max));
  asio::error_code ec;
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

}  // namespace mirra::client
