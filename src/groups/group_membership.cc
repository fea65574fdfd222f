// Group state transitions shared by the requests and the periodic sweep: starting and
// completing a rebalance, removing members, session and phase deadlines, and writing the
// group's membership record.
#include <fmt/format.h>

#include "base/clock.h"
#include "base/log.h"
#include "groups/group_coordinator.h"

namespace mirra::groups {
namespace {

constexpr const char* kMirraLogComponent = "groups";

std::chrono::milliseconds ms(int64_t v) { return std::chrono::milliseconds(v); }

}  // namespace

void GroupCoordinator::set_state(Group& g, GroupState s) {
  g.state = s;
  g.state_timestamp_ms = now_ms();
}

std::chrono::milliseconds GroupCoordinator::phase_wait(int64_t wait_ms) const {
  return std::min(ms(wait_ms), max_phase_wait_);
}

void GroupCoordinator::touch(Member& m) const {
  m.heartbeat_deadline = SteadyClock::now() + ms(m.session_timeout_ms);
}

void GroupCoordinator::answer_sync(Member& m, protocol::SyncGroupResponse r) const {
  MIRRA_ASSERT(m.awaiting_sync != nullptr, "member {} has no parked SyncGroup", m.id);
  m.awaiting_sync->set(std::move(r));
  m.awaiting_sync = nullptr;
  // A parked SyncGroup is exempt from session expiry, so its heartbeat deadline may have
  // passed while it waited for a slow leader or for the membership record to be stored. As
  // Kafka's coordinator does when it propagates assignments, the session runs again from the
  // answer: otherwise the next sweep would evict the member the moment it got its
  // assignment, before it could heartbeat, and the client would report its partitions lost.
  touch(m);
}

void GroupCoordinator::prepare_rebalance(Group& g, const std::string& reason) {
  if (g.is(GroupState::completing_rebalance)) {
    // Assignments of the generation being abandoned are void; members waiting for them rejoin.
    for (auto& [id, m] : g.members) {
      m.assignment.clear();
      if (m.awaiting_sync) {
        protocol::SyncGroupResponse r;
        r.error_code = error_number(ErrorCode::REBALANCE_IN_PROGRESS);
        answer_sync(m, std::move(r));
      }
    }
  }
  const bool initial = g.is(GroupState::empty);
  set_state(g, GroupState::preparing_rebalance);
  const auto now = SteadyClock::now();
  const auto rebalance_timeout = phase_wait(g.max_rebalance_timeout_ms());
  const auto delay = phase_wait(config_.initial_rebalance_delay_ms);
  if (initial && delay.count() > 0) {
    // KIP-134: wait a little for the rest of a starting group, so that it does not rebalance
    // once per arriving member; each newcomer extends the wait, up to the rebalance timeout.
    g.in_initial_delay = true;
    g.joined_during_delay = false;
    g.join_deadline = now + delay;
    g.join_limit = now + std::max(rebalance_timeout, delay);
  } else {
    g.in_initial_delay = false;
    g.join_deadline = now + rebalance_timeout;
  }
  MIRRA_LOG_INFO("group {}: rebalancing (generation {}): {}", g.id, g.generation, reason);
}

void GroupCoordinator::maybe_complete_join(Group& g) {
  if (!g.is(GroupState::preparing_rebalance) || g.in_initial_delay) return;
  if (g.all_members_joined() || SteadyClock::now() >= g.join_deadline) complete_join(g);
}

void GroupCoordinator::complete_join(Group& g) {
  std::vector<std::string> missing;
  for (const auto& [id, m] : g.members) {
    if (!m.awaiting_join) missing.push_back(id);
  }
  for (const std::string& id : missing) {
    MIRRA_LOG_INFO("group {}: member {} did not rejoin in time and was removed", g.id, id);
    remove_member(g, id, ErrorCode::UNKNOWN_MEMBER_ID);
  }
  g.in_initial_delay = false;
  ++g.generation;
  if (g.members.empty()) {
    g.protocol.reset();
    g.leader.reset();
    set_state(g, GroupState::empty);
    MIRRA_LOG_INFO("group {}: generation {} is empty", g.id, g.generation);
    persist_group(g);
    return;
  }
  g.protocol_type = g.members.begin()->second.protocol_type;
  g.protocol = g.select_protocol();
  g.leader = g.pick_leader();
  set_state(g, GroupState::completing_rebalance);
  g.sync_deadline = SteadyClock::now() + phase_wait(g.max_rebalance_timeout_ms());
  for (auto& [id, m] : g.members) {
    m.synced = false;
    touch(m);
    JoinWaiter waiter = std::move(m.awaiting_join);
    m.awaiting_join = nullptr;
    waiter->set(join_response(g, m, m.join_version));
  }
  MIRRA_LOG_INFO("group {}: generation {} joined by {} member(s), leader {}, protocol {}", g.id,
                 g.generation, g.members.size(), g.leader.value_or(""), g.protocol.value_or(""));
}

void GroupCoordinator::remove_member(Group& g, const std::string& member_id, ErrorCode answer) {
  auto it = g.members.find(member_id);
  if (it == g.members.end()) return;
  Member& m = it->second;
  if (m.awaiting_join) {
    protocol::JoinGroupResponse r;
    r.error_code = error_number(answer);
    r.member_id = member_id;
    if (m.join_version >= 7) r.protocol_name = std::nullopt;
    m.awaiting_join->set(std::move(r));
  }
  if (m.awaiting_sync) {
    protocol::SyncGroupResponse r;
    r.error_code = error_number(answer);
    m.awaiting_sync->set(std::move(r));
  }
  if (m.instance_id) {
    auto s = g.static_members.find(*m.instance_id);
    if (s != g.static_members.end() && s->second == member_id) g.static_members.erase(s);
  }
  if (g.leader == member_id) g.leader.reset();
  g.members.erase(it);
}

void GroupCoordinator::member_left(Group& g, const std::string& reason) {
  if (g.is(GroupState::stable) || g.is(GroupState::completing_rebalance)) {
    prepare_rebalance(g, reason);
  }
  maybe_complete_join(g);
}

std::vector<OffsetsEntry> GroupCoordinator::group_entries(const Group& g) const {
  return {OffsetsEntry{encode_key(GroupKey{g.id}), encode_value(g.to_record())}};
}

asio::awaitable<Status> GroupCoordinator::write_group(const std::string& group_id) {
  const Group* g = find(group_id);
  if (g == nullptr) co_return Status(ErrorCode::COORDINATOR_NOT_AVAILABLE, "the group is gone");
  std::vector<OffsetsEntry> entries = group_entries(*g);
  if (Status st = co_await topic_.ensure_created(); !st) co_return st;
  co_return co_await topic_.append(group_id, std::move(entries));
}

void GroupCoordinator::persist_group(const Group& g) {
  auto write = [](GroupCoordinator* self, std::string id,
                  std::vector<OffsetsEntry> entries) -> asio::awaitable<void> {
    Status st = co_await self->topic_.ensure_created();
    if (st) st = co_await self->topic_.append(id, std::move(entries));
    if (!st) MIRRA_LOG_WARN("group {}: cannot store its membership: {}", id, st.to_string());
  };
  asio::co_spawn(core_, write(this, g.id, group_entries(g)), asio::detached);
}

void GroupCoordinator::start() {
  MIRRA_ASSERT_OWNER(owner_);
  if (topic_.exists()) {
    for (int32_t p = 0; p < topic_.partition_count(); ++p) loading_.insert(p);
  }
  asio::co_spawn(core_, load_all(), asio::detached);
  asio::co_spawn(core_, sweep_loop(), asio::detached);
}

void GroupCoordinator::stop() {
  MIRRA_ASSERT_OWNER(owner_);
  stopped_ = true;
  sweep_timer_.cancel();
  for (auto& [gid, g] : groups_) {
    for (auto& [id, m] : g.members) {
      if (m.awaiting_join) {
        protocol::JoinGroupResponse r;
        r.error_code = error_number(ErrorCode::COORDINATOR_NOT_AVAILABLE);
        r.member_id = id;
        if (m.join_version >= 7) r.protocol_name = std::nullopt;
        m.awaiting_join->set(std::move(r));
        m.awaiting_join = nullptr;
      }
      if (m.awaiting_sync) {
        protocol::SyncGroupResponse r;
        r.error_code = error_number(ErrorCode::COORDINATOR_NOT_AVAILABLE);
        m.awaiting_sync->set(std::move(r));
        m.awaiting_sync = nullptr;
      }
    }
  }
}

asio::awaitable<void> GroupCoordinator::sweep_loop() {
  next_offset_expiry_ = SteadyClock::now() + ms(config_.offsets_retention_check_interval_ms);
  while (!stopped_) {
    sweep_timer_.expires_after(kSweepInterval);
    asio::error_code ec;
    co_await sweep_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (stopped_) break;
    sweep();
  }
}

void GroupCoordinator::sweep() {
  MIRRA_ASSERT_OWNER(owner_);
  const auto now = SteadyClock::now();
  for (auto& [gid, g] : groups_) {
    if (g.is(GroupState::preparing_rebalance) && now >= g.join_deadline) {
      const bool extend = g.in_initial_delay && g.joined_during_delay &&
                          now + ms(config_.initial_rebalance_delay_ms) < g.join_limit;
      if (extend) {
        g.joined_during_delay = false;
        g.join_deadline = now + ms(config_.initial_rebalance_delay_ms);
      } else {
        complete_join(g);
      }
    } else if (g.is(GroupState::completing_rebalance) && now >= g.sync_deadline) {
      std::vector<std::string> silent;
      for (const auto& [id, m] : g.members) {
        if (!m.synced) silent.push_back(id);
      }
      for (const std::string& id : silent) {
        MIRRA_LOG_INFO("group {}: member {} did not sync in time and was removed", gid, id);
        remove_member(g, id, ErrorCode::REBALANCE_IN_PROGRESS);
      }
      if (!silent.empty()) member_left(g, "members did not sync in time");
    }
    std::vector<std::string> expired;
    for (const auto& [id, m] : g.members) {
      if (!m.awaiting_join && !m.awaiting_sync && now >= m.heartbeat_deadline)
        expired.push_back(id);
    }
    for (const std::string& id : expired) {
      MIRRA_LOG_INFO("group {}: member {} expired (no heartbeat within its session timeout)", gid,
                     id);
      remove_member(g, id, ErrorCode::UNKNOWN_MEMBER_ID);
    }
    if (!expired.empty()) member_left(g, "a member's session expired");
    if (std::erase_if(g.pending_members, [&](const auto& kv) { return now >= kv.second; }) > 0) {
      maybe_complete_join(g);
    }
  }
  share_sweep(now);
  if (now >= next_offset_expiry_) {
    next_offset_expiry_ = now + ms(config_.offsets_retention_check_interval_ms);
    expire_offsets();
  }
}

}  // namespace mirra::groups
