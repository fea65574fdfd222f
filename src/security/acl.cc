// ACL enumerations, bindings, filters and the authorizer's settings (security/acl.h); the
// decision itself is in authorizer.cc.
#include "security/acl.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "base/text.h"

namespace mirra::security {
namespace {

constexpr std::array<std::string_view, 8> kResourceTypeNames = {
    "UNKNOWN", "ANY", "TOPIC", "GROUP", "CLUSTER", "TRANSACTIONAL_ID", "DELEGATION_TOKEN", "USER"};
constexpr std::array<std::string_view, 5> kPatternTypeNames = {"UNKNOWN", "ANY", "MATCH", "LITERAL",
                                                               "PREFIXED"};
constexpr std::array<std::string_view, 15> kOperationNames = {"UNKNOWN",
                                                              "ANY",
                                                              "ALL",
                                                              "READ",
                                                              "WRITE",
                                                              "CREATE",
                                                              "DELETE",
                                                              "ALTER",
                                                              "DESCRIBE",
                                                              "CLUSTER_ACTION",
                                                              "DESCRIBE_CONFIGS",
                                                              "ALTER_CONFIGS",
                                                              "IDEMPOTENT_WRITE",
                                                              "CREATE_TOKENS",
                                                              "DESCRIBE_TOKENS"};
constexpr std::array<std::string_view, 4> kPermissionNames = {"UNKNOWN", "ANY", "DENY", "ALLOW"};

template <size_t N>
std::string_view name_of(const std::array<std::string_view, N>& names, int8_t code) {
  return code >= 0 && static_cast<size_t>(code) < N ? names[static_cast<size_t>(code)] : names[0];
}

template <typename E, size_t N>
E from_code(const std::array<std::string_view, N>&, int8_t code) {
  return code >= 0 && static_cast<size_t>(code) < N ? static_cast<E>(code) : static_cast<E>(0);
}

// Upper case without '_' and '-': "IdempotentWrite", "idempotent-write" and "IDEMPOTENT_WRITE"
// all read "IDEMPOTENTWRITE".
std::string fold(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '_' || c == '-') continue;
    out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  }
  return out;
}

template <size_t N>
std::optional<int8_t> code_from_name(const std::array<std::string_view, N>& names,
                                     std::string_view name) {
  const std::string wanted = fold(name);
  for (size_t i = 1; i < N; ++i) {  // never UNKNOWN
    if (fold(names[i]) == wanted) return static_cast<int8_t>(i);
  }
  return std::nullopt;
}

Status invalid(std::string message) {
  return Status(ErrorCode::INVALID_REQUEST, std::move(message));
}

}  // namespace

ResourceType resource_type_from_code(int8_t code) {
  return from_code<ResourceType>(kResourceTypeNames, code);
}
PatternType pattern_type_from_code(int8_t code) {
  return from_code<PatternType>(kPatternTypeNames, code);
}
AclOperation acl_operation_from_code(int8_t code) {
  return from_code<AclOperation>(kOperationNames, code);
}
AclPermissionType permission_type_from_code(int8_t code) {
  return from_code<AclPermissionType>(kPermissionNames, code);
}

AclBinding binding_from_codes(int8_t resource_type, std::string resource_name, int8_t pattern_type,
                              std::string principal, std::string host, int8_t operation,
                              int8_t permission_type) {
  return AclBinding{resource_type_from_code(resource_type),
                    std::move(resource_name),
                    pattern_type_from_code(pattern_type),
                    std::move(principal),
                    std::move(host),
                    acl_operation_from_code(operation),
                    permission_type_from_code(permission_type)};
}

std::string_view resource_type_name(ResourceType t) {
  return name_of(kResourceTypeNames, static_cast<int8_t>(t));
}
std::string_view pattern_type_name(PatternType t) {
  return name_of(kPatternTypeNames, static_cast<int8_t>(t));
}
std::string_view acl_operation_name(AclOperation op) {
  return name_of(kOperationNames, static_cast<int8_t>(op));
}
std::string_view permission_type_name(AclPermissionType p) {
  return name_of(kPermissionNames, static_cast<int8_t>(p));
}

std::optional<AclOperation> acl_operation_from_name(std::string_view name) {
  auto code = code_from_name(kOperationNames, name);
  if (!code) return std::nullopt;
  return static_cast<AclOperation>(*code);
}

std::optional<PatternType> pattern_type_from_name(std::string_view name) {
  auto code = code_from_name(kPatternTypeNames, name);
  if (!code) return std::nullopt;
  return static_cast<PatternType>(*code);
}

const std::vector<AclOperation>& valid_operations(ResourceType t) {
  using Op = AclOperation;
  static const std::vector<Op> topic = {
      Op::read, Op::write, Op::create,           Op::describe,
      Op::del,  Op::alter, Op::describe_configs, Op::alter_configs};
  static const std::vector<Op> group = {Op::read, Op::describe, Op::del, Op::describe_configs,
                                        Op::alter_configs};
  static const std::vector<Op> cluster = {
      Op::create,           Op::cluster_action, Op::describe_configs, Op::alter_configs,
      Op::idempotent_write, Op::alter,          Op::describe};
  static const std::vector<Op> transactional_id = {Op::describe, Op::write};
  static const std::vector<Op> delegation_token = {Op::describe};
  static const std::vector<Op> user = {Op::create_tokens, Op::describe_tokens};
  static const std::vector<Op> none;
  switch (t) {
    case ResourceType::topic:
      return topic;
    case ResourceType::group:
      return group;
    case ResourceType::cluster:
      return cluster;
    case ResourceType::transactional_id:
      return transactional_id;
    case ResourceType::delegation_token:
      return delegation_token;
    case ResourceType::user:
      return user;
    default:
      return none;
  }
}

bool is_valid_principal(std::string_view principal) {
  const size_t colon = principal.find(':');
  return colon != std::string_view::npos && colon > 0 && colon + 1 < principal.size();
}

Status validate_for_creation(const AclBinding& b) {
  if (b.resource_type == ResourceType::any || b.resource_type == ResourceType::unknown)
    return invalid(fmt::format("invalid resource type {}", resource_type_name(b.resource_type)));
  if (b.pattern_type != PatternType::literal && b.pattern_type != PatternType::prefixed)
    return invalid(fmt::format("invalid pattern type {}: an ACL is LITERAL or PREFIXED",
                               pattern_type_name(b.pattern_type)));
  if (b.operation == AclOperation::any || b.operation == AclOperation::unknown)
    return invalid(fmt::format("invalid operation {}", acl_operation_name(b.operation)));
  if (b.permission != AclPermissionType::allow && b.permission != AclPermissionType::deny)
    return invalid(fmt::format("invalid permission type {}", permission_type_name(b.permission)));
  if (b.resource_name.empty()) return invalid("resource name should not be empty");
  if (b.resource_type == ResourceType::cluster && b.resource_name != kClusterResourceName)
    return invalid(fmt::format("the cluster resource is named {}, not '{}'", kClusterResourceName,
                               b.resource_name));
  const auto& ops = valid_operations(b.resource_type);
  if (b.operation != AclOperation::all &&
      std::find(ops.begin(), ops.end(), b.operation) == ops.end())
    return invalid(fmt::format("operation {} is not valid for resource type {}",
                               acl_operation_name(b.operation),
                               resource_type_name(b.resource_type)));
  if (!is_valid_principal(b.principal))
    return invalid(fmt::format("principal '{}' is not in the form Type:name", b.principal));
  if (b.host.empty()) return invalid("host should not be empty (\"*\" is any host)");
  return Status::OK();
}

std::string resource_pattern_string(const AclBinding& b) {
  return fmt::format("ResourcePattern(resourceType={}, name={}, patternType={})",
                     resource_type_name(b.resource_type), b.resource_name,
                     pattern_type_name(b.pattern_type));
}

std::string entry_string(const AclBinding& b) {
  return fmt::format("(principal={}, host={}, operation={}, permissionType={})", b.principal,
                     b.host, acl_operation_name(b.operation), permission_type_name(b.permission));
}

namespace {

bool pattern_matches(const AclBindingFilter& f, const AclBinding& b) {
  if (f.resource_type != ResourceType::any && f.resource_type != b.resource_type) return false;
  switch (f.pattern_type) {
    case PatternType::any:
      return !f.resource_name || *f.resource_name == b.resource_name;
    case PatternType::match:
      if (!f.resource_name) return true;
      if (b.pattern_type == PatternType::literal)
        return b.resource_name == *f.resource_name || b.resource_name == kWildcardResource;
      return b.pattern_type == PatternType::prefixed &&
             std::string_view(*f.resource_name).starts_with(b.resource_name);
    default:
      return f.pattern_type == b.pattern_type &&
             (!f.resource_name || *f.resource_name == b.resource_name);
  }
}

bool entry_matches(const AclBindingFilter& f, const AclBinding& b) {
  if (f.principal && *f.principal != b.principal) return false;
  if (f.host && *f.host != b.host) return false;
  if (f.operation != AclOperation::any && f.operation != b.operation) return false;
  return f.permission == AclPermissionType::any || f.permission == b.permission;
}

}  // namespace

bool AclBindingFilter::matches(const AclBinding& b) const {
  return pattern_matches(*this, b) && entry_matches(*this, b);
}

Status validate_filter(const AclBindingFilter& f) {
  if (f.resource_type == ResourceType::unknown) return invalid("unknown resource type filter");
  if (f.pattern_type == PatternType::unknown) return invalid("unknown pattern type filter");
  if (f.operation == AclOperation::unknown) return invalid("unknown operation filter");
  if (f.permission == AclPermissionType::unknown) return invalid("unknown permission type filter");
  return Status::OK();
}

Result<std::optional<AuthorizerConfig>> parse_authorizer_config(const SettingLookup& setting) {
  const std::string class_name(trim(setting("authorizer.class.name").value_or("")));
  if (class_name.empty()) return std::optional<AuthorizerConfig>();
  static constexpr std::array<std::string_view, 3> kAccepted = {
      "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
      "kafka.security.authorizer.AclAuthorizer", "mirra.security.Authorizer"};
  if (std::find(kAccepted.begin(), kAccepted.end(), class_name) == kAccepted.end())
    return Status(ErrorCode::INVALID_CONFIG,
                  fmt::format("invalid value '{}' for authorizer.class.name: Mirra's authorizer "
                              "answers to {}, {} or {}",
                              class_name, kAccepted[0], kAccepted[1], kAccepted[2]));
  AuthorizerConfig config;
  const std::string users = setting("super.users").value_or("");
  size_t start = 0;
  while (start <= users.size()) {
    const size_t end = std::min(users.find(';', start), users.size());
    const std::string user(trim(std::string_view(users).substr(start, end - start)));
    if (!user.empty() && !is_valid_principal(user))
      return Status(ErrorCode::INVALID_CONFIG,
                    fmt::format("invalid value '{}' for super.users: '{}' is not a principal of "
                                "the form Type:name",
                                users, user));
    if (!user.empty()) config.super_users.insert(user);
    start = end + 1;
  }
  if (auto flag = setting("allow.everyone.if.no.acl.found")) {
    const std::string v = to_lower(trim(*flag));
    if (v != "true" && v != "false")
      return Status(ErrorCode::INVALID_CONFIG,
                    fmt::format("invalid value '{}' for allow.everyone.if.no.acl.found: expected "
                                "true or false",
                                *flag));
    config.allow_everyone_if_no_acl_found = v == "true";
  }
  return std::optional<AuthorizerConfig>(std::move(config));
}

}  // namespace mirra::security
