// DescribeCluster (key 60): the cluster id, this node as controller and only broker (at the
// advertised endpoint of the listener the request came in on), and the cluster operations
// allowed when asked. v1 may ask for controller endpoints, which a broker does not serve.
#include "protocol/messages/describe_cluster.h"

#include <fmt/format.h>

#include "server/handlers/authorize.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::DescribeClusterRequest;
using protocol::DescribeClusterResponse;

constexpr int8_t kBrokerEndpoints = 1;

}  // namespace

asio::awaitable<HandlerResult> handle_describe_cluster(RequestContext& ctx) {
  auto req = decode_body<DescribeClusterRequest>(ctx);
  if (!req.ok()) co_return req.status();
  DescribeClusterResponse resp;
  resp.endpoint_type = req->endpoint_type;
  if (req->endpoint_type != kBrokerEndpoints) {
    resp.error_code = error_number(ErrorCode::UNSUPPORTED_ENDPOINT_TYPE);
    resp.error_message = fmt::format(
        "endpoint type {} was requested from a broker, which serves broker endpoints (type 1) only",
        req->endpoint_type);
    co_return respond(ctx, resp);
  }
  const BrokerState& b = *ctx.broker;
  const AdvertisedEndpoint& ep = ctx.endpoint();
  resp.cluster_id = b.cluster_id;
  resp.controller_id = b.config->node_id;
  resp.brokers.push_back({b.config->node_id, ep.host, ep.port, std::nullopt, {}});
  // Filled only for who may DESCRIBE the cluster, as Kafka does.
  if (req->include_cluster_authorized_operations &&
      authorized_on_cluster(ctx, AclOperation::describe)) {
    resp.cluster_authorized_operations = authorized_operations(
        ctx, ResourceType::cluster, security::kClusterResourceName, kAllClusterOperations);
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
