// AlterConfigs (key 33): the legacy, non-incremental form. Each resource's configs replace its
// whole override set: keys the request does not name go back to their defaults. Topics, the
// cluster-wide broker defaults (broker resource "") and this broker's own dynamic configs
// (resource "<node id>"); validate_only checks without writing.
#include "protocol/messages/alter_configs.h"

#include "server/handlers/config_resources.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::AlterConfigsRequest;
using protocol::AlterConfigsResponse;

Result<ConfigChanges> replacing_changes(const RequestContext& ctx, ConfigTarget target,
                                        const AlterConfigsRequest::AlterConfigsResource& r) {
  ConfigChanges changes;
  for (const auto& c : r.configs) changes[c.name] = c.value;  // null: back to the default
  for (const auto& [key, value] : current_overrides(ctx, target, r.resource_name)) {
    changes.try_emplace(key, std::nullopt);
  }
  return changes;
}

}  // namespace

asio::awaitable<HandlerResult> handle_alter_configs(RequestContext& ctx) {
  auto req = decode_body<AlterConfigsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  auto resp =
      co_await alter_each_resource<AlterConfigsResponse>(ctx, req.value(), &replacing_changes);
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
