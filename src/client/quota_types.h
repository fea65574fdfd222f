// What the client's quota calls take and return (DescribeClientQuotas, AlterClientQuotas;
// client_quotas.cc). An entity is a list of (type, name) parts, Kafka's ClientQuotaEntity: a user,
// a client id, or a user with a client id; a part without a name is that type's default entity.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mirra::client {

// Kafka's entity type names on the wire.
inline constexpr std::string_view kQuotaEntityUser = "user";
inline constexpr std::string_view kQuotaEntityClientId = "client-id";

struct QuotaEntityPart {
  std::string type;                 // kQuotaEntityUser, kQuotaEntityClientId
  std::optional<std::string> name;  // nullopt: the default entity of the type
};
using QuotaEntity = std::vector<QuotaEntityPart>;

// DescribeClientQuotas' match types.
enum class QuotaMatchType : int8_t {
  exact = 0,           // the entity named `match`
  default_entity = 1,  // the type's default entity
  any = 2,             // any entity of the type, named or default
};

struct QuotaFilterComponent {
  std::string entity_type;
  QuotaMatchType match_type = QuotaMatchType::exact;
  std::optional<std::string> match;  // the name, for `exact` only
};

// Entities matching every component; with `strict`, also having no part of another type.
struct QuotaFilter {
  std::vector<QuotaFilterComponent> components;
  bool strict = false;
};

struct QuotaValue {
  std::string key;  // producer_byte_rate, consumer_byte_rate, request_percentage, ...
  double value = 0;
};

struct QuotaEntry {
  QuotaEntity entity;
  std::vector<QuotaValue> values;
};

// Sets `key` to `value`, or removes it (the value is then unused).
struct QuotaOp {
  std::string key;
  double value = 0;
  bool remove = false;
};

struct QuotaAlteration {
  QuotaEntity entity;
  std::vector<QuotaOp> ops;
};

// The broker's answer for one entity of an alteration.
struct QuotaAlterationResult {
  QuotaEntity entity;
  Status status;
};

}  // namespace mirra::client
