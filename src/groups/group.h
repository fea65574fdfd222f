// The state of one classic group, as Kafka's group coordinator keeps it: members with their
// protocols and assignments, the rebalance state machine's current state and generation, and
// the group's committed offsets. Plain data plus the pure rules the coordinator applies
// (protocol selection, "have all members joined"); the transitions are in group_coordinator.
//
// States (Kafka's names, as DescribeGroups and ListGroups report them):
//   Empty                no members (offsets may exist)
//   PreparingRebalance   members (re)join; completes when all have, or at the join deadline
//   CompletingRebalance  joined, waiting for the leader's assignments in SyncGroup
//   Stable               assignments handed out; heartbeats keep members alive
//   Dead                 removed (deleted, or expired with nothing left)
//
// Threading: core thread only, owned by the GroupCoordinator.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/partition_manager.h"
#include "groups/offsets_records.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/sync_group.h"

namespace mirra::groups {

using SteadyClock = std::chrono::steady_clock;

enum class GroupState { empty, preparing_rebalance, completing_rebalance, stable, dead };

std::string_view state_name(GroupState s);
// Case-insensitive, as ListGroups' states filter is.
std::optional<GroupState> parse_state(std::string_view name);

struct JoinProtocol {
  std::string name;
  Bytes metadata;
  bool operator==(const JoinProtocol&) const = default;
};

using JoinWaiter = std::shared_ptr<cluster::Pending<protocol::JoinGroupResponse>>;
using SyncWaiter = std::shared_ptr<cluster::Pending<protocol::SyncGroupResponse>>;

struct Member {
  std::string id;
  std::optional<std::string> instance_id;  // static membership (KIP-345)
  std::string client_id;
  std::string client_host;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = 0;
  std::string protocol_type;
  std::vector<JoinProtocol> protocols;  // in the member's order of preference
  Bytes assignment;
  uint64_t join_order = 0;  // the first member to join becomes leader when none is left
  SteadyClock::time_point heartbeat_deadline;
  JoinWaiter awaiting_join;  // a JoinGroup parked until the join phase completes
  int16_t join_version = 0;  // its version (the response's nullable fields depend on it)
  SyncWaiter awaiting_sync;  // a SyncGroup parked until the leader's assignments arrive
  bool synced = false;       // sent SyncGroup in the current generation

  const Bytes* metadata_for(std::string_view protocol) const;
};

struct CommittedOffset {
  int64_t offset = -1;
  int32_t leader_epoch = -1;
  std::string metadata;
  int64_t commit_timestamp = -1;
  int64_t expire_timestamp = -1;  // -1: by the group's retention (offsets.retention.minutes)
};

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  auto operator<=>(const TopicPartition&) const = default;
};

struct Group {
  std::string id;
  GroupState state = GroupState::empty;
  int32_t generation = 0;
  std::optional<std::string> protocol_type;
  std::optional<std::string> protocol;  // the selected protocol, once a generation has one
  std::optional<std::string> leader;
  int64_t state_timestamp_ms = -1;  // wall clock of the last state change (offset expiry)
  std::map<std::string, Member> members;
  // Member ids handed out with MEMBER_ID_REQUIRED and not used yet, with their expiry.
  std::map<std::string, SteadyClock::time_point> pending_members;
  std::map<std::string, std::string> static_members;  // group.instance.id -> member id
  std::map<TopicPartition, CommittedOffset> offsets;
  // PreparingRebalance: when the join phase ends. During the initial delay of a group that
  // was empty (group.initial.rebalance.delay.ms) it is extended while members keep arriving,
  // up to join_limit.
  SteadyClock::time_point join_deadline;
  SteadyClock::time_point join_limit;
  bool in_initial_delay = false;
  bool joined_during_delay = false;
  // CompletingRebalance: members that have not sent SyncGroup by then are removed.
  SteadyClock::time_point sync_deadline;
  uint64_t next_join_order = 0;

  bool has_member(const std::string& member_id) const { return members.count(member_id) != 0; }
  // Who may act as a member (heartbeat, sync, rejoin, commit), in the order Kafka's
  // coordinator checks (KIP-345): a request naming a group.instance.id must come from the
  // member now registered for it, FENCED_INSTANCE_ID when another member took the instance
  // over (checked before the member id, so a replaced static member learns it was replaced
  // and stops instead of rejoining and taking the slot back), UNKNOWN_MEMBER_ID when no member
  // holds the instance; then the member id must be a member's (UNKNOWN_MEMBER_ID).
  ErrorCode check_member(const std::string& member_id,
                         const std::optional<std::string>& instance_id) const;
  bool is(GroupState s) const { return state == s; }
  // Every member has rejoined and no member id handed out is still expected.
  bool all_members_joined() const;
  // Whether a member with these protocols may join: same protocol type and at least one
  // protocol every member supports.
  bool supports(std::string_view type, const std::vector<JoinProtocol>& protocols) const;
  // The protocol every member supports that most members prefer (ties: the oldest member's
  // preference). Only meaningful with members.
  std::string select_protocol() const;
  int32_t max_rebalance_timeout_ms() const;
  // The member that leads the next generation: the current leader if still a member, else
  // the oldest member.
  std::optional<std::string> pick_leader() const;

  // The record written to __consumer_offsets for the group's membership.
  GroupValue to_record() const;
};

}  // namespace mirra::groups
