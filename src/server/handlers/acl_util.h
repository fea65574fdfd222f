// What the ACL handlers share: the answers of a broker without an authorizer
// (docs/protocol.md) and of a caller without the cluster permission the ACL APIs need.
#pragma once

#include <cstdint>
#include <string>

#include "base/error_codes.h"
#include "security/acl.h"
#include "server/handlers/handler_util.h"

namespace mirra::server {

// The filter of a DescribeAcls request or a DeleteAcls filter, wire codes read as Kafka's enums.
template <typename Filter>
security::AclBindingFilter acl_filter(const Filter& f) {
  return security::AclBindingFilter{security::resource_type_from_code(f.resource_type_filter),
                                    f.resource_name_filter,
                                    security::pattern_type_from_code(f.pattern_type_filter),
                                    f.principal_filter,
                                    f.host_filter,
                                    security::acl_operation_from_code(f.operation),
                                    security::permission_type_from_code(f.permission_type)};
}

// Sets SECURITY_DISABLED and kNoAuthorizerMessage in an ACL API's result (or response).
template <typename Result>
void refuse_without_authorizer(Result& r) {
  r.error_code = static_cast<int16_t>(ErrorCode::SECURITY_DISABLED);
  r.error_message = std::string(kNoAuthorizerMessage);
}

// Sets CLUSTER_AUTHORIZATION_FAILED (ALTER or DESCRIBE on the cluster is missing).
template <typename Result>
void refuse_unauthorized(Result& r) {
  r.error_code = static_cast<int16_t>(ErrorCode::CLUSTER_AUTHORIZATION_FAILED);
  r.error_message = std::string(mirra::error_message(ErrorCode::CLUSTER_AUTHORIZATION_FAILED));
}

}  // namespace mirra::server
