// DescribeClientQuotas (key 48): the client quotas the filter selects, from the metadata image
// (quota::QuotaTable::describe has Kafka's match rules: exact name, default entity, any entity
// of the type, the default included; `strict` leaves out entities with parts the filter does not
// name). A bad filter is INVALID_REQUEST for the whole request, with no entries (null), as in
// Kafka. Needs DESCRIBE_CONFIGS on the cluster.
#include "protocol/messages/describe_client_quotas.h"

#include "cluster/metadata_store.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using Request = protocol::DescribeClientQuotasRequest;
using Resp = protocol::DescribeClientQuotasResponse;

quota::DescribeFilter filter_of(const Request& req) {
  quota::DescribeFilter f;
  f.strict = req.strict;
  for (const auto& c : req.components) {
    // Codes outside 0..2 fail in describe() through an unknown match type.
    f.components.push_back({c.entity_type, static_cast<quota::MatchType>(c.match_type), c.match});
  }
  return f;
}

Resp::EntryData entry_of(const quota::DescribedEntry& e) {
  Resp::EntryData out;
  for (const quota::EntityComponent& c : quota::entity_to_wire(e.entity)) {
    auto& part = out.entity.emplace_back();
    part.entity_type = c.entity_type;
    part.entity_name = c.name;
  }
  for (const auto& [key, value] : e.values) {
    auto& v = out.values.emplace_back();
    v.key = key;
    v.value = value;
  }
  return out;
}

}  // namespace

asio::awaitable<HandlerResult> handle_describe_client_quotas(RequestContext& ctx) {
  auto req = decode_body<Request>(ctx);
  if (!req.ok()) co_return req.status();
  if (auto refused = refuse_unless_on_cluster<Resp>(ctx, AclOperation::describe_configs)) {
    refused->entries.reset();
    co_return respond(ctx, *refused);
  }
  Resp resp;
  auto found = ctx.broker->metadata->image().client_quotas().describe(filter_of(req.value()));
  if (!found.ok()) {
    resp.error_code = error_number(found.status().code());
    resp.error_message = found.status().message();
    resp.entries.reset();
    co_return respond(ctx, resp);
  }
  resp.entries.emplace();  // not null: an answer, even an empty one
  for (const quota::DescribedEntry& e : found.value()) resp.entries->push_back(entry_of(e));
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
