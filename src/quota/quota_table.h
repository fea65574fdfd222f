// The configured client quotas of the broker (entity -> key -> value), changed by the ops an
// AlterClientQuotas entry carries (or the metadata log replays), resolved with Kafka's
// precedence for a connection's user and client id, and listed for DescribeClientQuotas.
//
// Threading: one owner thread (the broker's core thread); no locking inside.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "quota/quota_entity.h"

namespace mirra::quota {

// One op of an AlterClientQuotas entry: set `key` to `value`, or remove it.
struct QuotaOp {
  std::string key;
  double value = 0;
  bool remove = false;
};

// Which sensor a connection's usage counts against. Kafka names a quota sensor by these two
// tags: the parts of the matched entity, with a default part standing for the connection's own
// name. So a default-user quota gives each user its own sensor, while every client id of
// user alice shares the sensor of a quota on user alice alone.
struct SensorKey {
  std::optional<std::string> user;
  std::optional<std::string> client_id;

  auto operator<=>(const SensorKey&) const = default;
};

// The quota that applies to a connection, and where it came from.
struct ResolvedQuota {
  double limit = 0;
  QuotaEntity entity;  // the configured entity that matched
  SensorKey sensor;
};

// DescribeClientQuotas filters. Match types are the wire's int8 codes.
enum class MatchType : int8_t { exact = 0, default_entity = 1, any = 2 };

struct FilterComponent {
  std::string entity_type;
  MatchType match = MatchType::exact;
  std::optional<std::string> name;  // for exact; a null name there means the default entity
};

struct DescribeFilter {
  std::vector<FilterComponent> components;
  // Only entities with no part beyond the filter's components.
  bool strict = false;
};

struct DescribedEntry {
  QuotaEntity entity;
  std::vector<std::pair<std::string, double>> values;  // in QuotaKey order
};

class QuotaTable {
 public:
  using Values = std::map<QuotaKey, double>;

  // Checks every op (known key, valid value, no key twice) before changing anything; a failed
  // check changes nothing. Removing a key that is not set is not an error (as in Kafka).
  static Status validate(const QuotaEntity& entity, const std::vector<QuotaOp>& ops);
  Status alter(const QuotaEntity& entity, const std::vector<QuotaOp>& ops);

  // Single changes, as replayed from the metadata log; the caller validated them.
  void set(const QuotaEntity& entity, QuotaKey key, double value);
  void remove(const QuotaEntity& entity, QuotaKey key);

  // Moves on every change that altered a value, so that sensors re-resolve their limits.
  uint64_t version() const { return version_; }

  // The quota for `key` that applies to `user` (the principal name) and `client_id`, by Kafka's
  // precedence: user+client-id, user+default client-id, user, default user+client-id, default
  // user+default client-id, default user, client-id, default client-id. None when none is set.
  std::optional<ResolvedQuota> resolve(std::string_view user, std::string_view client_id,
                                       QuotaKey key) const;

  // The entries the filter selects; INVALID_REQUEST for a type named twice, an unknown type,
  // or ip mixed with user or client-id.
  Result<std::vector<DescribedEntry>> describe(const DescribeFilter& filter) const;

  const std::map<QuotaEntity, Values>& entries() const { return entries_; }

 private:
  std::map<QuotaEntity, Values> entries_;
  uint64_t version_ = 0;
};

}  // namespace mirra::quota
