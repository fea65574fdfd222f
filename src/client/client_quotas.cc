// Client's quota calls. Any broker answers them: the quotas are records of the metadata log,
// which every broker holds, and AlterClientQuotas is forwarded to the controller as the other
// metadata changes are (Kafka's kafka-configs.sh likewise sends them to any broker).
#include <fmt/format.h>

#include "client/client.h"
#include "client/client_routing.h"

namespace mirra::client {
namespace {

auto never_misrouted = [](const auto&) { return false; };

// "user 'alice', client-id default" for error messages.
std::string entity_label(const QuotaEntity& entity) {
  std::string out;
  for (const QuotaEntityPart& p : entity) {
    if (!out.empty()) out += ", ";
    out += p.name ? fmt::format("{} '{}'", p.type, *p.name) : fmt::format("{} default", p.type);
  }
  return out.empty() ? "the empty entity" : out;
}

template <typename WireParts>
QuotaEntity entity_of(const WireParts& parts) {
  QuotaEntity out;
  for (const auto& p : parts) out.push_back({p.entity_type, p.entity_name});
  return out;
}

}  // namespace

asio::awaitable<Result<std::vector<QuotaEntry>>> Client::describe_client_quotas(
    QuotaFilter filter) {
  protocol::DescribeClientQuotasRequest req;
  req.strict = filter.strict;
  for (QuotaFilterComponent& c : filter.components) {
    auto& out = req.components.emplace_back();
    out.entity_type = std::move(c.entity_type);
    out.match_type = static_cast<int8_t>(c.match_type);
    out.match = c.match_type == QuotaMatchType::exact ? std::move(c.match) : std::nullopt;
  }
  auto reply = co_await send_admin(req, false, never_misrouted);
  if (!reply.ok()) co_return reply.status();
  const auto& body = reply->body;
  if (Status s = status_from(body.error_code, body.error_message, "describe client quotas");
      !s.ok())
    co_return s;
  std::vector<QuotaEntry> out;
  if (!body.entries) co_return out;
  for (const auto& e : *body.entries) {
    QuotaEntry& entry = out.emplace_back();
    entry.entity = entity_of(e.entity);
    for (const auto& v : e.values) entry.values.push_back({v.key, v.value});
  }
  co_return out;
}

asio::awaitable<Result<std::vector<QuotaAlterationResult>>> Client::alter_client_quotas(
    std::vector<QuotaAlteration> alterations, bool validate_only) {
  protocol::AlterClientQuotasRequest req;
  req.validate_only = validate_only;
  for (const QuotaAlteration& a : alterations) {
    auto& entry = req.entries.emplace_back();
    for (const QuotaEntityPart& p : a.entity) {
      auto& part = entry.entity.emplace_back();
      part.entity_type = p.type;
      part.entity_name = p.name;
    }
    for (const QuotaOp& op : a.ops) {
      auto& o = entry.ops.emplace_back();
      o.key = op.key;
      o.value = op.remove ? 0 : op.value;
      o.remove = op.remove;
    }
  }
  auto reply = co_await send_admin(req, false, never_misrouted);
  if (!reply.ok()) co_return reply.status();
  std::vector<QuotaAlterationResult> out;
  for (const auto& e : reply->body.entries) {
    QuotaEntity entity = entity_of(e.entity);
    Status s = status_from(e.error_code, e.error_message, "quotas of " + entity_label(entity));
    out.push_back({std::move(entity), std::move(s)});
  }
  co_return out;
}

}  // namespace mirra::client
