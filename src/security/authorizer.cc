// The authorization decision (security/acl.h): Kafka's StandardAuthorizer rules over an index
// of the ACLs by resource type and pattern.
#include <set>

#include "security/acl.h"

namespace mirra::security {
namespace {

bool principal_matches(std::string_view acl, std::string_view principal) {
  return acl == principal || acl == kWildcardPrincipal;
}

bool host_matches(std::string_view acl, std::string_view host) {
  return acl == host || acl == kWildcardHost;
}

// An ALLOW for `acl` grants `wanted`: equal, ALL, or an implied DESCRIBE / DESCRIBE_CONFIGS.
bool allow_grants(AclOperation acl, AclOperation wanted) {
  if (acl == wanted || acl == AclOperation::all) return true;
  switch (wanted) {
    case AclOperation::describe:
      return acl == AclOperation::read || acl == AclOperation::write || acl == AclOperation::del ||
             acl == AclOperation::alter;
    case AclOperation::describe_configs:
      return acl == AclOperation::alter_configs;
    default:
      return false;
  }
}

// A DENY for `acl` refuses `wanted` only when equal or ALL: a DENY implies nothing.
bool deny_refuses(AclOperation acl, AclOperation wanted) {
  return acl == wanted || acl == AclOperation::all;
}

}  // namespace

Authorizer::Authorizer(AuthorizerConfig config) : config_(std::move(config)) {}

void Authorizer::set_acls(const std::vector<AclBinding>& acls, uint64_t source_version) {
  source_version_ = source_version;
  for (TypeIndex& t : by_type_) {
    t.literal.clear();
    t.prefixed.clear();
  }
  count_ = 0;
  for (const AclBinding& b : acls) {
    const auto code = static_cast<size_t>(b.resource_type);
    // The broker stores only bindings that passed validate_for_creation; anything else could
    // never match a request, so it is left out rather than trusted.
    if (code >= by_type_.size() ||
        (b.pattern_type != PatternType::literal && b.pattern_type != PatternType::prefixed))
      continue;
    TypeIndex& t = by_type_[code];
    auto& bucket = b.pattern_type == PatternType::literal ? t.literal : t.prefixed;
    bucket[b.resource_name].push_back({b.principal, b.host, b.operation, b.permission});
    ++count_;
  }
}

bool Authorizer::is_super_user(std::string_view principal) const {
  return config_.super_users.find(principal) != config_.super_users.end();
}

const Authorizer::TypeIndex* Authorizer::index(ResourceType type) const {
  const auto code = static_cast<size_t>(type);
  return code < by_type_.size() ? &by_type_[code] : nullptr;
}

Authorizer::Decision Authorizer::decide(const Entries& entries, std::string_view principal,
                                        std::string_view host, AclOperation op,
                                        bool& any_acl) const {
  Decision d = Decision::none;
  for (const Entry& e : entries) {
    any_acl = true;
    if (!principal_matches(e.principal, principal) || !host_matches(e.host, host)) continue;
    if (e.permission == AclPermissionType::deny && deny_refuses(e.operation, op))
      return Decision::deny;
    if (e.permission == AclPermissionType::allow && allow_grants(e.operation, op))
      d = Decision::allow;
  }
  return d;
}

bool Authorizer::authorize(std::string_view principal, std::string_view host, AclOperation op,
                           ResourceType type, std::string_view name) const {
  if (is_super_user(principal)) return true;
  const TypeIndex* t = index(type);
  if (t == nullptr) return false;
  bool any_acl = false;
  bool allowed = false;
  auto visit = [&](const auto& bucket, std::string_view key) {
    auto it = bucket.find(key);
    if (it == bucket.end()) return false;
    const Decision d = decide(it->second, principal, host, op, any_acl);
    allowed = allowed || d == Decision::allow;
    return d == Decision::deny;
  };
  if (visit(t->literal, name)) return false;
  if (name != kWildcardResource && visit(t->literal, kWildcardResource)) return false;
  // Every prefix of the name, shortest first: as many lookups as the name has characters, however
  // many prefixed ACLs there are.
  if (!t->prefixed.empty()) {
    for (size_t len = 1; len <= name.size(); ++len) {
      if (visit(t->prefixed, name.substr(0, len))) return false;
    }
  }
  if (allowed) return true;
  return !any_acl && config_.allow_everyone_if_no_acl_found;
}

bool Authorizer::authorize_any(std::string_view principal, std::string_view host, AclOperation op,
                               ResourceType type) const {
  // As Kafka does: a request on an arbitrary literal name first, which lets super users through
  // (whatever DENY exists) and applies allow.everyone.if.no.acl.found to such a name.
  if (authorize(principal, host, op, type, "hardcode")) return true;
  const TypeIndex* t = index(type);
  if (t == nullptr) return false;
  auto applies = [&](const Entry& e, AclPermissionType p) {
    return e.permission == p && principal_matches(e.principal, principal) &&
           host_matches(e.host, host) && (e.operation == op || e.operation == AclOperation::all);
  };
  auto has = [&](const Entries& entries, AclPermissionType p) {
    for (const Entry& e : entries) {
      if (applies(e, p)) return true;
    }
    return false;
  };
  std::set<std::string_view> deny_literal;
  std::set<std::string_view> deny_prefixed;
  for (const auto& [name, entries] : t->literal) {
    if (!has(entries, AclPermissionType::deny)) continue;
    if (name == kWildcardResource) return false;
    deny_literal.insert(name);
  }
  for (const auto& [name, entries] : t->prefixed) {
    if (has(entries, AclPermissionType::deny)) deny_prefixed.insert(name);
  }
  // An ALLOW counts unless a DENY covers everything it names: the same literal name, or a
  // prefixed DENY on a prefix of its name.
  auto dominated = [&](std::string_view name) {
    for (size_t len = 1; len <= name.size(); ++len) {
      if (deny_prefixed.contains(name.substr(0, len))) return true;
    }
    return false;
  };
  for (const auto& [name, entries] : t->literal) {
    if (!has(entries, AclPermissionType::allow)) continue;
    if (name == kWildcardResource) return true;
    if (!deny_literal.contains(name) && !dominated(name)) return true;
  }
  for (const auto& [name, entries] : t->prefixed) {
    if (has(entries, AclPermissionType::allow) && !dominated(name)) return true;
  }
  return false;
}

}  // namespace mirra::security
