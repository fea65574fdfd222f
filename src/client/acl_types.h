// What the client's ACL calls (client_acls.cc) take and return: ACLs are security::AclBinding,
// filters security::AclBindingFilter (Kafka's enumerations, security/acl.h).
#pragma once

#include <vector>

#include "base/status.h"
#include "security/acl.h"

namespace mirra::client {

// The outcome of one DeleteAcls filter: the ACLs the broker removed for it.
struct AclDeletion {
  Status status;
  std::vector<security::AclBinding> deleted;
};

}  // namespace mirra::client
