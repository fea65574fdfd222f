// What a handler sees of a request, and what it gives back.
//
// Threading: every handler runs on the core thread (see server.h), so BrokerState needs no
// locks. A handler that must wait (long-poll fetch, acks, disk work posted to a worker pool)
// co_awaits; the connection keeps later responses queued behind it so clients still see them
// in request order.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/status.h"
#include "protocol/api_table.h"
#include "protocol/frame.h"
#include "security/scram.h"
#include "server/config.h"
#include "server/response.h"

namespace mirra::cluster {
class MetadataStore;
class PartitionManager;
class TopicAdmin;
}  // namespace mirra::cluster

namespace mirra::groups {
class GroupCoordinator;
}  // namespace mirra::groups

namespace mirra::txn {
class TxnCoordinator;
}  // namespace mirra::txn

namespace mirra::mirror {
class MirrorAdmin;
class MirrorManager;
}  // namespace mirra::mirror

namespace mirra::security {
class Authorizer;
}  // namespace mirra::security

namespace mirra::share {
class ShareState;
class ShareStore;
}  // namespace mirra::share

namespace mirra::server {

class FetchSessionCache;
class ClientQuotas;
class BrokerMetrics;
struct QuotaClient;

struct ConnectionInfo {
  uint64_t id = 0;
  std::string peer;      // "127.0.0.1:53422", for log lines
  std::string listener;  // listener name
  std::string host;      // the client's IP address as text, for ACL host matching
  // "User:ANONYMOUS" until TLS or SASL says who the client is (docs/security.md).
  std::string principal = "User:ANONYMOUS";
};

class SaslSession;
struct ListenerSecurity;

// What a connection lends the handlers of its requests for authentication
// (server/sasl_session.h); absent on listeners without SASL and in-process.
struct ConnectionSecurity {
  SaslSession* sasl = nullptr;
  const ListenerSecurity* listener = nullptr;
  bool close_after_response = false;  // set by a handler: close once this answer is written
};

// An advertised endpoint: what Metadata and DescribeCluster tell clients to connect to.
struct AdvertisedEndpoint {
  std::string listener;
  std::string host;
  int32_t port = 0;
};

// Broker-wide state handlers read and change. Owned by the core thread; grows with the broker
// (coordinators, mirrors). The pointers are set by server/broker.cc before any connection is
// accepted; in handler unit tests only what a test needs.
struct BrokerState {
  const ServerConfig* config = nullptr;
  std::string log_dir;
  std::vector<AdvertisedEndpoint> endpoints;  // one per listener, bound ports filled in
  cluster::MetadataStore* metadata = nullptr;
  cluster::PartitionManager* partitions = nullptr;
  cluster::TopicAdmin* topic_admin = nullptr;
  std::string cluster_id;
  FetchSessionCache* fetch_sessions = nullptr;
  groups::GroupCoordinator* groups = nullptr;
  // Share groups' partitions and sessions (share/share_state.h): ShareFetch, ShareAcknowledge.
  share::ShareState* share = nullptr;
  // Where acknowledged share state is made durable before it is answered (share/share_store.h).
  share::ShareStore* share_store = nullptr;
  txn::TxnCoordinator* txn = nullptr;
  mirror::MirrorAdmin* mirrors = nullptr;
  mirror::MirrorManager* mirror_manager = nullptr;
  // The ACL authorizer (authorizer.class.name); null when none is configured. Its ACLs follow
  // the metadata image (server/handlers/authorize.h: ask through authorized()).
  security::Authorizer* authorizer = nullptr;
  // Static settings (server.properties + overrides) by key, for DescribeConfigs and topic
  // config defaults.
  const std::map<std::string, std::string>* static_settings = nullptr;
  // A user's SCRAM credential for a mechanism, from the metadata image (null: none known).
  std::function<std::optional<security::ScramCredential>(const std::string& user,
                                                         security::ScramMechanism mechanism)>
      scram_credential;
  // Upper bound on a Fetch's max_wait_ms: unbounded for clients; 0 in-process (fuzzing), where
  // nothing else would ever wake the fetch.
  std::chrono::milliseconds max_fetch_wait = std::chrono::milliseconds::max();
  // Client quotas at work (server/client_quotas.h); null: no quotas (handler unit tests).
  ClientQuotas* quotas = nullptr;
  // The counters of /metrics (server/broker_metrics.h); null: none kept (handler unit tests).
  BrokerMetrics* metrics = nullptr;
};

struct RequestContext {
  protocol::RequestHeader header;
  // The whole request frame, owned by the connection until the handler has finished. Writable
  // because Produce assigns offsets in the client's batches in place, as Kafka does.
  std::span<uint8_t> frame;
  const protocol::ApiInfo* api = nullptr;
  int16_t api_version = 0;
  std::span<const uint8_t> body;  // into the frame buffer, alive until the handler returns
  const ConnectionInfo* connection = nullptr;
  BrokerState* broker = nullptr;
  ConnectionSecurity* security = nullptr;

  // The writable bytes behind a records field decoded from this request's body.
  std::span<uint8_t> writable(const protocol::RecordsView& v) const {
    return frame.subspan(static_cast<size_t>(v.data - frame.data()), v.size);
  }
  // The endpoint of the listener this request arrived on.
  const AdvertisedEndpoint& endpoint() const;

  // Client quotas (server/client_quotas.h, docs/quotas.md). `started`: when dispatch began;
  // `waited`: time the request spent waiting on others rather than keeping the broker busy
  // (a fetch's long poll, a rebalance), which request_percentage does not count; `throttle_ms`:
  // the byte-rate throttle its handler computed. settle_throttle() adds the request time.
  std::chrono::steady_clock::time_point started{};
  std::chrono::nanoseconds waited{0};
  int64_t throttle_ms = 0;
  bool throttle_settled = false;
  // The answer's top-level error code, for /metrics (set by respond()).
  int16_t error_code = 0;

  // The user (principal name) and client id the request counts against.
  QuotaClient quota_client() const;
};

// Records the request's time against its request_percentage quota (once) and returns the
// throttle time its response carries: the larger of that and the handler's byte-rate
// throttle, in int32 range.
int32_t settle_throttle(RequestContext& ctx);

// A response (server/response.h), or a Status whose message says why the connection must
// close instead (logged with the client address). An empty response writes nothing (Produce
// with acks=0).
using HandlerResult = Result<Response>;
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

// Sets the response's throttle_time_ms (when the API has one) to the request's throttle and
// tells the connection to mute for as long (Response::throttle_ms).
template <typename Resp>
int32_t apply_throttle(RequestContext& ctx, Resp& resp) {
  const int32_t throttle = settle_throttle(ctx);
  if constexpr (requires { resp.error_code; }) {
    if constexpr (std::is_integral_v<std::decay_t<decltype(resp.error_code)>>) {
      ctx.error_code = resp.error_code;
    }
  }
  if constexpr (requires { resp.throttle_time_ms; }) {
    if (throttle > resp.throttle_time_ms) resp.throttle_time_ms = throttle;
  }
  return throttle;
}

template <typename Resp>
Response respond(RequestContext& ctx, Resp& resp) {
  const int32_t throttle = apply_throttle(ctx, resp);
  Response out = protocol::encode_response_frame(ctx.header.correlation_id, ctx.api_version, resp);
  out.throttle_ms = throttle;
  return out;
}
template <typename Resp>
Response respond(RequestContext& ctx, const Resp& resp) {
  Resp copy = resp;
  return respond(ctx, copy);
}

// A response whose external records views (RecordsView::external, FileSliceLists owned by
// keep_alive) are sent from their files.
template <typename Resp>
Response respond_spliced(RequestContext& ctx, Resp& resp, std::shared_ptr<const void> keep_alive) {
  const int32_t throttle = apply_throttle(ctx, resp);
  Response out(
      protocol::encode_response_frame_spliced(ctx.header.correlation_id, ctx.api_version, resp),
      std::move(keep_alive));
  out.throttle_ms = throttle;
  return out;
}

}  // namespace mirra::server
