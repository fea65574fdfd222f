#include "quota/quota_table.h"

#include <set>

#include <fmt/format.h>

#include "base/assert.h"

namespace mirra::quota {
namespace {

Status invalid(std::string message) {
  return Status(ErrorCode::INVALID_REQUEST, std::move(message));
}

// One precedence level: which parts the entity has, and whether each is the default.
struct Level {
  enum Part { none, named, dflt };
  Part user;
  Part client;
};

// Kafka's order (KIP-55), most specific first.
constexpr Level kLevels[] = {
    {Level::named, Level::named}, {Level::named, Level::dflt}, {Level::named, Level::none},
    {Level::dflt, Level::named},  {Level::dflt, Level::dflt},  {Level::dflt, Level::none},
    {Level::none, Level::named},  {Level::none, Level::dflt},
};

std::optional<EntityName> part_for(Level::Part p, std::string_view name) {
  switch (p) {
    case Level::none:
      return std::nullopt;
    case Level::named:
      return EntityName::named(std::string(name));
    case Level::dflt:
      return EntityName::default_entity();
  }
  return std::nullopt;
}

// A parsed filter: the exact names wanted per type, the types that must be present with any
// (non-default) name, and whether any component asked for ip.
struct ParsedFilter {
  std::map<std::string, EntityName> exact;  // a default EntityName for default_entity
  std::set<std::string> any;
  bool ip = false;
  size_t size() const { return exact.size() + any.size(); }
};

Result<ParsedFilter> parse_filter(const DescribeFilter& filter) {
  ParsedFilter out;
  std::set<std::string> seen;
  for (const auto& c : filter.components) {
    if (!seen.insert(c.entity_type).second) {
      return invalid(
          fmt::format("Entity type {} cannot appear more than once in the filter", c.entity_type));
    }
    if (c.entity_type == kIpType) {
      out.ip = true;
      continue;
    }
    if (c.entity_type != kUserType && c.entity_type != kClientIdType) {
      return invalid(fmt::format("Unsupported entity type {}", c.entity_type));
    }
    switch (c.match) {
      case MatchType::exact:
        out.exact[c.entity_type] = c.name ? EntityName::named(*c.name)
                                          : EntityName::default_entity();
        break;
      case MatchType::default_entity:
        out.exact[c.entity_type] = EntityName::default_entity();
        break;
      case MatchType::any:
        out.any.insert(c.entity_type);
        break;
      default:
        return invalid(fmt::format("Unknown match type {} for entity type {}",
                                   static_cast<int>(c.match), c.entity_type));
    }
  }
  if (out.ip && out.size() > 0) {
    return invalid(
        "Invalid entity filter component combination: ip cannot be combined with user or "
        "client-id");
  }
  return out;
}

const std::optional<EntityName>& part_of(const QuotaEntity& e, const std::string& type) {
  return type == kUserType ? e.user : e.client_id;
}

bool matches(const QuotaEntity& e, const ParsedFilter& f, bool strict) {
  const size_t parts = (e.user ? 1 : 0) + (e.client_id ? 1 : 0);
  if (strict && parts != f.size()) return false;
  for (const auto& [type, want] : f.exact) {
    const auto& have = part_of(e, type);
    if (!have || *have != want) return false;
  }
  // Any name, the default one included: Kafka checks only that the part is there.
  for (const auto& type : f.any) {
    if (!part_of(e, type)) return false;
  }
  return true;
}

}  // namespace

Status QuotaTable::validate(const QuotaEntity& entity, const std::vector<QuotaOp>& ops) {
  MIRRA_ASSERT(entity.user || entity.client_id, "a quota entity without parts");
  std::set<QuotaKey> seen;
  for (const auto& op : ops) {
    auto key = parse_quota_key(op.key);
    if (!key.ok()) return key.status();
    if (!seen.insert(*key).second) {
      return invalid(fmt::format("Duplicate quota key {} for {}", op.key, entity.to_string()));
    }
    if (op.remove) continue;
    if (Status s = validate_quota_value(*key, op.value); !s.ok()) return s;
  }
  return Status::OK();
}

Status QuotaTable::alter(const QuotaEntity& entity, const std::vector<QuotaOp>& ops) {
  if (Status s = validate(entity, ops); !s.ok()) return s;
  for (const auto& op : ops) {
    const QuotaKey key = *parse_quota_key(op.key);
    if (op.remove) {
      remove(entity, key);
    } else {
      set(entity, key, op.value);
    }
  }
  return Status::OK();
}

void QuotaTable::set(const QuotaEntity& entity, QuotaKey key, double value) {
  MIRRA_ASSERT(entity.user || entity.client_id, "a quota entity without parts");
  auto [it, inserted] = entries_[entity].try_emplace(key, value);
  if (!inserted && it->second == value) return;
  it->second = value;
  ++version_;
}

void QuotaTable::remove(const QuotaEntity& entity, QuotaKey key) {
  auto e = entries_.find(entity);
  if (e == entries_.end() || e->second.erase(key) == 0) return;
  if (e->second.empty()) entries_.erase(e);
  ++version_;
}

std::optional<ResolvedQuota> QuotaTable::resolve(std::string_view user, std::string_view client_id,
                                                 QuotaKey key) const {
  if (entries_.empty()) return std::nullopt;
  for (const Level& level : kLevels) {
    QuotaEntity e{part_for(level.user, user), part_for(level.client, client_id)};
    auto it = entries_.find(e);
    if (it == entries_.end()) continue;
    auto v = it->second.find(key);
    if (v == it->second.end()) continue;
    SensorKey sensor;
    if (level.user != Level::none) sensor.user = std::string(user);
    if (level.client != Level::none) sensor.client_id = std::string(client_id);
    return ResolvedQuota{v->second, std::move(e), std::move(sensor)};
  }
  return std::nullopt;
}

Result<std::vector<DescribedEntry>> QuotaTable::describe(const DescribeFilter& filter) const {
  auto parsed = parse_filter(filter);
  if (!parsed.ok()) return parsed.status();
  std::vector<DescribedEntry> out;
  // Mirra stores no ip entities, so a filter on ip selects nothing.
  if (parsed->ip) return out;
  for (const auto& [entity, values] : entries_) {
    if (!matches(entity, *parsed, filter.strict)) continue;
    DescribedEntry d{entity, {}};
    for (const auto& [k, v] : values) d.values.emplace_back(std::string(quota_key_name(k)), v);
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace mirra::quota
