#include "client/broker_connection.h"

#include <algorithm>

#include "base/assert.h"
#include "base/log.h"
#include "protocol/records/byte_order.h"

namespace mirra::client {
namespace {

constexpr std::string_view kMirraLogComponent = "client";
// The ApiVersions version sent first (KIP-511: v3 carries the client's software name/version).
constexpr int16_t kApiVersionsFirst = 3;

auto ec_awaitable(asio::error_code& ec) { return asio::redirect_error(asio::use_awaitable, ec); }

std::string_view api_name(int16_t key) {
  const protocol::ApiInfo* api = protocol::find_api(key);
  return api ? api->name : std::string_view("unknown API");
}

}  // namespace

// A request waiting for its response (or, for acks=0 produce, for its write). The timer is both
// the request's deadline and the wake-up: the read loop cancels it when the response is in.
struct BrokerConnection::Pending {
  explicit Pending(const asio::any_io_executor& ex) : timer(ex) {}
  asio::steady_timer timer;
  bool done = false;
  Status status;
  RawBytes frame;

  void complete(Status s, RawBytes f = {}) {
    if (done) return;
    done = true;
    status = std::move(s);
    frame = std::move(f);
    timer.cancel();
  }
};

BrokerConnection::BrokerConnection(asio::any_io_executor ex, ConnectionOptions options)
    : ex_(std::move(ex)), options_(std::move(options)), socket_(ex_) {}

BrokerConnection::~BrokerConnection() {
  asio::error_code ec;
  socket_.close(ec);
}

asio::awaitable<Result<std::shared_ptr<BrokerConnection>>> BrokerConnection::connect(
    asio::any_io_executor ex, std::string host, uint16_t port, ConnectionOptions options) {
  auto conn = std::make_shared<BrokerConnection>(ex, std::move(options));
  Status s = co_await conn->open(std::move(host), port);
  if (s.ok()) s = co_await conn->negotiate();
  if (s.ok() && conn->options_.security.uses_sasl()) s = co_await conn->authenticate();
  if (!s.ok()) {
    conn->close(s);
    co_return s;
  }
  co_return conn;
}

asio::awaitable<Status> BrokerConnection::open(std::string host, uint16_t port) {
  address_ = fmt::format("{}:{}", host, port);
  // The deadline closes the socket (or cancels the lookup) from outside the coroutine; the
  // shared flags keep a late timer handler from touching a connection that already succeeded.
  auto resolver = std::make_shared<asio::ip::tcp::resolver>(ex_);
  auto deadline = std::make_shared<asio::steady_timer>(ex_, options_.connect_timeout);
  auto state = std::make_shared<std::pair<bool, bool>>(false, false);  // finished, timed out
  std::weak_ptr<BrokerConnection> weak = weak_from_this();
  deadline->async_wait([weak, resolver, state](asio::error_code ec) {
    if (ec || state->first) return;
    state->second = true;
    resolver->cancel();
    if (auto self = weak.lock()) {
      asio::error_code ignored;
      self->socket_.close(ignored);
    }
  });
  auto timed_out = [&] {
    return Status(ErrorCode::REQUEST_TIMED_OUT,
                  fmt::format("connecting to {} timed out after {} ms", address_,
                              options_.connect_timeout.count()));
  };
  asio::error_code ec;
  auto endpoints = co_await resolver->async_resolve(host, std::to_string(port), ec_awaitable(ec));
  if (state->second) co_return timed_out();
  if (ec) {
    state->first = true;
    deadline->cancel();
    co_return Status(ErrorCode::NETWORK_EXCEPTION,
                     fmt::format("cannot resolve {}: {}", address_, ec.message()));
  }
  co_await asio::async_connect(socket_, endpoints, ec_awaitable(ec));
  if (state->second) co_return timed_out();
  if (ec) {
    state->first = true;
    deadline->cancel();
    co_return Status(ErrorCode::NETWORK_EXCEPTION,
                     fmt::format("cannot connect to {}: {}", address_, ec.message()));
  }
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  // The TLS handshake is part of connecting: the same deadline covers it (closing the socket
  // ends the handshake's wait).
  Status handshake;
  if (options_.security.uses_tls()) {
    MIRRA_ASSERT(options_.security.tls_context != nullptr,
                 "TLS without a context: prepare_client_security() was not called");
    tls_ = std::make_unique<security::TlsStream>(options_.security.tls_context, socket_);
    handshake = co_await tls_->connect(host);
  }
  state->first = true;
  deadline->cancel();
  if (state->second) co_return timed_out();
  if (!handshake.ok()) {
    co_return Status(handshake.code(),
                     fmt::format("{} (broker {})", handshake.message(), address_));
  }
  auto self = shared_from_this();
  asio::co_spawn(
      ex_, [self]() { return self->read_loop(); }, asio::detached);
  co_return Status::OK();
}

// ApiVersions answers with header v0 whatever the version. A broker that does not know the
// version answers in the v0 layout with UNSUPPORTED_VERSION (KIP-511); like Kafka's clients, a
// body that does not decode at the version asked for is also tried as v0.
Result<Reply<protocol::ApiVersionsResponse>> BrokerConnection::decode_api_versions(
    RawBytes frame, int16_t version) const {
  const bool says_unsupported = frame.size() >= 6 &&
                                static_cast<int16_t>(records::load_be16(frame.data() + 4)) ==
                                    error_number(ErrorCode::UNSUPPORTED_VERSION);
  if (says_unsupported) {
    // Some brokers write this answer in a layout of their own (librdkafka 2.0's mock writes a
    // flexible body); the error code is all that matters, and v0 is then asked for.
    auto reply = decode_reply<protocol::ApiVersionsResponse>(std::move(frame), 0);
    if (reply.ok()) return reply;
    Reply<protocol::ApiVersionsResponse> bare;
    bare.body.error_code = error_number(ErrorCode::UNSUPPORTED_VERSION);
    return bare;
  }
  if (version == 0) return decode_reply<protocol::ApiVersionsResponse>(std::move(frame), 0);
  auto reply = decode_reply<protocol::ApiVersionsResponse>(frame, version);
  if (reply.ok()) return reply;
  return decode_reply<protocol::ApiVersionsResponse>(std::move(frame), 0);
}

asio::awaitable<Status> BrokerConnection::negotiate() {
  protocol::ApiVersionsRequest req;
  req.client_software_name = options_.software_name;
  req.client_software_version = options_.software_version;
  int16_t version = kApiVersionsFirst;
  for (int attempt = 0;; ++attempt) {
    const protocol::RequestHeader header = next_header(protocol::kApiVersionsKey, version);
    auto frame = co_await round_trip(protocol::encode_request_frame(header, req), header, true,
                                     options_.request_timeout);
    if (!frame.ok()) co_return frame.status();
    auto reply = decode_api_versions(std::move(frame.value()), version);
    if (!reply.ok()) co_return reply.status();
    const protocol::ApiVersionsResponse& body = reply->body;
    const ErrorCode code = error_from_number(body.error_code);
    if (code == ErrorCode::UNSUPPORTED_VERSION && attempt == 0) {
      int16_t broker_max = 0;
      for (const auto& k : body.api_keys) {
        if (k.api_key == protocol::kApiVersionsKey) broker_max = k.max_version;
      }
      if (broker_max < version) {
        MIRRA_LOG_DEBUG("{} refused ApiVersions v{}; retrying with v{}", address_, version,
                        broker_max);
        version = broker_max;
        continue;
      }
    }
    if (code != ErrorCode::NONE) {
      co_return Status(code, fmt::format("ApiVersions v{} to {} failed: {}", version, address_,
                                         error_message(code)));
    }
    for (const auto& k : body.api_keys)
      broker_versions_[k.api_key] = {k.min_version, k.max_version};
    co_return Status::OK();
  }
}

protocol::RequestHeader BrokerConnection::next_header(int16_t api_key, int16_t version) {
  protocol::RequestHeader h;
  h.request_api_key = api_key;
  h.request_api_version = version;
  h.correlation_id = next_correlation_id_++;
  h.client_id = options_.client_id;
  return h;
}

asio::awaitable<Result<RawBytes>> BrokerConnection::round_trip(protocol::Bytes frame,
                                                               protocol::RequestHeader header,
                                                               bool expects_response,
                                                               Millis timeout) {
  if (closed_) co_return close_reason_;
  auto pending = std::make_shared<Pending>(ex_);
  pending->timer.expires_after(timeout);
  const int32_t id = header.correlation_id;
  in_flight_[id] = pending;
  out_queue_.push_back(Outgoing{std::move(frame), pending, expects_response});
  if (!writing_) {
    writing_ = true;
    auto self = shared_from_this();
    asio::co_spawn(
        ex_, [self]() { return self->write_queued(); }, asio::detached);
  }
  while (!pending->done) {
    asio::error_code ec;
    co_await pending->timer.async_wait(ec_awaitable(ec));
    if (pending->done || ec) continue;
    // As Kafka's clients do, a timed-out request takes the connection down with it: the
    // broker may still answer, and the stream would no longer say which request it answers.
    Status st(ErrorCode::REQUEST_TIMED_OUT,
              fmt::format("{} v{} request to {} timed out after {} ms",
                          api_name(header.request_api_key), header.request_api_version, address_,
                          timeout.count()));
    close(st);
    co_return st;
  }
  if (!pending->status.ok()) co_return pending->status;
  co_return std::move(pending->frame);
}

asio::awaitable<void> BrokerConnection::write_queued() {
  while (!out_queue_.empty() && !closed_) {
    Outgoing out = std::move(out_queue_.front());
    out_queue_.pop_front();
    if (out.pending->done) continue;  // timed out or failed while queued
    Status written = co_await write_bytes(out.frame);
    if (!written.ok()) {
      close(written);
      break;
    }
    if (!out.expects_response) {
      const int32_t id = static_cast<int32_t>(records::load_be32(out.frame.data() + 8));
      in_flight_.erase(id);
      // librdkafka 2.0's mock broker answers acks=0 produce all the same: tolerate one answer.
      unanswered_.insert(id);
      if (unanswered_.size() > 1024) unanswered_.erase(unanswered_.begin());
      out.pending->complete(Status::OK());
    }
  }
  writing_ = false;
}

asio::awaitable<Status> BrokerConnection::write_bytes(std::span<const uint8_t> bytes) {
  if (tls_ != nullptr) {
    Status s = co_await tls_->write_all(bytes);
    if (!s.ok()) {
      co_return Status(s.code(), fmt::format("write to {} failed: {}", address_, s.message()));
    }
    co_return Status::OK();
  }
  asio::error_code ec;
  co_await asio::async_write(socket_, asio::buffer(bytes.data(), bytes.size()), ec_awaitable(ec));
  if (ec) {
    co_return Status(ErrorCode::NETWORK_EXCEPTION,
                     fmt::format("write to {} failed: {}", address_, ec.message()));
  }
  co_return Status::OK();
}

asio::awaitable<Status> BrokerConnection::read_bytes(std::span<uint8_t> buf) {
  if (tls_ != nullptr) {
    Status s = co_await tls_->read_exact(buf);
    if (!s.ok()) {
      co_return Status(s.code(), fmt::format("connection to {} lost: {}", address_, s.message()));
    }
    co_return Status::OK();
  }
  asio::error_code ec;
  co_await asio::async_read(socket_, asio::buffer(buf.data(), buf.size()), ec_awaitable(ec));
  if (!ec) co_return Status::OK();
  co_return Status(ErrorCode::NETWORK_EXCEPTION,
                   ec == asio::error::eof
                       ? fmt::format("connection to {} closed by the broker", address_)
                       : fmt::format("connection to {} lost: {}", address_, ec.message()));
}

asio::awaitable<void> BrokerConnection::read_loop() {
  while (!closed_) {
    uint8_t prefix[protocol::kFrameSizeBytes];
    Status got = co_await read_bytes(prefix);
    if (closed_) break;
    if (!got.ok()) {
      close(got);
      break;
    }
    auto size = protocol::read_frame_size(prefix, options_.max_response_bytes);
    if (!size.ok() || size.value() < 4) {
      close(Status(ErrorCode::CORRUPT_MESSAGE,
                   fmt::format("bad response size from {}: {}", address_,
                               size.ok() ? "shorter than a header" : size.status().message())));
      break;
    }
    RawBytes frame(static_cast<size_t>(size.value()));  // not zeroed: the read fills it
    got = co_await read_bytes(std::span<uint8_t>(frame.data(), frame.size()));
    if (closed_) break;
    if (!got.ok()) {
      close(got);
      break;
    }
    const int32_t id = static_cast<int32_t>(records::load_be32(frame.data()));
    auto it = in_flight_.find(id);
    if (it == in_flight_.end() && unanswered_.erase(id) == 1) continue;
    if (it == in_flight_.end()) {
      close(Status(ErrorCode::CORRUPT_MESSAGE,
                   fmt::format("response from {} has unknown correlation id {}", address_, id)));
      break;
    }
    auto pending = std::move(it->second);
    in_flight_.erase(it);
    pending->complete(Status::OK(), std::move(frame));
  }
}

namespace {

// The first version of an API whose throttle the client serves itself (KIP-219); before it the
// broker delayed the response instead. APIs not listed had it from their first version.
bool client_serves_throttle(int16_t api_key, int16_t version) {
  static const std::map<int16_t, int16_t> kFirst = {
      {0, 6},  {1, 8},  {2, 3},  {3, 6},  {8, 4},  {9, 4},  {10, 2}, {11, 3},
      {12, 2}, {13, 2}, {14, 2}, {15, 2}, {16, 2}, {18, 2}, {19, 3}, {20, 2},
      {21, 1}, {22, 1}, {23, 2}, {24, 1}, {25, 1}, {26, 1}, {28, 1}, {29, 1},
      {30, 1}, {31, 1}, {32, 2}, {33, 1}, {34, 1}, {35, 1}, {37, 1}, {42, 1}};
  auto it = kFirst.find(api_key);
  return it == kFirst.end() || version >= it->second;
}

}  // namespace

asio::awaitable<void> BrokerConnection::wait_out_throttle() {
  while (!closed_ && std::chrono::steady_clock::now() < throttled_until_) {
    auto timer = std::make_shared<asio::steady_timer>(ex_, throttled_until_);
    std::erase_if(throttle_waiters_, [](const auto& w) { return w.expired(); });
    throttle_waiters_.push_back(timer);
    asio::error_code ec;
    co_await timer->async_wait(ec_awaitable(ec));
  }
}

void BrokerConnection::note_throttle(int16_t api_key, int16_t version, int32_t throttle_ms) {
  if (throttle_ms <= 0) return;
  if (options_.throttled_ms_total) *options_.throttled_ms_total += throttle_ms;
  if (!client_serves_throttle(api_key, version)) return;
  throttled_until_ = std::max(throttled_until_, std::chrono::steady_clock::now() +
                                                    std::chrono::milliseconds(throttle_ms));
}

void BrokerConnection::close(const Status& why) {
  if (closed_) return;
  closed_ = true;
  close_reason_ = why.ok() ? Status(ErrorCode::NETWORK_EXCEPTION,
                                    fmt::format("connection to {} closed", address_))
                           : why;
  MIRRA_LOG_DEBUG("closing connection to {}: {}", address_, close_reason_.to_string());
  asio::error_code ec;
  socket_.close(ec);
  auto in_flight = std::move(in_flight_);
  in_flight_.clear();
  for (auto& [id, pending] : in_flight) pending->complete(close_reason_);
  out_queue_.clear();
  for (auto& w : throttle_waiters_) {
    if (auto t = w.lock()) t->cancel();
  }
  throttle_waiters_.clear();
}

Status BrokerConnection::decode_failure(std::string_view what, int16_t version,
                                        const Status& s) const {
  return Status(ErrorCode::CORRUPT_MESSAGE, fmt::format("cannot decode {} v{} from {}: {}", what,
                                                        version, address_, s.message()));
}

std::optional<std::pair<int16_t, int16_t>> BrokerConnection::broker_range(int16_t api_key) const {
  auto it = broker_versions_.find(api_key);
  if (it == broker_versions_.end()) return std::nullopt;
  return it->second;
}

Result<int16_t> BrokerConnection::version_for(int16_t api_key, std::optional<int16_t> cap) const {
  const protocol::ApiInfo* ours = protocol::find_api(api_key);
  if (ours == nullptr) {
    return Status(ErrorCode::UNSUPPORTED_VERSION,
                  fmt::format("the client has no codec for API key {}", api_key));
  }
  auto theirs = broker_range(api_key);
  if (!theirs) {
    return Status(
        ErrorCode::UNSUPPORTED_VERSION,
        fmt::format("broker {} does not support {} (API key {})", address_, ours->name, api_key));
  }
  const int16_t lo = std::max(client_min_version(api_key, ours->min_version), theirs->first);
  int16_t hi = std::min(ours->max_version, theirs->second);
  if (cap) hi = std::min(hi, *cap);
  if (hi < lo) {
    return Status(ErrorCode::UNSUPPORTED_VERSION,
                  fmt::format("no common version of {} with broker {}: broker v{}-{}, client "
                              "v{}-{}",
                              ours->name, address_, theirs->first, theirs->second,
                              client_min_version(api_key, ours->min_version),
                              cap ? std::min(*cap, ours->max_version) : ours->max_version));
  }
  return hi;
}

}  // namespace mirra::client
