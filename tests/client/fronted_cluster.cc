#include "fronted_cluster.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "protocol/frame.h"
#include "protocol/messages/api_versions.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/metadata.h"
#include "server/dispatch.h"
#include "server/fetch_session.h"

namespace mirra::client::test {
namespace {

using asio::ip::tcp;

// A response frame (size prefix included) split into correlation id and body reader position.
template <typename Resp>
Result<Resp> decode_response(const protocol::Bytes& frame, int16_t version, int32_t& correlation) {
  const protocol::ApiInfo* api = protocol::find_api(Resp::kApiKey);
  protocol::Reader r(std::span<const uint8_t>(frame).subspan(protocol::kFrameSizeBytes));
  protocol::ResponseHeader header;
  if (Status s = header.decode(r, protocol::response_header_version(*api, version)); !s.ok()) {
    return s;
  }
  correlation = header.correlation_id;
  Resp resp;
  if (Status s = resp.decode(r, version); !s.ok()) return s;
  return resp;
}

}  // namespace

std::unique_ptr<FrontedCluster> FrontedCluster::start(asio::io_context& io, int nodes,
                                                      std::vector<std::string> overrides) {
  std::unique_ptr<FrontedCluster> c(new FrontedCluster(io));
  char dir_template[] = "/tmp/mirra-fronted-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) {
    ADD_FAILURE() << "cannot create a temporary directory";
    return nullptr;
  }
  c->dir_ = dir_template;
  overrides.push_back("log.dirs=" + c->dir_);
  auto loaded = server::load_config(std::nullopt, overrides);
  if (!loaded.ok()) {
    ADD_FAILURE() << loaded.status().to_string();
    return nullptr;
  }
  c->loaded_ = std::move(loaded.value());
  c->broker_ = std::make_unique<server::Broker>(io, c->loaded_);
  Status started = Status::OK();
  c->run([&]() -> asio::awaitable<void> { started = co_await c->broker_->start(false); }());
  if (!started.ok()) {
    ADD_FAILURE() << started.to_string();
    return nullptr;
  }
  for (int32_t node = 1; node <= nodes; ++node) {
    auto acceptor =
        std::make_unique<tcp::acceptor>(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    c->ports_[node] = acceptor->local_endpoint().port();
    c->acceptors_[node] = std::move(acceptor);
    ++c->running_;
    asio::co_spawn(io, c->accept_loop(node), asio::detached);
  }
  return c;
}

FrontedCluster::~FrontedCluster() {
  for (auto& [node, acceptor] : acceptors_) acceptor->close();
  for (auto& [node, sockets] : sockets_) drop_connections(node);
  // Handlers still parked (a long-polling fetch whose connection was dropped) finish by their
  // deadline; the broker cannot stop under them.
  EXPECT_TRUE(run_until([this] { return running_ == 0; }, std::chrono::seconds(30)));
  if (broker_) run(broker_->stop());
  broker_.reset();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string FrontedCluster::bootstrap_servers() const {
  return "127.0.0.1:" + std::to_string(ports_.at(1));
}

void FrontedCluster::set_leader(const std::string& topic, int32_t partition, int32_t node) {
  leaders_[TopicPartition{topic, partition}] = node;
}

void FrontedCluster::drop_connections(int32_t node) {
  for (const auto& socket : sockets_[node]) {
    asio::error_code ec;
    socket->shutdown(tcp::socket::shutdown_both, ec);
    socket->close(ec);
  }
  sockets_[node].clear();
}

void FrontedCluster::run(asio::awaitable<void> a) {
  bool done = false;
  std::exception_ptr error;
  asio::co_spawn(io_, std::move(a), [&](std::exception_ptr e) {
    error = e;
    done = true;
  });
  while (!done) {
    if (io_.stopped()) io_.restart();
    io_.run_one();
  }
  if (error) std::rethrow_exception(error);
}

asio::awaitable<void> FrontedCluster::accept_loop(int32_t node) {
  for (;;) {
    asio::error_code ec;
    tcp::socket s =
        co_await acceptors_[node]->async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
    auto socket = std::make_shared<tcp::socket>(std::move(s));
    sockets_[node].insert(socket);
    ++running_;
    asio::co_spawn(io_, serve(node, socket), asio::detached);
  }
  --running_;
}

asio::awaitable<void> FrontedCluster::serve(int32_t node, std::shared_ptr<tcp::socket> socket) {
  const server::ConnectionInfo info{next_connection_id_++, "fronted node " + std::to_string(node),
                                    "PLAINTEXT", "127.0.0.1"};
  for (;;) {
    uint8_t prefix[protocol::kFrameSizeBytes];
    asio::error_code ec;
    co_await asio::async_read(*socket, asio::buffer(prefix),
                              asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
    auto size = protocol::read_frame_size(prefix, 64 << 20);
    if (!size.ok()) break;
    protocol::Bytes frame(static_cast<size_t>(size.value()));
    co_await asio::async_read(*socket, asio::buffer(frame),
                              asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
    std::optional<protocol::Bytes> out = co_await answer(node, info, frame);
    if (!out) break;
    if (out->empty()) continue;  // acks=0 produce
    co_await asio::async_write(*socket, asio::buffer(*out),
                               asio::redirect_error(asio::use_awaitable, ec));
    if (ec) break;
  }
  asio::error_code ignored;
  socket->close(ignored);
  sockets_[node].erase(socket);
  --running_;
}

asio::awaitable<std::optional<protocol::Bytes>> FrontedCluster::answer(
    int32_t node, const server::ConnectionInfo& info, protocol::Bytes& frame) {
  auto env = protocol::decode_request_envelope(frame);
  if (!env.ok()) co_return std::nullopt;
  const int16_t key = env->header.request_api_key;
  const int16_t version = env->header.request_api_version;
  std::optional<size_t> seen;
  if (key == protocol::FetchRequest::kApiKey) seen = record_request(node, env->body, version);
  server::HandlerResult result = co_await server::dispatch_request(frame, info, broker_->state());
  if (!result.ok()) co_return std::nullopt;
  if (result->empty()) co_return protocol::Bytes{};
  auto bytes = server::materialize(result.value());
  if (!bytes.ok()) co_return std::nullopt;
  if (key == protocol::MetadataRequest::kApiKey) co_return rewrite_metadata(*bytes, version);
  if (key == protocol::kApiVersionsKey) co_return rewrite_api_versions(*bytes, version);
  if (seen) record_answer(*seen, *bytes, version);
  co_return std::move(bytes.value());
}

protocol::Bytes FrontedCluster::rewrite_metadata(const protocol::Bytes& frame, int16_t version) {
  int32_t correlation = 0;
  auto md = decode_response<protocol::MetadataResponse>(frame, version, correlation);
  EXPECT_TRUE(md.ok()) << md.status().to_string();
  if (!md.ok()) return frame;
  md->brokers.clear();
  for (const auto& [node, port] : ports_) {
    protocol::MetadataResponse::MetadataResponseBroker b;
    b.node_id = node;
    b.host = "127.0.0.1";
    b.port = port;
    md->brokers.push_back(b);
  }
  md->controller_id = 1;
  for (auto& t : md->topics) {
    for (auto& p : t.partitions) {
      auto it = leaders_.find(TopicPartition{t.name.value_or(""), p.partition_index});
      p.leader_id = it == leaders_.end() ? 1 : it->second;
      p.replica_nodes = {p.leader_id};
      p.isr_nodes = {p.leader_id};
    }
  }
  return protocol::encode_response_frame(correlation, version, md.value());
}

protocol::Bytes FrontedCluster::rewrite_api_versions(const protocol::Bytes& frame,
                                                     int16_t version) {
  if (!max_fetch_version_) return frame;
  int32_t correlation = 0;
  auto av = decode_response<protocol::ApiVersionsResponse>(frame, version, correlation);
  EXPECT_TRUE(av.ok()) << av.status().to_string();
  if (!av.ok()) return frame;
  for (auto& k : av->api_keys) {
    if (k.api_key == protocol::FetchRequest::kApiKey) k.max_version = *max_fetch_version_;
  }
  return protocol::encode_response_frame(correlation, version, av.value());
}

size_t FrontedCluster::record_request(int32_t node, std::span<const uint8_t> body,
                                      int16_t version) {
  SeenFetch& seen = fetches_.emplace_back();
  seen.node = node;
  seen.version = version;
  protocol::FetchRequest req;
  protocol::Reader r(body);
  Status s = req.decode(r, version);
  EXPECT_TRUE(s.ok()) << s.to_string();
  seen.session_id = req.session_id;
  seen.epoch = req.session_epoch;
  for (const auto& t : req.topics) {
    for (const auto& p : t.partitions) {
      seen.partitions.push_back({t.topic, t.topic_id, p.partition, p.fetch_offset});
    }
  }
  for (const auto& f : req.forgotten_topics_data) {
    for (int32_t p : f.partitions) seen.forgotten.push_back({f.topic, f.topic_id, p, -1});
  }
  return fetches_.size() - 1;
}

void FrontedCluster::record_answer(size_t index, const protocol::Bytes& frame, int16_t version) {
  int32_t correlation = 0;
  auto resp = decode_response<protocol::FetchResponse>(frame, version, correlation);
  EXPECT_TRUE(resp.ok()) << resp.status().to_string();
  if (!resp.ok()) return;
  SeenFetch& seen = fetches_[index];
  seen.answered = true;
  seen.error_code = resp->error_code;
  seen.response_session_id = resp->session_id;
  for (const auto& t : resp->responses) {
    for (const auto& p : t.partitions) {
      seen.response_partitions.push_back(
          {t.topic, t.topic_id, p.partition_index, p.high_watermark});
    }
  }
}

}  // namespace mirra::client::test
