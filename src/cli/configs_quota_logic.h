// The client-quota part of `mirra configs` (configs_quotas.cc): which keys are quotas, the
// entity and describe filter the --entity-* options make, what an --alter of users or clients
// sends (quota operations, SCRAM changes), and kafka-configs.sh's quota describe line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "cli/configs_logic.h"
#include "client/quota_types.h"
#include "client/scram_users.h"

namespace mirra::cli {

// producer_byte_rate, consumer_byte_rate, request_percentage, controller_mutation_rate: Kafka's
// quota configs of users and clients.
bool is_quota_key(std::string_view key);

// Java's Double.toString, which kafka-configs.sh's quota lines use: "1048576.0", "50.0",
// "1.048576E7" (scientific from 10^7 and below 10^-3).
std::string java_double(double v);

// The entity the --entity-* pairs name (users -> "user", clients -> "client-id"; the default for
// --entity-default). Needs one name or default per type (check_configs_args for --alter).
client::QuotaEntity quota_entity(const ConfigsArgs& a);

// The DescribeClientQuotas filter, as kafka-configs.sh builds it: per --entity-type, a named
// entity matches exactly (match type 0), --entity-default the default (1), and a type without a
// name or default any entity of it (2). Strict, as Kafka's ClientQuotaFilter.containsOnly: only
// entities made of exactly the listed types, so `--entity-type users` does not list user +
// client-id entities.
client::QuotaFilter quota_filter(const ConfigsArgs& a);

// "Quota configs for user-principal 'alice', client-id 'app1' are producer_byte_rate=1048576.0,
// request_percentage=50.0"; "the default user-principal" / "the default client-id" for the
// defaults. Values sorted by key.
std::string quota_line(const client::QuotaEntry& e);

// Whether a --describe of these entities also lists SCRAM credentials: users alone, no default
// (as kafka-configs.sh).
bool describes_scram(const ConfigsArgs& a);

// What an --alter of users or clients does. kafka-configs.sh refuses mixing SCRAM and quota keys
// in one users --alter; Mirra takes the mix and sends each kind its own request (quotas with
// AlterClientQuotas, SCRAM with AlterUserScramCredentials).
struct QuotaAlterPlan {
  std::vector<client::QuotaOp> quota_ops;  // sets, then removals
  std::vector<std::string> quota_deletes;  // the removed keys (they must be set)
  std::vector<client::ScramUpsertion> scram_upserts;
  std::vector<client::ScramDeletion> scram_deletes;
};
// Refuses keys that are neither (clients: keys that are not quotas), values that are not
// numbers, SCRAM keys with --entity-default, and a key both added and deleted.
Result<QuotaAlterPlan> quota_alter_plan(const ConfigsArgs& a);

}  // namespace mirra::cli
