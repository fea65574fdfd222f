// A client quota entity and the quota keys, as Kafka's AlterClientQuotas and
// DescribeClientQuotas carry them, with Kafka's validation.
//
// An entity has a user part, a client-id part, or both. Each part is a name or the default
// entity (`<default>` in kafka-configs.sh, a null name on the wire). Kafka also has ip entities
// (connection_creation_rate); Mirra recognises the type only to refuse it, with INVALID_REQUEST,
// until connection quotas exist.
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mirra::quota {

// The entity type strings of the wire and of the metadata log.
inline constexpr std::string_view kUserType = "user";
inline constexpr std::string_view kClientIdType = "client-id";
inline constexpr std::string_view kIpType = "ip";

// One part of an entity: a name, or the default entity.
struct EntityName {
  std::string name;  // empty when is_default
  bool is_default = false;

  static EntityName named(std::string n) { return {std::move(n), false}; }
  static EntityName default_entity() { return {{}, true}; }
  // The wire form: a null name is the default.
  std::optional<std::string> wire_name() const;

  auto operator<=>(const EntityName&) const = default;
};

// A user and/or client-id entity; at least one part is present.
struct QuotaEntity {
  std::optional<EntityName> user;
  std::optional<EntityName> client_id;

  // "user 'alice', client-id <default>": for messages and the CLI.
  std::string to_string() const;

  auto operator<=>(const QuotaEntity&) const = default;
};

// One (entity_type, entity_name) pair of the wire; a null name is the default entity.
struct EntityComponent {
  std::string entity_type;
  std::optional<std::string> name;
};

// The entity the components name, or INVALID_REQUEST: no components, an unknown or repeated
// type, an empty name, or an ip entity (not supported yet; Kafka allows ip only alone).
Result<QuotaEntity> entity_from_wire(const std::vector<EntityComponent>& components);
// The components of an entity, user first.
std::vector<EntityComponent> entity_to_wire(const QuotaEntity& entity);

// The quota keys of user and client-id entities.
enum class QuotaKey {
  producer_byte_rate,        // bytes/s of produce requests, per broker
  consumer_byte_rate,        // bytes/s of fetch responses, per broker
  request_percentage,        // percent of one thread's time per window
  controller_mutation_rate,  // partitions created or deleted per second
};
inline constexpr QuotaKey kAllQuotaKeys[] = {
    QuotaKey::producer_byte_rate, QuotaKey::consumer_byte_rate, QuotaKey::request_percentage,
    QuotaKey::controller_mutation_rate};

std::string_view quota_key_name(QuotaKey key);
// INVALID_REQUEST naming the key when it is not a client quota key.
Result<QuotaKey> parse_quota_key(std::string_view name);
// The byte rates are whole numbers (Kafka's LONG) greater than 0; the other two are doubles
// greater than 0. INVALID_REQUEST otherwise.
Status validate_quota_value(QuotaKey key, double value);

}  // namespace mirra::quota
