// What the ACL and authorizer tests share: short names for Kafka's enumerations and one way to
// write a binding.
#pragma once

#include <string>

#include "security/acl.h"

namespace mirra::security::testing {

using Op = AclOperation;
using Perm = AclPermissionType;
using RT = ResourceType;
using PT = PatternType;

inline AclBinding binding(RT type, std::string name, PT pattern, std::string principal, Op op,
                          Perm perm = Perm::allow, std::string host = "*") {
  return AclBinding{type, std::move(name), pattern, std::move(principal), std::move(host), op,
                    perm};
}

}  // namespace mirra::security::testing
