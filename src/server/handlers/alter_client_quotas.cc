// AlterClientQuotas (key 49): sets and removes client quotas, one answer per entry. Each entry
// is checked on its own (quota::QuotaTable::validate: a valid user and/or client-id entity,
// known keys, each at most once, valid values; INVALID_REQUEST otherwise, as in Kafka) and a
// refused entry changes nothing. The accepted entries of a request are one metadata change
// (ClientQuotaRecords, docs/formats/metadata.md), applied to the image the quota managers read,
// so the new limits hold from the next request on. `validate_only` checks and writes nothing.
// Needs ALTER_CONFIGS on the cluster.
#include "protocol/messages/alter_client_quotas.h"

#include "cluster/metadata_store.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using Request = protocol::AlterClientQuotasRequest;
using Resp = protocol::AlterClientQuotasResponse;

std::vector<quota::EntityComponent> components_of(const Request::EntryData& e) {
  std::vector<quota::EntityComponent> out;
  for (const auto& c : e.entity) out.push_back({c.entity_type, c.entity_name});
  return out;
}

// The entry's records, or why it is refused.
Result<std::vector<metadata::MetadataRecord>> records_of(const Request::EntryData& e) {
  auto entity = quota::entity_from_wire(components_of(e));
  if (!entity.ok()) return entity.status();
  std::vector<quota::QuotaOp> ops;
  for (const auto& op : e.ops) ops.push_back({op.key, op.value, op.remove});
  if (Status s = quota::QuotaTable::validate(*entity, ops); !s.ok()) return s;
  std::vector<metadata::QuotaEntityPart> parts;
  for (const quota::EntityComponent& c : quota::entity_to_wire(*entity))
    parts.push_back({c.entity_type, c.name});
  std::vector<metadata::MetadataRecord> records;
  for (const quota::QuotaOp& op : ops) {
    records.push_back(
        metadata::ClientQuotaRecord{parts, op.key, op.remove ? 0 : op.value, op.remove});
  }
  return records;
}

void add_result(Resp& resp, const Request::EntryData& e, const Status& s) {
  auto& out = resp.entries.emplace_back();
  out.error_code = error_number(s.code());
  out.error_message = s.ok() ? std::nullopt : std::optional<std::string>(s.message());
  for (const auto& c : e.entity) {
    auto& part = out.entity.emplace_back();
    part.entity_type = c.entity_type;
    part.entity_name = c.entity_name;
  }
}

}  // namespace

asio::awaitable<HandlerResult> handle_alter_client_quotas(RequestContext& ctx) {
  auto req = decode_body<Request>(ctx);
  if (!req.ok()) co_return req.status();
  const Request& r = req.value();
  Resp resp;
  if (!authorized_on_cluster(ctx, AclOperation::alter_configs)) {
    for (const auto& e : r.entries)
      add_result(resp, e, cluster_authorization_failed(AclOperation::alter_configs));
    co_return respond(ctx, resp);
  }
  std::vector<Status> results;
  std::vector<metadata::MetadataRecord> records;
  for (const auto& e : r.entries) {
    auto rs = records_of(e);
    results.push_back(rs.status());
    if (rs.ok()) records.insert(records.end(), rs->begin(), rs->end());
  }
  Status written = Status::OK();
  if (!r.validate_only && !records.empty()) {
    written = co_await ctx.broker->metadata->change(
        [&](const metadata::MetadataImage&) -> Result<std::vector<metadata::MetadataRecord>> {
          return records;
        });
  }
  for (size_t i = 0; i < r.entries.size(); ++i) {
    // A failed metadata write fails every entry the request would have changed.
    add_result(resp, r.entries[i], results[i].ok() ? written : results[i]);
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
