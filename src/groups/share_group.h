// The state of one share group (KIP-932) as Kafka's coordinator keeps it: members with
// client-chosen ids and epochs, the group epoch, and the target assignment computed by the
// server-side `simple` assignor. Plain data plus the pure rules (epoch checks, the assignor,
// reconciling a member to the target); the requests and the sweep are in
// share_group_coordinator.cc.
//
// Epochs: the group epoch moves on whenever membership, subscriptions or the subscribed topics'
// partitions change, and the target assignment is recomputed at once (assignment epoch = group
// epoch). A member catches up on its own heartbeat: it takes the target's share for it and the
// assignment epoch as its member epoch, the epoch it had becoming its previous epoch. There is
// no revocation step: records, not partitions, are exclusive, so a partition may be shared.
//
// States (Kafka's names for share groups): Empty (no members), Stable (members), Dead (deleted).
//
// Threading: core thread only, owned by the GroupCoordinator.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/error_codes.h"
#include "base/uuid.h"

namespace mirra::groups {

enum class ShareGroupState { empty, stable, dead };

std::string_view share_state_name(ShareGroupState s);

// Kafka's protocol type and assignor name for share groups (ListGroups, ShareGroupDescribe).
inline constexpr std::string_view kShareProtocolType = "share";
inline constexpr std::string_view kSimpleAssignor = "simple";

// A subscribed topic as the assignor sees it.
struct ShareTopic {
  Uuid id;
  int32_t partitions = 0;
  bool operator==(const ShareTopic&) const = default;
};
using ShareTopics = std::map<std::string, ShareTopic>;  // by name; only topics that exist
// Partitions by topic id, each list sorted.
using ShareAssignment = std::map<Uuid, std::vector<int32_t>>;

// How the coordinator learns about topics (set by the broker from the metadata image).
struct ShareTopicLookup {
  std::function<std::optional<ShareTopic>(const std::string& name)> by_name;
  std::function<std::optional<std::string>(const Uuid& id)> name_of;
};

struct ShareMember {
  std::string id;
  int32_t epoch = 0;
  int32_t previous_epoch = -1;
  std::optional<std::string> rack;
  std::string client_id;
  std::string client_host;
  std::set<std::string> subscriptions;
  ShareAssignment assignment;  // what it was given at `epoch`
  std::chrono::steady_clock::time_point session_deadline;
};

// Kafka's `simple` assignor: each topic's partitions spread over the members subscribed to it
// (in member id order); with more members than partitions, every member gets one partition and
// a partition goes to several members. Each topic starts where the previous one (by name) left
// off, so that many one-partition topics do not all land on the first member. Deterministic:
// the same members, subscriptions and topics give the same assignment.
std::map<std::string, ShareAssignment> simple_assign(
    const std::map<std::string, std::set<std::string>>& subscriptions, const ShareTopics& topics);

struct ShareGroup {
  std::string id;
  int32_t group_epoch = 0;
  int32_t assignment_epoch = 0;
  std::map<std::string, ShareMember> members;
  ShareTopics topics;                             // the subscribed topics at group_epoch
  std::map<std::string, ShareAssignment> target;  // at assignment_epoch, by member id

  // Dead is never held: a deleted share group is dropped at once (nothing to write yet).
  ShareGroupState state() const {
    return members.empty() ? ShareGroupState::empty : ShareGroupState::stable;
  }
  // Every topic some member subscribes to.
  std::set<std::string> subscribed_topics() const;
  // Kafka's epoch rule for a heartbeat (not a join, not a leave): the member's epoch, or its
  // previous one (the answer that moved it on was lost); FENCED_MEMBER_EPOCH otherwise.
  static ErrorCode check_epoch(const ShareMember& m, int32_t epoch);
  // Membership, subscriptions or `now_topics` changed: the group epoch moves on and the target
  // is recomputed for it.
  void bump(ShareTopics now_topics);
  // Brings `m` to the target assignment; true when its assignment changed.
  bool reconcile(ShareMember& m) const;
};

}  // namespace mirra::groups
