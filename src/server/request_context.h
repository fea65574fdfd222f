// What a handler sees of a request, and what it gives back.
//
// Threading: every handler runs on the core thread (see server.h), so BrokerState needs no
// locks. A handler that must wait (long-poll fetch, acks, disk work posted to a worker pool)
// co_awaits; the connection keeps later responses queued behind it so clients still see them
// in request order.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "base/status.h"
#include "protocol/api_table.h"
#include "protocol/frame.h"
#include "base/asio.h"
#include "server/config.h"

namespace mirra::server {

struct ConnectionInfo {
  uint64_t id = 0;
  std::string peer;      // "127.0.0.1:53422", for log lines
  std::string listener;  // listener name
};

// Broker-wide state handlers read and change. Owned by the core thread; grows with the broker
// (metadata image, partition logs, coordinators).
struct BrokerState {
  const ServerConfig* config = nullptr;
};

struct RequestContext {
  protocol::RequestHeader header;
  const protocol::ApiInfo* api = nullptr;
  int16_t api_version = 0;
  std::span<const uint8_t> body;  // into the frame buffer, alive until the handler returns
  const ConnectionInfo* connection = nullptr;
  BrokerState* broker = nullptr;
};

// A complete response frame (size prefix included), or a Status whose message says why the
// connection must close instead (logged with the client address).
using HandlerResult = Result<protocol::Bytes>;
using Handler = asio::awaitable<HandlerResult> (*)(RequestContext&);

// Decodes the body as the handler's request type. Trailing bytes after a valid body are
// tolerated, as Kafka does.
template <typename Req>
Result<Req> decode_body(const RequestContext& ctx) {
  Req req;
  protocol::Reader r(ctx.body);
  Status s = req.decode(r, ctx.api_version);
  if (!s.ok()) return s;
  return req;
}

template <typename Resp>
protocol::Bytes respond(const RequestContext& ctx, const Resp& resp) {
  return protocol::encode_response_frame(ctx.header.correlation_id, ctx.api_version, resp);
}

}  // namespace mirra::server
