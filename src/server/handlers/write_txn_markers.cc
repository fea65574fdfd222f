// WriteTxnMarkers (key 27): markers written on request. Kafka's coordinators send it to
// partition leaders; on one node Mirra's coordinator writes its markers directly, so this
// serves admin tools: kafka-transactions.sh abort closes a hanging transaction this way.
#include "protocol/messages/write_txn_markers.h"

#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"
#include "txn/markers.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_write_txn_markers(RequestContext& ctx) {
  auto req = decode_body<protocol::WriteTxnMarkersRequest>(ctx);
  if (!req.ok()) co_return req.status();
  protocol::WriteTxnMarkersResponse resp;
  for (const auto& marker : req->markers) {
    auto& mout = resp.markers.emplace_back();
    mout.producer_id = marker.producer_id;
    for (const auto& t : marker.topics) {
      auto& tout = mout.topics.emplace_back();
      tout.name = t.name;
      for (int32_t index : t.partition_indexes) {
        auto& pout = tout.partitions.emplace_back();
        pout.partition_index = index;
        PartitionLookup found = find_partition(ctx, t.name, index);
        if (found.error != ErrorCode::NONE) {
          pout.error_code = error_number(found.error);
          continue;
        }
        auto written = co_await txn::start_marker(*ctx.broker->partitions, found.partition,
                                                  marker.producer_id, marker.producer_epoch,
                                                  marker.coordinator_epoch,
                                                  marker.transaction_result)
                           ->wait();
        pout.error_code = error_number(written.ok() ? ErrorCode::NONE : written.status().code());
      }
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
