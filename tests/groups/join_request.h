// The JoinGroup request of the group tests (tests/groups calls the coordinator directly,
// tests/server goes through the broker's request path): group "g", a consumer offering one
// protocol ("range" with fixed metadata), a 10 s rebalance timeout.
#pragma once

#include <optional>
#include <string>

#include "protocol/messages/join_group.h"

namespace mirra::groups::testing {

inline protocol::JoinGroupRequest join_request(const std::string& member_id, int32_t session_ms,
                                               std::optional<std::string> instance) {
  protocol::JoinGroupRequest req;
  req.group_id = "g";
  req.session_timeout_ms = session_ms;
  req.rebalance_timeout_ms = 10000;
  req.member_id = member_id;
  req.group_instance_id = std::move(instance);
  req.protocol_type = "consumer";
  req.protocols.push_back({"range", {1, 2, 3}, {}});
  return req;
}

}  // namespace mirra::groups::testing
