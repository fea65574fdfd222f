// ACLs and the authorizer, with the semantics of Kafka's StandardAuthorizer (AclAuthorizer had
// the same): the wire enumerations, ACL bindings and their validation, binding filters (as the
// ACL admin APIs match them) and the authorization decision. Pure logic: the broker keeps the
// ACL set in its metadata log and hands the authorizer a copy (set_acls) on every change.
//
// The decision (authorize), in order:
//   1. a principal listed in super.users is allowed;
//   2. candidate ACLs are those of the resource type whose pattern matches the name (LITERAL
//      equal, LITERAL "*", PREFIXED that the name starts with), whose principal is the caller's
//      or "User:*" and whose host is the caller's address or "*";
//   3. a candidate DENY for the operation (or ALL) denies;
//   4. else a candidate ALLOW for the operation (or ALL, or one that implies it: READ, WRITE,
//      DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS) allows; a DENY
//      never implies anything;
//   5. else the resource with no ACL at all (for anybody, any host, any operation, on any of
//      its patterns) is allowed if allow.everyone.if.no.acl.found is true; otherwise denied.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mirra::security {

// Kafka's enumerations with their wire codes. ANY and MATCH are for filters only; UNKNOWN is
// what an unknown code reads as.
enum class ResourceType : int8_t {
  unknown = 0,
  any = 1,
  topic = 2,
  group = 3,
  cluster = 4,
  transactional_id = 5,
  delegation_token = 6,
  user = 7,
};
enum class PatternType : int8_t { unknown = 0, any = 1, match = 2, literal = 3, prefixed = 4 };
enum class AclOperation : int8_t {
  unknown = 0,
  any = 1,
  all = 2,
  read = 3,
  write = 4,
  create = 5,
  del = 6,  // DELETE
  alter = 7,
  describe = 8,
  cluster_action = 9,
  describe_configs = 10,
  alter_configs = 11,
  idempotent_write = 12,
  create_tokens = 13,
  describe_tokens = 14,
};
enum class AclPermissionType : int8_t { unknown = 0, any = 1, deny = 2, allow = 3 };

// Codes outside an enumeration read as its UNKNOWN.
ResourceType resource_type_from_code(int8_t code);
PatternType pattern_type_from_code(int8_t code);
AclOperation acl_operation_from_code(int8_t code);
AclPermissionType permission_type_from_code(int8_t code);

// Kafka's names: "TOPIC", "TRANSACTIONAL_ID", "LITERAL", "IDEMPOTENT_WRITE", "ALLOW".
std::string_view resource_type_name(ResourceType t);
std::string_view pattern_type_name(PatternType t);
std::string_view acl_operation_name(AclOperation op);
std::string_view permission_type_name(AclPermissionType p);

// Names as Kafka's tools take them, any case, with or without '_' or '-' between words:
// "Read", "IdempotentWrite", "idempotent_write", "CLUSTER_ACTION". UNKNOWN is never returned.
std::optional<AclOperation> acl_operation_from_name(std::string_view name);
std::optional<PatternType> pattern_type_from_name(std::string_view name);

// The operations an ACL on a resource type may name (ALL is accepted for every type).
const std::vector<AclOperation>& valid_operations(ResourceType t);

inline constexpr std::string_view kClusterResourceName = "kafka-cluster";
inline constexpr std::string_view kWildcardResource = "*";
inline constexpr std::string_view kWildcardPrincipal = "User:*";
inline constexpr std::string_view kWildcardHost = "*";

// "Type:name" with both parts non-empty (Kafka's principal format).
bool is_valid_principal(std::string_view principal);

// One ACL: a resource pattern and an access control entry.
struct AclBinding {
  ResourceType resource_type = ResourceType::topic;
  std::string resource_name;
  PatternType pattern_type = PatternType::literal;
  std::string principal;
  std::string host = std::string(kWildcardHost);
  AclOperation operation = AclOperation::all;
  AclPermissionType permission = AclPermissionType::allow;

  auto operator<=>(const AclBinding&) const = default;
};

// A binding from the wire codes the ACL APIs and the metadata log's ACL records carry (each
// read as above: an unknown code as UNKNOWN).
AclBinding binding_from_codes(int8_t resource_type, std::string resource_name, int8_t pattern_type,
                              std::string principal, std::string host, int8_t operation,
                              int8_t permission_type);

// INVALID_REQUEST with a message saying why a binding cannot be created: ANY, MATCH or UNKNOWN
// values, an empty resource name, a cluster not named kafka-cluster, an operation the resource
// type does not have, a principal not "Type:name", an empty host.
Status validate_for_creation(const AclBinding& b);

// Kafka's toString forms, as kafka-acls.sh prints them:
// "ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)" and
// "(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)".
std::string resource_pattern_string(const AclBinding& b);
std::string entry_string(const AclBinding& b);

// A filter of the ACL admin APIs (DescribeAcls, DeleteAcls). Matching (Kafka's
// ResourcePatternFilter and AccessControlEntryFilter):
//   - resource type ANY matches every type, otherwise equal;
//   - a null name matches any name;
//   - pattern type ANY: any stored pattern type with an equal name (any name if null);
//   - pattern type MATCH: the ACLs that affect the named resource: LITERAL equal, LITERAL "*",
//     PREFIXED that are a prefix of the name (with a null name: everything);
//   - LITERAL or PREFIXED: that pattern type with an equal name;
//   - a null principal or host matches any; operation ANY and permission ANY match any, others
//     must be equal.
struct AclBindingFilter {
  ResourceType resource_type = ResourceType::any;
  std::optional<std::string> resource_name;
  PatternType pattern_type = PatternType::any;
  std::optional<std::string> principal;
  std::optional<std::string> host;
  AclOperation operation = AclOperation::any;
  AclPermissionType permission = AclPermissionType::any;

  bool matches(const AclBinding& b) const;
};

// INVALID_REQUEST when a filter holds an UNKNOWN value (an unknown wire code).
Status validate_filter(const AclBindingFilter& f);

// The authorizer's settings.
struct AuthorizerConfig {
  std::set<std::string, std::less<>> super_users;  // principals, "User:alice"
  bool allow_everyone_if_no_acl_found = false;
};

// Reads authorizer.class.name, super.users (';'-separated) and allow.everyone.if.no.acl.found
// through `setting` (nullopt: not set). nullopt when authorizer.class.name is unset or empty (no
// authorizer); INVALID_CONFIG naming the key for a class Mirra does not implement, a super user
// that is not "Type:name", or a flag that is not true/false. Accepted class names: Kafka's
// org.apache.kafka.metadata.authorizer.StandardAuthorizer and
// kafka.security.authorizer.AclAuthorizer, and mirra.security.Authorizer.
using SettingLookup = std::function<std::optional<std::string>(std::string_view key)>;
Result<std::optional<AuthorizerConfig>> parse_authorizer_config(const SettingLookup& setting);

class Authorizer {
 public:
  explicit Authorizer(AuthorizerConfig config);

  // Replaces every ACL (the broker's copy of the metadata image's ACLs). `source_version` says
  // which state of their source they are (the broker: the image's count of ACL changes), so the
  // owner can tell when to hand in a new set.
  void set_acls(const std::vector<AclBinding>& acls, uint64_t source_version = 0);
  uint64_t source_version() const { return source_version_; }
  size_t acl_count() const { return count_; }
  const AuthorizerConfig& config() const { return config_; }

  bool is_super_user(std::string_view principal) const;
  // May `principal` connected from `host` (the address as text) do `op` on the resource?
  bool authorize(std::string_view principal, std::string_view host, AclOperation op,
                 ResourceType type, std::string_view name) const;
  // May it do `op` on at least one resource of the type (Kafka's authorizeByResourceType,
  // KIP-679: "WRITE on any topic")? Operations must be equal (or ALL): nothing is implied. An
  // ALLOW counts unless a DENY on the same literal name or on a prefix of its name covers it;
  // a DENY on "*" denies; an ALLOW on "*" allows.
  bool authorize_any(std::string_view principal, std::string_view host, AclOperation op,
                     ResourceType type) const;

 private:
  struct Entry {
    std::string principal;
    std::string host;
    AclOperation operation;
    AclPermissionType permission;
  };
  using Entries = std::vector<Entry>;
  // One resource type's ACLs, by pattern: a decision looks up the literal name, "*" and each
  // prefix of the name, never scanning unrelated ACLs.
  struct TypeIndex {
    std::map<std::string, Entries, std::less<>> literal;
    std::map<std::string, Entries, std::less<>> prefixed;
  };
  enum class Decision { none, allow, deny };
  // What `entries` say about the request; `any_acl` is set when there is at least one.
  Decision decide(const Entries& entries, std::string_view principal, std::string_view host,
                  AclOperation op, bool& any_acl) const;
  const TypeIndex* index(ResourceType type) const;

  AuthorizerConfig config_;
  std::array<TypeIndex, 8> by_type_;  // by ResourceType code
  size_t count_ = 0;
  uint64_t source_version_ = 0;
};

}  // namespace mirra::security
