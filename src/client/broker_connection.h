// One TCP connection to one Kafka-compatible broker (Mirra, Apache Kafka 2.1+, Redpanda, ...).
//
// Threading: a BrokerConnection belongs to one executor (one io_context thread) and is touched
// only from coroutines running there; it takes no locks. Any number of coroutines may call
// send() at once: requests are written in call order by whichever sender finds the socket idle,
// responses are matched to their requests by correlation id, so requests are pipelined.
//
// Security (client/security.h): with TLS, the handshake follows the TCP connect (SNI and the
// host check with the host dialled); with SASL, SaslHandshake v1 and SaslAuthenticate follow
// ApiVersions, before connect() returns the connection.
//
// Quotas (KIP-219): a response with throttle_time_ms > 0 holds back this connection's next
// requests until the throttle has passed, as Kafka's clients do, unless the response's version
// predates KIP-219 (the broker then delayed the answer itself).
//
// Lifetime: open() negotiates versions with ApiVersions (v3 with the client's software name and
// version; a broker too old for v3 answers UNSUPPORTED_VERSION with its own range, KIP-511, and
// the request is retried at that version). After any transport failure the connection is closed
// for good and every request in flight fails with the same Status; callers open a new one.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/raw_bytes.h"
#include "base/status.h"
#include "client/api_types.h"
#include "client/security.h"
#include "protocol/frame.h"

namespace mirra::client {

using Millis = std::chrono::milliseconds;

struct ConnectionOptions {
  std::string client_id = "mirra";
  std::string software_name = "mirra-client";
  std::string software_version = "0.1.0";
  Millis connect_timeout{10000};
  Millis request_timeout{30000};
  // Largest response frame accepted; a bigger size prefix is treated as a corrupt stream.
  int32_t max_response_bytes = 256 << 20;
  // TLS and SASL (client/security.h); with TLS, security.tls_context must be made.
  ClientSecurity security;
  // Where the connection adds the throttle times brokers ask of it (optional; shared by the
  // connections of one Client).
  std::shared_ptr<int64_t> throttled_ms_total;
};

// A decoded response. `frame` owns the bytes that RecordsView fields (Fetch records) point into;
// moving a Reply keeps them valid (a moved vector keeps its buffer).
template <typename Resp>
struct Reply {
  Resp body;
  int16_t version = 0;
  RawBytes frame;  // the response; body's spans point into it
};

// Per-call overrides for send().
struct SendOptions {
  std::optional<Millis> timeout;       // default: ConnectionOptions::request_timeout
  std::optional<int16_t> max_version;  // cap below the negotiated version (e.g. no topic ids)
};

class BrokerConnection : public std::enable_shared_from_this<BrokerConnection> {
 public:
  BrokerConnection(asio::any_io_executor ex, ConnectionOptions options);
  ~BrokerConnection();
  BrokerConnection(const BrokerConnection&) = delete;
  BrokerConnection& operator=(const BrokerConnection&) = delete;

  // Resolves, connects within connect_timeout and negotiates API versions.
  static asio::awaitable<Result<std::shared_ptr<BrokerConnection>>> connect(
      asio::any_io_executor ex, std::string host, uint16_t port, ConnectionOptions options);

  // The highest version of `api_key` both sides speak, or UNSUPPORTED_VERSION naming the API
  // and both ranges.
  Result<int16_t> version_for(int16_t api_key, std::optional<int16_t> cap = std::nullopt) const;
  // The broker's advertised range for a key, if it has one.
  std::optional<std::pair<int16_t, int16_t>> broker_range(int16_t api_key) const;

  // Sends one request at version_for(Req::kApiKey) and decodes its response. A Produce request
  // with acks=0 gets no response from the broker: the Reply is then empty and comes back once
  // the request is written.
  template <typename Req>
  asio::awaitable<Result<Reply<response_t<Req>>>> send(const Req& req, SendOptions opts = {});

  bool is_open() const { return !closed_; }
  // Fails every request in flight with `why` and closes the socket.
  void close(const Status& why);
  // "host:port", for messages.
  const std::string& address() const { return address_; }

 private:
  struct Pending;
  struct Outgoing {
    protocol::Bytes frame;
    std::shared_ptr<Pending> pending;
    bool expects_response = true;
  };

  asio::awaitable<Status> open(std::string host, uint16_t port);
  asio::awaitable<Status> negotiate();
  // SaslHandshake v1, then SaslAuthenticate rounds until the mechanism is done.
  asio::awaitable<Status> authenticate();
  // The socket's bytes, through TLS when the connection has it.
  asio::awaitable<Status> read_bytes(std::span<uint8_t> buf);
  asio::awaitable<Status> write_bytes(std::span<const uint8_t> bytes);
  Result<Reply<protocol::ApiVersionsResponse>> decode_api_versions(RawBytes frame,
                                                                   int16_t version) const;
  // Writes `frame` (correlation id already in it) and waits for its response frame, or only for
  // the write when !expects_response.
  asio::awaitable<Result<RawBytes>> round_trip(protocol::Bytes frame,
                                               protocol::RequestHeader header,
                                               bool expects_response, Millis timeout);
  asio::awaitable<void> write_queued();
  asio::awaitable<void> read_loop();
  protocol::RequestHeader next_header(int16_t api_key, int16_t version);
  Status decode_failure(std::string_view what, int16_t version, const Status& s) const;

  template <typename Resp>
  Result<Reply<Resp>> decode_reply(RawBytes frame, int16_t version) const;
  // Quotas: waits until the last throttle a broker asked for has passed (or the connection
  // closes); notes a response's throttle time.
  asio::awaitable<void> wait_out_throttle();
  void note_throttle(int16_t api_key, int16_t version, int32_t throttle_ms);

  asio::any_io_executor ex_;
  ConnectionOptions options_;
  asio::ip::tcp::socket socket_;
  std::unique_ptr<security::TlsStream> tls_;  // over socket_, with TLS only
  std::string address_;
  int32_t next_correlation_id_ = 0;
  std::map<int32_t, std::shared_ptr<Pending>> in_flight_;
  std::set<int32_t> unanswered_;  // acks=0 produce requests already written
  std::deque<Outgoing> out_queue_;
  bool writing_ = false;
  bool closed_ = false;
  Status close_reason_;
  std::map<int16_t, std::pair<int16_t, int16_t>> broker_versions_;
  std::chrono::steady_clock::time_point throttled_until_{};
  std::vector<std::weak_ptr<asio::steady_timer>> throttle_waiters_;  // woken by close()
};

// ---- template implementation ------------------------------------------------------------------

template <typename Resp>
Result<Reply<Resp>> BrokerConnection::decode_reply(RawBytes frame, int16_t version) const {
  const protocol::ApiInfo* api = protocol::find_api(Resp::kApiKey);
  protocol::Reader r(frame);
  protocol::ResponseHeader header;
  if (Status s = header.decode(r, protocol::response_header_version(*api, version)); !s.ok()) {
    return decode_failure("ResponseHeader", version, s);
  }
  Reply<Resp> reply;
  reply.version = version;
  if (Status s = reply.body.decode(r, version); !s.ok()) {
    return decode_failure(Resp::kName, version, s);
  }
  reply.frame = std::move(frame);
  return reply;
}

template <typename Req>
asio::awaitable<Result<Reply<response_t<Req>>>> BrokerConnection::send(const Req& req,
                                                                       SendOptions opts) {
  using Resp = response_t<Req>;
  auto version = version_for(Req::kApiKey, opts.max_version);
  if (!version.ok()) co_return version.status();
  co_await wait_out_throttle();
  const protocol::RequestHeader header = next_header(Req::kApiKey, version.value());
  const bool expects = expects_response(req);
  auto frame = co_await round_trip(protocol::encode_request_frame(header, req), header, expects,
                                   opts.timeout.value_or(options_.request_timeout));
  if (!frame.ok()) co_return frame.status();
  if (!expects) co_return Reply<Resp>{Resp{}, version.value(), {}};
  auto reply = decode_reply<Resp>(std::move(frame.value()), version.value());
  if constexpr (requires { reply.value().body.throttle_time_ms; }) {
    if (reply.ok())
      note_throttle(Req::kApiKey, version.value(), reply.value().body.throttle_time_ms);
  }
  co_return reply;
}

}  // namespace mirra::client
