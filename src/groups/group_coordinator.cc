// The request side of the group coordinator: checks common to every call, JoinGroup,
// SyncGroup, Heartbeat and LeaveGroup. State transitions shared with the sweep are in
// group_membership.cc.
#include "groups/group_coordinator.h"

#include <fmt/format.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/uuid.h"

namespace mirra::groups {
namespace {

constexpr const char* kMirraLogComponent = "groups";

using protocol::JoinGroupRequest;
using protocol::JoinGroupResponse;
using protocol::SyncGroupRequest;
using protocol::SyncGroupResponse;

int16_t code(ErrorCode c) { return error_number(c); }

// Ids are classic strings (int16 length) in the records of __consumer_offsets.
constexpr size_t kMaxIdLength = 32767;

JoinGroupResponse join_error(ErrorCode c, const std::string& member_id, int16_t version) {
  JoinGroupResponse r;
  r.error_code = code(c);
  r.member_id = member_id;
  if (version >= 7) r.protocol_name = std::nullopt;  // before v7 the field is not nullable
  return r;
}

SyncGroupResponse sync_error(ErrorCode c) {
  SyncGroupResponse r;
  r.error_code = code(c);
  return r;
}

std::vector<JoinProtocol> protocols_of(const JoinGroupRequest& req) {
  std::vector<JoinProtocol> out;
  for (const auto& p : req.protocols) out.push_back({p.name, p.metadata});
  return out;
}

// Member ids are stored as classic (int16-length) strings in __consumer_offsets, so the
// client-chosen prefix is bounded.
std::string new_member_id(const std::string& prefix) {
  constexpr size_t kMaxPrefix = 1024;
  return fmt::format("{}-{}", prefix.substr(0, kMaxPrefix), Uuid::random().to_string());
}

}  // namespace

GroupCoordinator::GroupCoordinator(asio::any_io_executor core, OffsetsTopic& topic,
                                   const GroupConfig& config,
                                   std::function<bool(const TopicPartition&)> partition_exists)
    : core_(core),
      topic_(topic),
      config_(config),
      partition_exists_(std::move(partition_exists)),
      sweep_timer_(core) {}

const Group* GroupCoordinator::find(const std::string& group_id) const {
  auto it = groups_.find(group_id);
  return it == groups_.end() ? nullptr : &it->second;
}

Status GroupCoordinator::check_available(const std::string& group_id) const {
  if (group_id.empty()) return Status(ErrorCode::INVALID_GROUP_ID, "the group id is empty");
  if (group_id.size() > kMaxIdLength) {
    return Status(ErrorCode::INVALID_GROUP_ID, "the group id is longer than 32767 bytes");
  }
  if (stopped_) return Status(ErrorCode::COORDINATOR_NOT_AVAILABLE, "the broker is stopping");
  if (loading_.count(topic_.partition_of(group_id)) != 0) {
    return Status(ErrorCode::COORDINATOR_LOAD_IN_PROGRESS,
                  fmt::format("group {} is still loading", group_id));
  }
  return Status::OK();
}

asio::awaitable<Status> GroupCoordinator::ready_for(const std::string& group_id) {
  MIRRA_ASSERT_OWNER(owner_);
  if (group_id.empty()) co_return Status(ErrorCode::INVALID_GROUP_ID, "the group id is empty");
  if (stopped_) co_return Status(ErrorCode::COORDINATOR_NOT_AVAILABLE, "the broker is stopping");
  co_return co_await topic_.ensure_created();
}

Group& GroupCoordinator::get_or_create(const std::string& group_id) {
  auto [it, created] = groups_.try_emplace(group_id);
  if (created) {
    it->second.id = group_id;
    it->second.state_timestamp_ms = now_ms();
  }
  return it->second;
}

JoinWaiter GroupCoordinator::new_join_waiter() const {
  return std::make_shared<cluster::Pending<JoinGroupResponse>>(core_);
}

SyncWaiter GroupCoordinator::new_sync_waiter() const {
  return std::make_shared<cluster::Pending<SyncGroupResponse>>(core_);
}

JoinGroupResponse GroupCoordinator::join_response(const Group& g, const Member& m,
                                                  int16_t version) const {
  JoinGroupResponse r;
  r.generation_id = g.generation;
  r.protocol_type = g.protocol_type;
  r.protocol_name = g.protocol.value_or("");
  if (version >= 7 && !g.protocol) r.protocol_name = std::nullopt;
  r.leader = g.leader.value_or("");
  r.member_id = m.id;
  if (g.leader == m.id) {
    for (const auto& [id, member] : g.members) {
      JoinGroupResponse::JoinGroupResponseMember out;
      out.member_id = id;
      out.group_instance_id = member.instance_id;
      if (const Bytes* md = member.metadata_for(r.protocol_name.value_or(""))) out.metadata = *md;
      r.members.push_back(std::move(out));
    }
  }
  return r;
}

Member& GroupCoordinator::add_member(Group& g, const std::string& member_id,
                                     const JoinGroupRequest& req, const ClientInfo& client) {
  Member& m = g.members[member_id];
  m.id = member_id;
  m.instance_id = req.group_instance_id;
  m.client_id = client.client_id;
  m.client_host = client.host;
  m.session_timeout_ms = req.session_timeout_ms;
  // JoinGroup v0 has no rebalance timeout: it is the session timeout, as in Kafka.
  m.rebalance_timeout_ms = req.rebalance_timeout_ms < 0 ? req.session_timeout_ms
                                                        : req.rebalance_timeout_ms;
  m.protocol_type = req.protocol_type;
  m.protocols = protocols_of(req);
  m.join_order = g.next_join_order++;
  if (m.instance_id) g.static_members[*m.instance_id] = member_id;
  if (g.members.size() == 1) g.protocol_type = req.protocol_type;
  touch(m);
  return m;
}

// Parks `m` in the join phase, starting a rebalance unless one is under way.
static void await_join(Member& m, JoinWaiter waiter, Group& g, int16_t version) {
  if (m.awaiting_join) {
    // The same member joined twice: the earlier request is superseded.
    JoinGroupResponse superseded;
    superseded.error_code = code(ErrorCode::REBALANCE_IN_PROGRESS);
    superseded.member_id = m.id;
    m.awaiting_join->set(std::move(superseded));
  }
  m.awaiting_join = std::move(waiter);
  m.join_version = version;
  if (g.in_initial_delay) g.joined_during_delay = true;
}

asio::awaitable<JoinGroupResponse> GroupCoordinator::join(const JoinGroupRequest& req,
                                                          int16_t version,
                                                          const ClientInfo& client) {
  MIRRA_ASSERT_OWNER(owner_);
  if (Status st = check_available(req.group_id); !st) {
    co_return join_error(st.code(), req.member_id, version);
  }
  if (req.session_timeout_ms < config_.min_session_timeout_ms ||
      req.session_timeout_ms > config_.max_session_timeout_ms) {
    co_return join_error(ErrorCode::INVALID_SESSION_TIMEOUT, req.member_id, version);
  }
  if (req.group_instance_id && req.group_instance_id->size() > kMaxIdLength) {
    co_return join_error(ErrorCode::INVALID_REQUEST, req.member_id, version);
  }
  // One namespace for every group type: a share group is not joined this way (Kafka answers
  // without a member id).
  if (is_share_group(req.group_id)) {
    co_return join_error(ErrorCode::INCONSISTENT_GROUP_PROTOCOL, "", version);
  }
  if (find(req.group_id) == nullptr && !req.member_id.empty()) {
    co_return join_error(ErrorCode::UNKNOWN_MEMBER_ID, req.member_id, version);
  }
  Group& g = get_or_create(req.group_id);
  if (g.is(GroupState::dead)) {
    co_return join_error(ErrorCode::COORDINATOR_NOT_AVAILABLE, req.member_id, version);
  }
  if (!g.supports(req.protocol_type, protocols_of(req))) {
    co_return join_error(ErrorCode::INCONSISTENT_GROUP_PROTOCOL, req.member_id, version);
  }
  JoinWaiter waiter;
  if (!req.member_id.empty()) {
    waiter = join_known_member(g, req, version, client);
  } else if (req.group_instance_id && g.static_members.count(*req.group_instance_id) != 0) {
    waiter = join_static_member(g, g.static_members[*req.group_instance_id], req, version, client);
  } else {
    waiter = join_new_member(g, req, version, client);
  }
  co_return co_await waiter->wait();
}

JoinWaiter GroupCoordinator::join_new_member(Group& g, const JoinGroupRequest& req, int16_t version,
                                             const ClientInfo& client) {
  JoinWaiter waiter = new_join_waiter();
  if (static_cast<int64_t>(g.members.size()) >= config_.max_size) {
    waiter->set(join_error(ErrorCode::GROUP_MAX_SIZE_REACHED, "", version));
    return waiter;
  }
  const std::string id = new_member_id(req.group_instance_id.value_or(client.client_id));
  if (version >= 4 && !req.group_instance_id) {
    // KIP-394: the member must come back with the id, so that a client that retries a
    // timed-out first join does not leave a ghost member behind.
    g.pending_members[id] = SteadyClock::now() + std::chrono::milliseconds(req.session_timeout_ms);
    waiter->set(join_error(ErrorCode::MEMBER_ID_REQUIRED, id, version));
    return waiter;
  }
  Member& m = add_member(g, id, req, client);
  await_join(m, waiter, g, version);
  if (!g.is(GroupState::preparing_rebalance)) prepare_rebalance(g, fmt::format("{} joined", id));
  maybe_complete_join(g);
  return waiter;
}

JoinWaiter GroupCoordinator::join_static_member(Group& g, std::string old_id,
                                                const JoinGroupRequest& req, int16_t version,
                                                const ClientInfo& client) {
  // A static member restarting: it takes over its old membership under a new member id, and
  // the old id is fenced.
  Member m = std::move(g.members[old_id]);
  g.members.erase(old_id);
  if (m.awaiting_join)
    m.awaiting_join->set(join_error(ErrorCode::FENCED_INSTANCE_ID, old_id, version));
  if (m.awaiting_sync) m.awaiting_sync->set(sync_error(ErrorCode::FENCED_INSTANCE_ID));
  m.awaiting_join = nullptr;
  m.awaiting_sync = nullptr;
  const std::string id = new_member_id(*req.group_instance_id);
  const bool protocols_changed = m.protocols != protocols_of(req);
  m.id = id;
  m.client_id = client.client_id;
  m.client_host = client.host;
  m.session_timeout_ms = req.session_timeout_ms;
  if (req.rebalance_timeout_ms >= 0) m.rebalance_timeout_ms = req.rebalance_timeout_ms;
  m.protocols = protocols_of(req);
  g.static_members[*req.group_instance_id] = id;
  if (g.leader == old_id) g.leader = id;
  Member& member = g.members[id] = std::move(m);
  touch(member);
  MIRRA_LOG_INFO("group {}: static member {} rejoined as {}", g.id, *req.group_instance_id, id);

  JoinWaiter waiter = new_join_waiter();
  if (g.is(GroupState::stable) && !protocols_changed) {
    // No rebalance: the member gets its generation back and its assignment from SyncGroup.
    persist_group(g);
    JoinGroupResponse r = join_response(g, member, version);
    r.skip_assignment = g.leader == id;  // KIP-814: the leader must not reassign
    waiter->set(std::move(r));
    return waiter;
  }
  await_join(member, waiter, g, version);
  if (!g.is(GroupState::preparing_rebalance)) {
    prepare_rebalance(g, fmt::format("static member {} rejoined", *req.group_instance_id));
  }
  maybe_complete_join(g);
  return waiter;
}

JoinWaiter GroupCoordinator::join_known_member(Group& g, const JoinGroupRequest& req,
                                               int16_t version, const ClientInfo& client) {
  JoinWaiter waiter = new_join_waiter();
  const std::string& id = req.member_id;
  if (g.pending_members.erase(id) != 0) {
    Member& m = add_member(g, id, req, client);
    await_join(m, waiter, g, version);
    if (!g.is(GroupState::preparing_rebalance)) prepare_rebalance(g, fmt::format("{} joined", id));
    maybe_complete_join(g);
    return waiter;
  }
  if (ErrorCode e = g.check_member(id, req.group_instance_id); e != ErrorCode::NONE) {
    waiter->set(join_error(e, id, version));
    return waiter;
  }
  Member& m = g.members.at(id);
  const bool changed = m.protocols != protocols_of(req);
  const bool answer_now = !changed && (g.is(GroupState::completing_rebalance) ||
                                       (g.is(GroupState::stable) && g.leader != id));
  if (g.is(GroupState::empty) || g.is(GroupState::dead)) {
    waiter->set(join_error(ErrorCode::UNKNOWN_MEMBER_ID, id, version));
    return waiter;
  }
  touch(m);
  if (answer_now) {  // a retry of a join that already completed
    waiter->set(join_response(g, m, version));
    return waiter;
  }
  m.protocols = protocols_of(req);
  m.session_timeout_ms = req.session_timeout_ms;
  if (req.rebalance_timeout_ms >= 0) m.rebalance_timeout_ms = req.rebalance_timeout_ms;
  await_join(m, waiter, g, version);
  if (!g.is(GroupState::preparing_rebalance)) {
    prepare_rebalance(g, fmt::format("{} {}", id, changed ? "changed its protocols" : "rejoined"));
  }
  maybe_complete_join(g);
  return waiter;
}

asio::awaitable<SyncGroupResponse> GroupCoordinator::sync(const SyncGroupRequest& req,
                                                          int16_t version) {
  MIRRA_ASSERT_OWNER(owner_);
  (void)version;
  if (Status st = check_available(req.group_id); !st) co_return sync_error(st.code());
  auto git = groups_.find(req.group_id);
  if (git == groups_.end()) co_return sync_error(ErrorCode::UNKNOWN_MEMBER_ID);
  Group& g = git->second;
  if (g.is(GroupState::dead)) co_return sync_error(ErrorCode::COORDINATOR_NOT_AVAILABLE);
  if (ErrorCode e = g.check_member(req.member_id, req.group_instance_id); e != ErrorCode::NONE) {
    co_return sync_error(e);
  }
  if (req.generation_id != g.generation) co_return sync_error(ErrorCode::ILLEGAL_GENERATION);
  if ((req.protocol_type && *req.protocol_type != g.protocol_type) ||
      (req.protocol_name && *req.protocol_name != g.protocol)) {
    co_return sync_error(ErrorCode::INCONSISTENT_GROUP_PROTOCOL);
  }
  Member& m = g.members.at(req.member_id);
  touch(m);
  switch (g.state) {
    case GroupState::empty:
      co_return sync_error(ErrorCode::UNKNOWN_MEMBER_ID);
    case GroupState::preparing_rebalance:
      co_return sync_error(ErrorCode::REBALANCE_IN_PROGRESS);
    case GroupState::stable: {
      SyncGroupResponse r;
      r.protocol_type = g.protocol_type;
      r.protocol_name = g.protocol;
      r.assignment = m.assignment;
      co_return r;
    }
    case GroupState::completing_rebalance:
      break;
    case GroupState::dead:
      co_return sync_error(ErrorCode::COORDINATOR_NOT_AVAILABLE);
  }
  if (m.awaiting_sync) m.awaiting_sync->set(sync_error(ErrorCode::REBALANCE_IN_PROGRESS));
  SyncWaiter waiter = new_sync_waiter();
  m.awaiting_sync = waiter;
  m.synced = true;
  if (g.leader == m.id) {
    for (auto& [id, member] : g.members) member.assignment.clear();
    for (const auto& a : req.assignments) {
      auto target = g.members.find(a.member_id);
      if (target != g.members.end()) target->second.assignment = a.assignment;
    }
    asio::co_spawn(core_, complete_sync(g.id, g.generation), asio::detached);
  }
  co_return co_await waiter->wait();
}

asio::awaitable<void> GroupCoordinator::complete_sync(std::string group_id, int32_t generation) {
  Status written = co_await write_group(group_id);
  auto it = groups_.find(group_id);
  if (it == groups_.end()) co_return;
  Group& g = it->second;
  // A rebalance (or a deletion) that started meanwhile has answered the waiters already.
  if (g.generation != generation || !g.is(GroupState::completing_rebalance)) co_return;
  if (!written) {
    MIRRA_LOG_WARN("group {}: cannot store generation {}: {}", group_id, generation,
                   written.to_string());
    for (auto& [id, m] : g.members) {
      m.assignment.clear();
      if (m.awaiting_sync) answer_sync(m, sync_error(ErrorCode::COORDINATOR_NOT_AVAILABLE));
    }
    prepare_rebalance(g, "storing the assignment failed");
    co_return;
  }
  set_state(g, GroupState::stable);
  MIRRA_LOG_INFO("group {}: generation {} stable with {} member(s), protocol {}", group_id,
                 generation, g.members.size(), g.protocol.value_or(""));
  for (auto& [id, m] : g.members) {
    if (!m.awaiting_sync) continue;
    SyncGroupResponse r;
    r.protocol_type = g.protocol_type;
    r.protocol_name = g.protocol;
    r.assignment = m.assignment;
    answer_sync(m, std::move(r));
  }
}

protocol::HeartbeatResponse GroupCoordinator::heartbeat(const protocol::HeartbeatRequest& req) {
  MIRRA_ASSERT_OWNER(owner_);
  protocol::HeartbeatResponse r;
  auto answer = [&](ErrorCode c) {
    r.error_code = code(c);
    return r;
  };
  if (Status st = check_available(req.group_id); !st) return answer(st.code());
  auto git = groups_.find(req.group_id);
  if (git == groups_.end()) return answer(ErrorCode::UNKNOWN_MEMBER_ID);
  Group& g = git->second;
  if (g.is(GroupState::dead)) return answer(ErrorCode::COORDINATOR_NOT_AVAILABLE);
  if (ErrorCode e = g.check_member(req.member_id, req.group_instance_id); e != ErrorCode::NONE) {
    return answer(e);
  }
  if (req.generation_id != g.generation) return answer(ErrorCode::ILLEGAL_GENERATION);
  touch(g.members.at(req.member_id));
  if (g.is(GroupState::preparing_rebalance)) return answer(ErrorCode::REBALANCE_IN_PROGRESS);
  return answer(ErrorCode::NONE);
}

asio::awaitable<protocol::LeaveGroupResponse> GroupCoordinator::leave(
    const protocol::LeaveGroupRequest& req, int16_t version) {
  MIRRA_ASSERT_OWNER(owner_);
  using Identity = protocol::LeaveGroupRequest::MemberIdentity;
  protocol::LeaveGroupResponse r;
  std::vector<Identity> leaving = req.members;
  if (version < 3) {
    Identity only;
    only.member_id = req.member_id;
    leaving.push_back(std::move(only));
  }
  if (Status st = check_available(req.group_id); !st) {
    r.error_code = code(st.code());
    co_return r;
  }
  if (is_share_group(req.group_id)) {  // Kafka: "Group X not found.", for the whole request
    r.error_code = code(ErrorCode::UNKNOWN_MEMBER_ID);
    co_return r;
  }
  auto git = groups_.find(req.group_id);
  Group* g = git == groups_.end() ? nullptr : &git->second;
  if (g != nullptr && g->is(GroupState::dead)) {
    r.error_code = code(ErrorCode::COORDINATOR_NOT_AVAILABLE);
    co_return r;
  }
  bool removed = false;
  for (const Identity& who : leaving) {
    protocol::LeaveGroupResponse::MemberResponse out;
    out.member_id = who.member_id;
    out.group_instance_id = who.group_instance_id;
    std::string id = who.member_id;
    ErrorCode err = ErrorCode::NONE;
    if (g == nullptr) {
      err = ErrorCode::UNKNOWN_MEMBER_ID;
    } else if (who.group_instance_id) {
      auto s = g->static_members.find(*who.group_instance_id);
      if (s == g->static_members.end()) err = ErrorCode::UNKNOWN_MEMBER_ID;
      else if (!id.empty() && id != s->second) err = ErrorCode::FENCED_INSTANCE_ID;
      else id = s->second;
    } else if (g->pending_members.erase(id) != 0) {
      removed = true;  // a member that never completed its first join
    } else if (!g->has_member(id)) {
      err = ErrorCode::UNKNOWN_MEMBER_ID;
    }
    if (err == ErrorCode::NONE && g->has_member(id)) {
      MIRRA_LOG_INFO("group {}: member {} left{}", g->id, id,
                     who.reason ? fmt::format(" ({})", *who.reason) : "");
      remove_member(*g, id, ErrorCode::UNKNOWN_MEMBER_ID);
      removed = true;
    }
    out.error_code = code(err);
    r.members.push_back(std::move(out));
  }
  if (removed) member_left(*g, "a member left");
  if (version < 3 && !r.members.empty()) r.error_code = r.members.front().error_code;
  co_return r;
}

}  // namespace mirra::groups
