// IncrementalAlterConfigs (key 44): SET, DELETE, APPEND and SUBTRACT (the last two for list
// configs, on the value the resource has now) on topics and on the cluster-wide broker
// defaults (broker resource ""); keys the request does not name keep their values.
#include "protocol/messages/incremental_alter_configs.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "base/text.h"
#include "server/handlers/config_resources.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::IncrementalAlterConfigsRequest;
using protocol::IncrementalAlterConfigsResponse;
using AlterableConfig = IncrementalAlterConfigsRequest::AlterableConfig;

enum Op : int8_t { kSet = 0, kDelete = 1, kAppend = 2, kSubtract = 3 };

std::string join_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

// APPEND adds the items not there yet, SUBTRACT removes the ones given (Kafka's rules).
Result<std::string> list_operation(const RequestContext& ctx, ConfigTarget target,
                                   const std::string& resource, const AlterableConfig& c) {
  const char* verb = c.config_operation == kAppend ? "append" : "subtract";
  if (config_type(target, c.name) != cluster::ConfigType::kList) {
    return Status(ErrorCode::INVALID_CONFIG,
                  fmt::format("cannot {} to config {}: its type is not LIST", verb, c.name));
  }
  std::vector<std::string> items =
      split_list(effective_value(ctx, target, resource, c.name).value_or(""));
  for (const std::string& part : split_list(c.value.value_or(""))) {
    auto it = std::find(items.begin(), items.end(), part);
    if (c.config_operation == kAppend && it == items.end()) items.push_back(part);
    if (c.config_operation == kSubtract && it != items.end()) items.erase(it);
  }
  return join_list(items);
}

Result<ConfigChanges> changes_of(const RequestContext& ctx, ConfigTarget target,
                                 const IncrementalAlterConfigsRequest::AlterConfigsResource& r) {
  ConfigChanges changes;
  for (const AlterableConfig& c : r.configs) {
    if (changes.count(c.name) != 0) {
      return Status(ErrorCode::INVALID_REQUEST,
                    fmt::format("config {} is listed more than once", c.name));
    }
    switch (c.config_operation) {
      case kSet:
        if (!c.value) {
          return Status(ErrorCode::INVALID_REQUEST,
                        fmt::format("null value for config {}", c.name));
        }
        changes[c.name] = c.value;
        break;
      case kDelete:
        changes[c.name] = std::nullopt;
        break;
      case kAppend:
      case kSubtract: {
        auto v = list_operation(ctx, target, r.resource_name, c);
        if (!v.ok()) return v.status();
        changes[c.name] = v.value();
        break;
      }
      default:
        return Status(
            ErrorCode::INVALID_REQUEST,
            fmt::format("unknown config operation {} for config {}", c.config_operation, c.name));
    }
  }
  return changes;
}

}  // namespace

asio::awaitable<HandlerResult> handle_incremental_alter_configs(RequestContext& ctx) {
  auto req = decode_body<IncrementalAlterConfigsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  auto resp =
      co_await alter_each_resource<IncrementalAlterConfigsResponse>(ctx, req.value(), &changes_of);
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
