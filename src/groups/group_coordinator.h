// GroupCoordinator: Kafka's classic group protocol on one node. It owns every group (members,
// rebalance state, committed offsets) and keeps them durable in __consumer_offsets.
//
// Requests come from the handlers as their decoded protocol structs and get the response
// struct back; a JoinGroup or SyncGroup that must wait for other members is parked on a
// waiter and resumed by whichever event completes the phase (the last member joining, the
// leader's assignments, a deadline).
//
// Membership (group_coordinator.cc, group_membership.cc) follows Kafka's classic coordinator:
// member ids issued by the broker (MEMBER_ID_REQUIRED from JoinGroup v4), static members by
// group.instance.id, a delayed first rebalance of an empty group, session timeouts, rebalance
// timeouts, generation checks on every call. Offsets (group_offsets.cc): commits are durable
// before they are acknowledged; admin commits (generation -1, no member id) are accepted for
// groups without members only. Loading (group_load.cc): on start every __consumer_offsets
// partition is read back; until a group's partition is loaded its requests get
// COORDINATOR_LOAD_IN_PROGRESS.
//
// Threading: core thread only (checked: MIRRA_ASSERT_OWNER, base/assert.h). Timing is checked
// by one periodic sweep (kSweepInterval): join and sync deadlines, expired sessions, expired
// offsets.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "base/asio.h"
#include "base/assert.h"
#include "base/status.h"
#include "groups/group.h"
#include "groups/group_config.h"
#include "groups/offsets_topic.h"
#include "groups/share_group.h"
#include "protocol/messages/delete_groups.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/heartbeat.h"
#include "protocol/messages/join_group.h"
#include "protocol/messages/leave_group.h"
#include "protocol/messages/list_groups.h"
#include "protocol/messages/offset_commit.h"
#include "protocol/messages/offset_delete.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/share_group_describe.h"
#include "protocol/messages/share_group_heartbeat.h"
#include "protocol/messages/sync_group.h"
#include "protocol/messages/txn_offset_commit.h"

namespace mirra::groups {

// Who sent a request, for member records and DescribeGroups.
struct ClientInfo {
  std::string client_id;
  std::string host;
};

class GroupCoordinator {
 public:
  static constexpr std::chrono::milliseconds kSweepInterval{100};

  GroupCoordinator(asio::any_io_executor core, OffsetsTopic& topic, const GroupConfig& config,
                   std::function<bool(const TopicPartition&)> partition_exists);
  GroupCoordinator(const GroupCoordinator&) = delete;
  GroupCoordinator& operator=(const GroupCoordinator&) = delete;

  // Loads existing __consumer_offsets partitions (in the background) and starts the sweep.
  void start();
  // Stops the sweep; parked requests are answered with COORDINATOR_NOT_AVAILABLE.
  void stop();

  // FindCoordinator: NONE once the offsets topic exists (created on first use), or the error.
  asio::awaitable<Status> ready_for(const std::string& group_id);

  asio::awaitable<protocol::JoinGroupResponse> join(const protocol::JoinGroupRequest& req,
                                                    int16_t version, const ClientInfo& client);
  asio::awaitable<protocol::SyncGroupResponse> sync(const protocol::SyncGroupRequest& req,
                                                    int16_t version);
  protocol::HeartbeatResponse heartbeat(const protocol::HeartbeatRequest& req);
  asio::awaitable<protocol::LeaveGroupResponse> leave(const protocol::LeaveGroupRequest& req,
                                                      int16_t version);

  asio::awaitable<protocol::OffsetCommitResponse> commit(const protocol::OffsetCommitRequest& req,
                                                         int16_t version);
  // TxnOffsetCommit: the offsets are written (as the producer's transactional records) and
  // held until the transaction ends. The transaction coordinator has checked the producer.
  asio::awaitable<protocol::TxnOffsetCommitResponse> txn_commit(
      const protocol::TxnOffsetCommitRequest& req);
  // The transaction coordinator wrote `producer_id`'s marker into group_partition: its offsets
  // for the groups of that partition count (commit) or are dropped (abort).
  void complete_txn(int64_t producer_id, int32_t group_partition, bool commit);
  // A transaction holds an offset of the group's partition that is not decided yet.
  bool has_pending_txn_offset(const std::string& group_id, const TopicPartition& tp) const;
  // The partition of __consumer_offsets that holds a group's records.
  int32_t partition_of(const std::string& group_id) const { return topic_.partition_of(group_id); }
  // One group of an OffsetFetch (v8+ carries several): topics nullopt = all committed. With
  // require_stable, a named partition whose offset a transaction still holds gets
  // UNSTABLE_OFFSET_COMMIT (the client retries), as in Kafka.
  protocol::OffsetFetchResponse::OffsetFetchResponseGroup fetch_offsets(
      const std::string& group_id,
      const std::optional<std::vector<protocol::OffsetFetchRequest::OffsetFetchRequestTopics>>&
          topics,
      bool require_stable = false);
  asio::awaitable<protocol::OffsetDeleteResponse> delete_offsets(
      const protocol::OffsetDeleteRequest& req);

  protocol::ListGroupsResponse list(const protocol::ListGroupsRequest& req, int16_t version);
  protocol::DescribeGroupsResponse::DescribedGroup describe(const std::string& group_id,
                                                            int16_t version);
  asio::awaitable<protocol::DeleteGroupsResponse::DeletableGroupResult> delete_group(
      const std::string& group_id);

  // Caps how long a join or sync phase may wait for members (default: their rebalance
  // timeouts). The in-process fuzzer sets 0, where nothing else would complete a phase.
  void set_max_phase_wait(std::chrono::milliseconds cap) { max_phase_wait_ = cap; }

  // Every loaded group as /metrics shows it: state, member count and committed offsets
  // (server/broker_metrics.h). A copy, cheap next to the groups themselves.
  struct GroupSummary {
    std::string group_id;
    std::string_view state;
    size_t members = 0;
    std::vector<std::pair<TopicPartition, int64_t>> offsets;
  };
  std::vector<GroupSummary> summaries() const;

  // For tests and DescribeGroups: nullptr when unknown.
  const Group* find(const std::string& group_id) const;

  // ---- Share groups (share_group_coordinator.cc; KIP-932, in memory) ----
  // Classic and share groups share one namespace: a share call on a classic group gets
  // GROUP_ID_NOT_FOUND, a classic JoinGroup on a share group INCONSISTENT_GROUP_PROTOCOL.
  protocol::ShareGroupHeartbeatResponse share_heartbeat(
      const protocol::ShareGroupHeartbeatRequest& req, const ClientInfo& client);
  protocol::ShareGroupDescribeResponse::DescribedGroup share_describe(const std::string& group_id);
  // Topic ids and partition counts for the assignor (the broker sets it from its metadata).
  void set_share_topic_lookup(ShareTopicLookup lookup) { share_lookup_ = std::move(lookup); }
  // Called when a member leaves, is fenced, expires, or rejoins with epoch 0 after having had
  // an assignment: what it acquired is to be released. Core thread, after the change.
  void set_share_member_gone(
      std::function<void(const std::string& group_id, const std::string& member_id)> hook) {
    share_member_gone_ = std::move(hook);
  }
  // Called when an (empty) share group is deleted by DeleteGroups. Core thread.
  void set_share_group_deleted(std::function<void(const std::string& group_id)> hook) {
    share_group_deleted_ = std::move(hook);
  }
  // For tests and the share module: nullptr when unknown.
  const ShareGroup* find_share(const std::string& group_id) const;
  // The share group the offsets admin APIs work on: GROUP_ID_NOT_FOUND with Kafka's message
  // when no share group has the id (unknown, or a classic group's).
  Result<const ShareGroup*> share_group_for_admin(const std::string& group_id) const;
  // As above, an empty share group created when the id is free (AlterShareGroupOffsets
  // creates the group, as Kafka's does).
  Result<const ShareGroup*> ensure_share_group(const std::string& group_id);
  // Start-up: a group whose state __share_group_state holds exists again, without members
  // (membership is not kept: members rejoin with their next heartbeat).
  void restore_share_group(const std::string& group_id);

 private:
  // share_group_coordinator.cc.
  bool is_share_group(const std::string& group_id) const {
    return share_groups_.count(group_id) != 0;
  }
  ErrorCode check_share_request(const protocol::ShareGroupHeartbeatRequest& req,
                                std::string& message) const;
  protocol::ShareGroupHeartbeatResponse share_leave(
      const protocol::ShareGroupHeartbeatRequest& req);
  ShareTopics share_topics_of(const std::set<std::string>& names) const;
  // Recomputes the group's topics; bumps its epoch when they or `membership_changed` say so.
  void refresh_share_group(ShareGroup& g, bool membership_changed);
  void remove_share_member(ShareGroup& g, const std::string& member_id, std::string_view why);
  void share_sweep(SteadyClock::time_point now);
  void list_share_groups(const std::set<std::string>& states, bool wanted,
                         protocol::ListGroupsResponse& r) const;
  // DeleteGroups of a share group: NON_EMPTY_GROUP unless it is empty.
  protocol::DeleteGroupsResponse::DeletableGroupResult delete_share_group(
      const std::string& group_id);

  // group_coordinator.cc: request checks and the join/sync phases.
  Status check_available(const std::string& group_id) const;
  Group& get_or_create(const std::string& group_id);
  JoinWaiter new_join_waiter() const;
  SyncWaiter new_sync_waiter() const;
  protocol::JoinGroupResponse join_response(const Group& g, const Member& m, int16_t version) const;
  JoinWaiter join_new_member(Group& g, const protocol::JoinGroupRequest& req, int16_t version,
                             const ClientInfo& client);
  JoinWaiter join_static_member(Group& g, std::string old_id,  // a copy: the map entry changes
                                const protocol::JoinGroupRequest& req, int16_t version,
                                const ClientInfo& client);
  JoinWaiter join_known_member(Group& g, const protocol::JoinGroupRequest& req, int16_t version,
                               const ClientInfo& client);
  Member& add_member(Group& g, const std::string& member_id, const protocol::JoinGroupRequest& req,
                     const ClientInfo& client);
  asio::awaitable<void> complete_sync(std::string group_id, int32_t generation);

  // group_membership.cc: transitions shared by join, leave, heartbeat expiry and the sweep.
  void prepare_rebalance(Group& g, const std::string& reason);
  void maybe_complete_join(Group& g);
  void complete_join(Group& g);
  void remove_member(Group& g, const std::string& member_id, ErrorCode answer);
  void member_left(Group& g, const std::string& reason);
  void set_state(Group& g, GroupState s);
  std::chrono::milliseconds phase_wait(int64_t ms) const;
  void touch(Member& m) const;
  // Answers the member's parked SyncGroup and restarts its session (Kafka's rule).
  void answer_sync(Member& m, protocol::SyncGroupResponse r) const;
  // The group's membership record, written now (awaited) or in the background (logged).
  asio::awaitable<Status> write_group(const std::string& group_id);
  void persist_group(const Group& g);
  std::vector<OffsetsEntry> group_entries(const Group& g) const;
  void sweep();
  asio::awaitable<void> sweep_loop();

  // group_offsets.cc.
  void expire_offsets();
  // Checks one partition of a commit; when it may be stored, adds its record to `entries`
  // and the offset to `accepted`.
  ErrorCode add_offset(const std::string& group_id, TopicPartition tp, CommittedOffset c,
                       std::vector<OffsetsEntry>& entries,
                       std::vector<std::pair<TopicPartition, CommittedOffset>>& accepted) const;

  // add_offset() for every partition of an OffsetCommit or TxnOffsetCommit request, each
  // partition's error in the response.
  template <typename Request, typename Response>
  void add_offsets(const Request& req, Response& r, int64_t now, int64_t expire,
                   std::vector<OffsetsEntry>& entries,
                   std::vector<std::pair<TopicPartition, CommittedOffset>>& accepted) const {
    for (size_t t = 0; t < req.topics.size(); ++t) {
      for (size_t p = 0; p < req.topics[t].partitions.size(); ++p) {
        const auto& in = req.topics[t].partitions[p];
        CommittedOffset c{in.committed_offset, in.committed_leader_epoch,
                          in.committed_metadata.value_or(""), now, expire};
        const ErrorCode e = add_offset(req.group_id, {req.topics[t].name, in.partition_index},
                                       std::move(c), entries, accepted);
        r.topics[t].partitions[p].error_code = error_number(e);
      }
    }
  }

  // group_txn_offsets.cc.
  void restore_txn_offsets(int64_t producer_id, const std::vector<const OffsetsEntry*>& records);

  // group_load.cc.
  asio::awaitable<void> load_all();
  Status replay(const OffsetsEntry& e);
  void finish_loading(Group& g) const;

  asio::any_io_executor core_;
  OffsetsTopic& topic_;
  const GroupConfig& config_;
  std::function<bool(const TopicPartition&)> partition_exists_;
  std::map<std::string, Group> groups_;
  std::map<std::string, ShareGroup> share_groups_;
  ShareTopicLookup share_lookup_;
  std::function<void(const std::string&, const std::string&)> share_member_gone_;
  std::function<void(const std::string&)> share_group_deleted_;
  // Offsets committed inside transactions not decided yet: producer id -> group -> offsets.
  // They count (become the group's offsets) when the transaction's marker commits them.
  std::map<int64_t, std::map<std::string, std::map<TopicPartition, CommittedOffset>>> txn_offsets_;
  std::set<int32_t> loading_;  // __consumer_offsets partitions not loaded yet
  bool loaded_ = false;        // load_all() has finished
  asio::steady_timer sweep_timer_;
  SteadyClock::time_point next_offset_expiry_;
  bool stopped_ = false;
  std::chrono::milliseconds max_phase_wait_ = std::chrono::milliseconds::max();
  ThreadOwner owner_;  // the core thread
};

}  // namespace mirra::groups
