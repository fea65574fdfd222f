#include "cli/acls_logic.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

namespace mirra::cli {
namespace {

using security::AclBinding;
using security::AclBindingFilter;
using security::AclOperation;
using security::AclPermissionType;
using security::PatternType;
using security::ResourceType;

Status bad(std::string message) { return Status(ErrorCode::INVALID_REQUEST, std::move(message)); }

struct Resource {
  ResourceType type;
  std::string name;
};

std::vector<Resource> resources_of(const AclsArgs& a) {
  std::vector<Resource> out;
  for (const auto& t : a.topics) out.push_back({ResourceType::topic, t});
  for (const auto& g : a.groups) out.push_back({ResourceType::group, g});
  for (const auto& t : a.transactional_ids) out.push_back({ResourceType::transactional_id, t});
  if (a.cluster)
    out.push_back({ResourceType::cluster, std::string(security::kClusterResourceName)});
  return out;
}

Result<std::vector<AclOperation>> operations_of(const AclsArgs& a) {
  std::vector<AclOperation> out;
  for (const std::string& name : a.operations) {
    auto op = security::acl_operation_from_name(name);
    if (!op || *op == AclOperation::any)
      return bad(
          fmt::format("unknown --operation '{}' (Kafka's names: Read, Write, Create, "
                      "Delete, Alter, Describe, ClusterAction, DescribeConfigs, "
                      "AlterConfigs, IdempotentWrite, All, ...)",
                      name));
    out.push_back(*op);
  }
  return out;
}

// One entry per principal and host of --allow-* and --deny-*.
struct Entry {
  std::string principal, host;
  AclPermissionType permission;
};

Result<std::vector<Entry>> entries_of(const AclsArgs& a) {
  std::vector<Entry> out;
  auto add = [&](const std::vector<std::string>& principals, const std::vector<std::string>& hosts,
                 AclPermissionType p, std::string_view option) -> Status {
    for (const std::string& principal : principals) {
      if (!security::is_valid_principal(principal))
        return bad(fmt::format("{} '{}' is not a principal of the form Type:name (User:alice)",
                               option, principal));
      if (hosts.empty()) out.push_back({principal, std::string(security::kWildcardHost), p});
      for (const std::string& host : hosts) out.push_back({principal, host, p});
    }
    return Status::OK();
  };
  if (Status s =
          add(a.allow_principals, a.allow_hosts, AclPermissionType::allow, "--allow-principal");
      !s.ok())
    return s;
  if (Status s = add(a.deny_principals, a.deny_hosts, AclPermissionType::deny, "--deny-principal");
      !s.ok())
    return s;
  return out;
}

// --producer and --consumer: the operations each resource gets (Kafka's AclCommand).
std::vector<std::pair<Resource, AclOperation>> role_operations(const AclsArgs& a) {
  std::vector<std::pair<Resource, AclOperation>> out;
  for (const Resource& r : resources_of(a)) {
    if (r.type == ResourceType::topic) {
      if (a.producer) {
        for (AclOperation op : {AclOperation::write, AclOperation::describe, AclOperation::create})
          out.push_back({r, op});
      }
      if (a.consumer) {
        for (AclOperation op : {AclOperation::read, AclOperation::describe}) out.push_back({r, op});
      }
    } else if (r.type == ResourceType::group && a.consumer) {
      out.push_back({r, AclOperation::read});
    } else if (r.type == ResourceType::transactional_id && a.producer) {
      for (AclOperation op : {AclOperation::write, AclOperation::describe}) out.push_back({r, op});
    }
  }
  if (a.producer && a.idempotent)
    out.push_back({Resource{ResourceType::cluster, std::string(security::kClusterResourceName)},
                   AclOperation::idempotent_write});
  return out;
}

Status check_roles(const AclsArgs& a) {
  if (!a.producer && !a.consumer) {
    if (a.idempotent) return bad("--idempotent goes with --producer");
    return Status::OK();
  }
  if (a.list) return bad("--producer and --consumer go with --add or --remove, not --list");
  if (!a.operations.empty())
    return bad("--producer and --consumer choose the operations: drop --operation");
  if (!a.deny_principals.empty())
    return bad("--producer and --consumer take --allow-principal only");
  if (a.topics.empty()) return bad("--producer and --consumer need --topic");
  if (a.consumer && a.groups.empty()) return bad("--consumer needs --group");
  if (a.cluster) return bad("--producer and --consumer take no --cluster (see --idempotent)");
  return Status::OK();
}

Result<std::vector<AclBinding>> bindings_of(const AclsArgs& a, PatternType pattern) {
  auto entries = entries_of(a);
  if (!entries.ok()) return entries.status();
  std::vector<std::pair<Resource, AclOperation>> pairs;
  if (a.producer || a.consumer) {
    pairs = role_operations(a);
  } else {
    auto ops = operations_of(a);
    if (!ops.ok()) return ops.status();
    if (ops->empty()) ops->push_back(AclOperation::all);  // Kafka's default
    for (const Resource& r : resources_of(a))
      for (AclOperation op : ops.value()) pairs.push_back({r, op});
  }
  std::vector<AclBinding> out;
  std::set<AclBinding> seen;
  for (const auto& [r, op] : pairs) {
    for (const Entry& e : entries.value()) {
      AclBinding b{r.type, r.name, pattern, e.principal, e.host, op, e.permission};
      // Kafka's pattern types LITERAL and PREFIXED only reach here (checked by the caller).
      if (Status s = security::validate_for_creation(b); !s.ok()) return bad(s.message());
      if (seen.insert(b).second) out.push_back(std::move(b));
    }
  }
  return out;
}

// --remove and --list: a filter per resource (or one for every ACL when none is named), with
// the entries asked for (or any entry).
Result<std::vector<AclBindingFilter>> filters_of(const AclsArgs& a, PatternType pattern) {
  std::vector<AclBindingFilter> out;
  const std::vector<Resource> resources = resources_of(a);
  auto resource_filter = [&](const Resource* r) {
    AclBindingFilter f;
    if (r != nullptr) {
      f.resource_type = r->type;
      f.resource_name = r->name;
      f.pattern_type = pattern;
    } else {
      f.pattern_type = pattern == PatternType::literal ? PatternType::any : pattern;
    }
    return f;
  };
  const bool entries_given = !a.allow_principals.empty() || !a.deny_principals.empty();
  if (a.remove && entries_given) {
    auto bindings = bindings_of(a, PatternType::literal);  // checks principals and operations
    if (!bindings.ok()) return bindings.status();
    for (const AclBinding& b : bindings.value()) {
      AclBindingFilter f = resource_filter(nullptr);
      f.resource_type = b.resource_type;
      f.resource_name = b.resource_name;
      f.pattern_type = pattern;
      f.principal = b.principal;
      f.host = b.host;
      f.operation = b.operation;
      f.permission = b.permission;
      out.push_back(std::move(f));
    }
    return out;
  }
  if (!a.operations.empty()) {
    auto ops = operations_of(a);
    if (!ops.ok()) return ops.status();
  }
  if (resources.empty()) {
    out.push_back(resource_filter(nullptr));
  } else {
    for (const Resource& r : resources) out.push_back(resource_filter(&r));
  }
  if (a.list && !a.principals.empty()) {
    std::vector<AclBindingFilter> by_principal;
    for (const AclBindingFilter& f : out) {
      for (const std::string& p : a.principals) {
        if (!security::is_valid_principal(p))
          return bad(fmt::format("--principal '{}' is not of the form Type:name", p));
        AclBindingFilter g = f;
        g.principal = p;
        by_principal.push_back(std::move(g));
      }
    }
    out = std::move(by_principal);
  }
  return out;
}

}  // namespace

Result<AclsPlan> plan_acls(const AclsArgs& a) {
  if (int(a.add) + int(a.remove) + int(a.list) != 1)
    return bad("give exactly one action: --add, --remove or --list");
  auto pattern = security::pattern_type_from_name(a.pattern_type);
  if (!pattern)
    return bad(fmt::format("unknown --resource-pattern-type '{}' (literal, prefixed, any, match)",
                           a.pattern_type));
  if (Status s = check_roles(a); !s.ok()) return s;
  if (!a.principals.empty() && !a.list) return bad("--principal goes with --list");
  const bool has_resource = !resources_of(a).empty();
  AclsPlan plan;
  if (a.add) {
    plan.action = AclsAction::add;
    if (*pattern != PatternType::literal && *pattern != PatternType::prefixed)
      return bad("--add needs --resource-pattern-type literal or prefixed");
    if (!has_resource)
      return bad("--add needs a resource: --topic, --group, --cluster or --transactional-id");
    if (a.allow_principals.empty() && a.deny_principals.empty())
      return bad("--add needs --allow-principal or --deny-principal");
    auto bindings = bindings_of(a, *pattern);
    if (!bindings.ok()) return bindings.status();
    plan.add = std::move(bindings.value());
    return plan;
  }
  plan.action = a.remove ? AclsAction::remove : AclsAction::list;
  if (a.remove && !has_resource)
    return bad("--remove needs a resource: --topic, --group, --cluster or --transactional-id");
  auto filters = filters_of(a, *pattern);
  if (!filters.ok()) return filters.status();
  plan.filters = std::move(filters.value());
  return plan;
}

std::string format_acls(std::string_view title, const std::vector<AclBinding>& acls) {
  using Key = std::tuple<ResourceType, std::string, PatternType>;
  std::map<Key, std::set<AclBinding>> groups;
  for (const AclBinding& b : acls)
    groups[{b.resource_type, b.resource_name, b.pattern_type}].insert(b);
  std::string out;
  for (const auto& [key, members] : groups) {
    out += fmt::format("{} `{}`:\n", title, security::resource_pattern_string(*members.begin()));
    for (const AclBinding& b : members) out += fmt::format("\t{}\n", security::entry_string(b));
    out += "\n";
  }
  return out;
}

}  // namespace mirra::cli
