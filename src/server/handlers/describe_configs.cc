// DescribeConfigs (key 32, v1-4): every config of a topic (its overrides, the broker defaults
// they fall back to, Kafka's defaults) or of the broker, with its source; synonyms on request,
// config types and documentation from v3. Unknown topics and bad resources are answered per
// resource.
#include "protocol/messages/describe_configs.h"

#include <algorithm>

#include "server/handlers/config_resources.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::DescribeConfigsRequest;
using protocol::DescribeConfigsResponse;

bool wanted(const DescribeConfigsRequest::DescribeConfigsResource& r, const std::string& key) {
  // Null or empty: every key (Kafka treats both alike).
  if (!r.configuration_keys || r.configuration_keys->empty()) return true;
  const auto& keys = *r.configuration_keys;
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

DescribeConfigsResponse::DescribeConfigsResourceResult encode_entry(
    const ConfigEntry& e, const DescribeConfigsRequest& req) {
  DescribeConfigsResponse::DescribeConfigsResourceResult out;
  out.name = e.name;
  out.value = e.value;
  out.read_only = e.read_only;
  out.config_source = static_cast<int8_t>(e.source);
  out.is_sensitive = e.sensitive;
  if (req.include_synonyms) {
    for (const auto& s : e.synonyms) {
      std::optional<std::string> value;
      if (!e.sensitive) value = s.value;
      out.synonyms.push_back({s.name, value, static_cast<int8_t>(s.source), {}});
    }
  }
  out.config_type = static_cast<int8_t>(e.type);
  out.documentation = std::nullopt;
  if (req.include_documentation) out.documentation = std::string(e.doc);
  return out;
}

}  // namespace

asio::awaitable<HandlerResult> handle_describe_configs(RequestContext& ctx) {
  auto req = decode_body<DescribeConfigsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  DescribeConfigsResponse resp;
  for (const auto& r : req->resources) {
    auto& out = resp.results.emplace_back();
    out.resource_type = r.resource_type;
    out.resource_name = r.resource_name;
    out.error_message = std::nullopt;
    Status access = check_config_access(ctx, r.resource_type, r.resource_name, false);
    auto target = access.ok() ? resolve_config_resource(ctx, r.resource_type, r.resource_name)
                              : Result<ConfigTarget>(access);
    if (!target.ok()) {
      out.error_code = error_number(target.status().code());
      out.error_message = error_message(target.status());
      continue;
    }
    for (const ConfigEntry& e : describe_config_entries(ctx, target.value(), r.resource_name)) {
      if (wanted(r, e.name)) out.configs.push_back(encode_entry(e, req.value()));
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
