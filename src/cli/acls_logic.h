// The pure parts of `mirra acls` (kafka-acls.sh): checking the command line and turning it into
// the ACLs to add or the filters to remove or list, and the listing's text. No I/O here, so all
// of it is unit-tested (tests/cli/acls_logic_test.cc); acls.cc does the talking.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "security/acl.h"

namespace mirra::cli {

// What CLI11 fills in; plan_acls() makes an AclsPlan of it.
struct AclsArgs {
  std::string bootstrap;
  std::vector<std::string> command_properties;
  bool add = false, remove = false, list = false, force = false;
  std::vector<std::string> allow_principals, deny_principals;
  std::vector<std::string> allow_hosts, deny_hosts;  // empty: "*" when principals are given
  std::vector<std::string> operations;               // Kafka's names, any case
  std::vector<std::string> topics, groups, transactional_ids;
  bool cluster = false;
  std::string pattern_type = "literal";  // literal, prefixed, any, match
  std::vector<std::string> principals;   // --list --principal
  bool producer = false, consumer = false, idempotent = false;
};

enum class AclsAction { add, remove, list };

struct AclsPlan {
  AclsAction action = AclsAction::list;
  std::vector<security::AclBinding> add;            // --add
  std::vector<security::AclBindingFilter> filters;  // --remove, --list
};

// INVALID_REQUEST with one line saying what is wrong: not exactly one of --add, --remove,
// --list; an unknown operation or pattern type; a principal that is not Type:name; --add or
// --remove without a resource; --add without a principal; ANY or MATCH with --add; an
// operation a resource type does not have; --producer without --topic, --consumer without
// --topic and --group; --producer or --consumer with --list or with --operation or
// --deny-principal.
Result<AclsPlan> plan_acls(const AclsArgs& args);

// kafka-acls.sh's listing: per resource pattern (sorted), "<title> `ResourcePattern(...)`:"
// and then one tab-indented "(principal=..., host=..., operation=..., permissionType=...)" per
// ACL, a blank line after each resource.
std::string format_acls(std::string_view title, const std::vector<security::AclBinding>& acls);

}  // namespace mirra::cli
