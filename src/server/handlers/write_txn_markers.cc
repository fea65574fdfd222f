// WriteTxnMarkers (key 27): an inter-broker API. Kafka's transaction coordinators send it to
// partition leaders, and Kafka allows it only to principals with CLUSTER_ACTION. On one node
// Mirra's coordinator writes its markers itself (txn/markers.h), so no client legitimately
// sends it, and a marker from a client could end any producer's transaction or land in a
// read-only mirror topic at an offset where its source has a record. So it is refused from every
// client, with or without CLUSTER_ACTION, as Kafka refuses a principal without it:
// CLUSTER_AUTHORIZATION_FAILED for each partition, nothing written. It stays advertised, as
// Kafka advertises it. The refusals are logged, at most one line a minute.
#include "protocol/messages/write_txn_markers.h"

#include <atomic>

#include "base/clock.h"
#include "base/log.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

constexpr const char* kMirraLogComponent = "txn";
constexpr int64_t kLogIntervalMs = 60000;

// The first refusal is logged, then one line a minute counting those not logged.
void log_refusal(const RequestContext& ctx) {
  static std::atomic<int64_t> next_log_ms{0};
  static std::atomic<uint64_t> unlogged{0};
  const int64_t now = steady_ms();
  int64_t due = next_log_ms.load();
  if (now < due || !next_log_ms.compare_exchange_strong(due, now + kLogIntervalMs)) {
    unlogged.fetch_add(1);
    return;
  }
  const uint64_t more = unlogged.exchange(0);
  MIRRA_LOG_WARN(
      "refused WriteTxnMarkers from {} (client id '{}'): an inter-broker API, not open to "
      "clients; {} more refused since the last line",
      ctx.connection != nullptr ? ctx.connection->peer : std::string("-"),
      ctx.header.client_id.value_or(""), more);
}

}  // namespace

asio::awaitable<HandlerResult> handle_write_txn_markers(RequestContext& ctx) {
  auto req = decode_body<protocol::WriteTxnMarkersRequest>(ctx);
  if (!req.ok()) co_return req.status();
  log_refusal(ctx);
  const int16_t refused = error_number(ErrorCode::CLUSTER_AUTHORIZATION_FAILED);
  protocol::WriteTxnMarkersResponse resp;
  for (const auto& marker : req->markers) {
    auto& mout = resp.markers.emplace_back();
    mout.producer_id = marker.producer_id;
    for (const auto& t : marker.topics) {
      auto& tout = mout.topics.emplace_back();
      tout.name = t.name;
      for (int32_t index : t.partition_indexes) tout.partitions.push_back({index, refused, {}});
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
