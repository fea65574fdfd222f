// `mirra configs` for users and clients, as kafka-configs.sh: client quotas (DescribeClientQuotas,
// AlterClientQuotas) for a user, a client id, a user with a client id, and their defaults; and
// for users alone, SCRAM credentials (DescribeUserScramCredentials, AlterUserScramCredentials).
//
// Kafka's KRaft controller refuses a request that names a user twice (DUPLICATE_RESOURCE), so
// kafka-configs.sh fails when given both SCRAM mechanisms at once; this command sends one request
// per mechanism instead, so that the documented two-mechanism form works. Each request is
// atomic; the command stops at the first refusal, leaving the earlier ones done. Quota changes
// go first, in one request.
#include <set>

#include <fmt/format.h>

#include "cli/common.h"
#include "cli/configs_command.h"
#include "cli/configs_quota_logic.h"

namespace mirra::cli::configs_cmd {
namespace {

Status first_error(Result<std::vector<client::ScramUserResult>> r) {
  if (!r.ok()) return r.status();
  for (const auto& x : *r) {
    if (!x.status.ok()) return x.status;
  }
  return Status::OK();
}

Status alter_scram(client::SyncClient& c, const QuotaAlterPlan& plan) {
  for (const auto& d : plan.scram_deletes) {
    if (Status s = first_error(c.alter_user_scram_credentials({d}, {})); !s.ok()) return s;
  }
  for (const auto& u : plan.scram_upserts) {
    if (Status s = first_error(c.alter_user_scram_credentials({}, {u})); !s.ok()) return s;
  }
  return Status::OK();
}

// The quota keys the entity has now (kafka-configs.sh refuses to delete any other).
Result<std::set<std::string>> quota_keys(client::SyncClient& c, const ConfigsArgs& a) {
  auto r = c.describe_client_quotas(quota_filter(a));
  if (!r.ok()) return r.status();
  std::set<std::string> out;
  for (const client::QuotaEntry& e : *r) {
    for (const client::QuotaValue& v : e.values) out.insert(v.key);
  }
  return out;
}

Status alter_client_quotas(client::SyncClient& c, const ConfigsArgs& a,
                           const QuotaAlterPlan& plan) {
  if (plan.quota_ops.empty()) return Status::OK();
  if (!plan.quota_deletes.empty()) {
    auto keys = quota_keys(c, a);
    if (!keys.ok()) return keys.status();
    if (Status s = check_deletable(plan.quota_deletes, *keys); !s.ok()) return s;
  }
  auto r = c.alter_client_quotas({{quota_entity(a), plan.quota_ops}});
  if (!r.ok()) return r.status();
  for (const client::QuotaAlterationResult& x : *r) {
    if (!x.status.ok()) return x.status;
  }
  return Status::OK();
}

// Named: that user's line (nothing when it has no credential, as kafka-configs.sh); else every
// user with a credential.
int describe_scram(client::SyncClient& c, const ConfigsArgs& a) {
  std::optional<std::vector<std::string>> names;
  if (!a.entity_names.empty()) names = std::vector<std::string>{*a.entity_names.front()};
  auto r = c.describe_user_scram_credentials(names);
  if (!r.ok()) return fail(kCommand, r.status().message());
  for (const client::UserScramCredentials& u : *r) {
    if (u.status.code() == ErrorCode::RESOURCE_NOT_FOUND) continue;
    if (!u.status.ok()) return fail(kCommand, u.status.message());
    fmt::print("{}\n", describe_line(u));
  }
  return 0;
}

}  // namespace

// Quota lines first, then (users alone, no default) the SCRAM lines, as kafka-configs.sh.
int describe_quotas(client::SyncClient& c, const ConfigsArgs& a) {
  auto quotas = c.describe_client_quotas(quota_filter(a));
  if (quotas.ok()) {
    for (const client::QuotaEntry& e : *quotas) fmt::print("{}\n", quota_line(e));
  } else if (!(describes_scram(a) && quotas.status().code() == ErrorCode::UNSUPPORTED_VERSION)) {
    // A broker without DescribeClientQuotas holds no quotas: its users' SCRAM lines still come.
    return fail(kCommand, quotas.status().message());
  }
  return describes_scram(a) ? describe_scram(c, a) : 0;
}

int alter_quotas(client::SyncClient& c, const ConfigsArgs& a) {
  auto plan = quota_alter_plan(a);
  if (!plan.ok()) return fail(kCommand, plan.status().message());
  if (Status s = alter_client_quotas(c, a, *plan); !s.ok()) return fail(kCommand, s.message());
  if (Status s = alter_scram(c, *plan); !s.ok()) return fail(kCommand, s.message());
  fmt::print("{}\n", completed_line(entity_kind(a), a.entity_names.front()));
  return 0;
}

}  // namespace mirra::cli::configs_cmd
