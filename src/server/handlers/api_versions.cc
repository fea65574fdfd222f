// ApiVersions (key 18): the advertised ranges come from the generated API table, so they can
// never disagree with the codecs. Produce is advertised from v0 although v0-2 are refused:
// librdkafka enables compression only when Produce v0 is in range (docs/protocol.md).
#include "protocol/messages/api_versions.h"

#include "server/dispatch.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

protocol::ApiVersionsResponse full_list() {
  protocol::ApiVersionsResponse resp;
  // Only APIs with a handler are advertised: clients pick features by what is listed
  // (librdkafka enables consumer groups only when FindCoordinator and JoinGroup are).
  for (const protocol::ApiInfo& api : protocol::all_apis()) {
    if (find_handler(api.key) == nullptr) continue;
    resp.api_keys.push_back({api.key, api.min_version, api.max_version, {}});
  }
  // v3+: no supported or finalized features (no KRaft feature levels yet); epoch stays -1
  // and zk_migration_ready false, their defaults, so the tagged fields are not even written.
  return resp;
}

}  // namespace

protocol::Bytes api_versions_unsupported_response(int32_t correlation_id) {
  protocol::ApiVersionsResponse resp = full_list();
  resp.error_code = error_number(ErrorCode::UNSUPPORTED_VERSION);
  return protocol::encode_response_frame(correlation_id, 0, resp);
}

asio::awaitable<HandlerResult> handle_api_versions(RequestContext& ctx) {
  auto req = decode_body<protocol::ApiVersionsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  co_return respond(ctx, full_list());
}

}  // namespace mirra::server
