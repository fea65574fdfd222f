// What the ACL handlers share while the broker has no authorizer (docs/protocol.md).
#pragma once

#include <cstdint>
#include <string>

#include "base/error_codes.h"
#include "server/handlers/handler_util.h"

namespace mirra::server {

// Sets SECURITY_DISABLED and kNoAuthorizerMessage in an ACL API's result (or response).
template <typename Result>
void refuse_without_authorizer(Result& r) {
  r.error_code = static_cast<int16_t>(ErrorCode::SECURITY_DISABLED);
  r.error_message = std::string(kNoAuthorizerMessage);
}

}  // namespace mirra::server
