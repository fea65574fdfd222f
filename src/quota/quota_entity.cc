#include "quota/quota_entity.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace mirra::quota {
namespace {

Status invalid(std::string message) {
  return Status(ErrorCode::INVALID_REQUEST, std::move(message));
}

std::string part_text(std::string_view type, const EntityName& n) {
  if (n.is_default) return fmt::format("{} <default>", type);
  return fmt::format("{} '{}'", type, n.name);
}

}  // namespace

std::optional<std::string> EntityName::wire_name() const {
  if (is_default) return std::nullopt;
  return name;
}

std::string QuotaEntity::to_string() const {
  std::string out;
  if (user) out = part_text(kUserType, *user);
  if (client_id) {
    if (!out.empty()) out += ", ";
    out += part_text(kClientIdType, *client_id);
  }
  return out;
}

Result<QuotaEntity> entity_from_wire(const std::vector<EntityComponent>& components) {
  if (components.empty()) return invalid("Invalid empty client quota entity");
  QuotaEntity entity;
  bool ip = false;
  for (const auto& c : components) {
    std::optional<EntityName>* part = nullptr;
    if (c.entity_type == kUserType) {
      part = &entity.user;
    } else if (c.entity_type == kClientIdType) {
      part = &entity.client_id;
    } else if (c.entity_type == kIpType) {
      if (ip) return invalid("Duplicate ip entity in the client quota entity");
      ip = true;
      continue;
    } else {
      return invalid(fmt::format("Unhandled client quota entity type: {}", c.entity_type));
    }
    if (part->has_value()) {
      return invalid(fmt::format("Duplicate {} entity in the client quota entity", c.entity_type));
    }
    if (c.name && c.name->empty()) {
      return invalid(fmt::format("Empty {} name is not valid; use the default entity (null name)",
                                 c.entity_type));
    }
    *part = c.name ? EntityName::named(*c.name) : EntityName::default_entity();
  }
  if (ip && (entity.user || entity.client_id)) {
    return invalid(
        "Invalid quota entity combination, ip cannot be combined with user or client-id");
  }
  // Kafka's connection_creation_rate on ip entities; Mirra has no connection quotas yet.
  if (ip) return invalid("ip quota entities are not supported by this broker");
  return entity;
}

std::vector<EntityComponent> entity_to_wire(const QuotaEntity& entity) {
  std::vector<EntityComponent> out;
  if (entity.user) out.push_back({std::string(kUserType), entity.user->wire_name()});
  if (entity.client_id) out.push_back({std::string(kClientIdType), entity.client_id->wire_name()});
  return out;
}

std::string_view quota_key_name(QuotaKey key) {
  switch (key) {
    case QuotaKey::producer_byte_rate:
      return "producer_byte_rate";
    case QuotaKey::consumer_byte_rate:
      return "consumer_byte_rate";
    case QuotaKey::request_percentage:
      return "request_percentage";
    case QuotaKey::controller_mutation_rate:
      return "controller_mutation_rate";
  }
  return "unknown";
}

Result<QuotaKey> parse_quota_key(std::string_view name) {
  for (QuotaKey k : kAllQuotaKeys) {
    if (quota_key_name(k) == name) return k;
  }
  return invalid(fmt::format("Invalid configuration key {}", name));
}

Status validate_quota_value(QuotaKey key, double value) {
  const std::string_view name = quota_key_name(key);
  if (!std::isfinite(value) || value <= 0) {
    return invalid(fmt::format("Invalid value {} for {}: it must be greater than 0", value, name));
  }
  const bool whole = key == QuotaKey::producer_byte_rate || key == QuotaKey::consumer_byte_rate;
  if (whole) {
    // Kafka's LONG keys: a double that is not (close to) an integer, or beyond a long, is refused.
    if (value >= static_cast<double>(std::numeric_limits<int64_t>::max())) {
      return invalid(fmt::format("Proposed value for {} is too large for a LONG", name));
    }
    if (std::abs(value - std::round(value)) > 1e-9) {
      return invalid(fmt::format("Configuration {} must be a Long value", name));
    }
  }
  return Status::OK();
}

}  // namespace mirra::quota
