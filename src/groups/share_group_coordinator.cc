// Share groups on the group coordinator (KIP-932): ShareGroupHeartbeat (join with epoch 0,
// leave with -1, heartbeat otherwise), ShareGroupDescribe, session expiry on the sweep, and
// the share side of ListGroups and DeleteGroups. Membership lives in memory only: after a
// restart a member's heartbeat gets UNKNOWN_MEMBER_ID and it rejoins with epoch 0.
#include <fmt/format.h>

#include "base/log.h"
#include "base/text.h"
#include "groups/group_coordinator.h"

namespace mirra::groups {
namespace {

constexpr const char* kMirraLogComponent = "groups";

using protocol::ShareGroupHeartbeatRequest;
using protocol::ShareGroupHeartbeatResponse;

// Client-generated member ids are UUIDs (36 characters as text); Kafka refuses longer ones.
constexpr size_t kMaxMemberIdLength = 36;
constexpr int32_t kJoinEpoch = 0;
constexpr int32_t kLeaveEpoch = -1;

ShareGroupHeartbeatResponse share_error(ErrorCode c, std::string message = {}) {
  ShareGroupHeartbeatResponse r;
  r.error_code = error_number(c);
  if (!message.empty()) r.error_message = std::move(message);
  return r;
}

bool blank(const std::string& s) { return trim(s).empty(); }

std::string not_a_share_group(const std::string& group_id) {
  return fmt::format("Group {} is not a share group.", group_id);
}

}  // namespace

const ShareGroup* GroupCoordinator::find_share(const std::string& group_id) const {
  auto it = share_groups_.find(group_id);
  return it == share_groups_.end() ? nullptr : &it->second;
}

Result<const ShareGroup*> GroupCoordinator::share_group_for_admin(
    const std::string& group_id) const {
  MIRRA_ASSERT_OWNER(owner_);
  if (groups_.count(group_id) != 0) {
    return Status(ErrorCode::GROUP_ID_NOT_FOUND, not_a_share_group(group_id));
  }
  const ShareGroup* g = find_share(group_id);
  if (g == nullptr) {
    return Status(ErrorCode::GROUP_ID_NOT_FOUND, fmt::format("Group {} not found.", group_id));
  }
  return g;
}

Result<const ShareGroup*> GroupCoordinator::ensure_share_group(const std::string& group_id) {
  MIRRA_ASSERT_OWNER(owner_);
  if (Status st = check_available(group_id); !st) return st;
  if (groups_.count(group_id) == 0 && share_groups_.count(group_id) == 0) {
    restore_share_group(group_id);
    MIRRA_LOG_INFO("share group {}: created without members", group_id);
  }
  return share_group_for_admin(group_id);
}

void GroupCoordinator::restore_share_group(const std::string& group_id) {
  MIRRA_ASSERT_OWNER(owner_);
  auto [it, added] = share_groups_.try_emplace(group_id);
  if (added) it->second.id = group_id;
}

// Kafka's request checks (GroupCoordinatorService), before any group is looked at.
ErrorCode GroupCoordinator::check_share_request(const ShareGroupHeartbeatRequest& req,
                                                std::string& message) const {
  if (blank(req.group_id)) message = "GroupId can't be empty.";
  else if (blank(req.member_id)) message = "MemberId can't be empty.";
  else if (req.member_id.size() > kMaxMemberIdLength)
    message = "MemberId can't be longer than 36 characters.";
  else if (req.rack_id && blank(*req.rack_id)) message = "RackId can't be empty.";
  else if (req.member_epoch == kJoinEpoch &&
           (!req.subscribed_topic_names || req.subscribed_topic_names->empty()))
    message = "SubscribedTopicNames must be set in first request.";
  else if (req.member_epoch < kLeaveEpoch) message = "MemberEpoch is invalid.";
  return message.empty() ? ErrorCode::NONE : ErrorCode::INVALID_REQUEST;
}

ShareTopics GroupCoordinator::share_topics_of(const std::set<std::string>& names) const {
  ShareTopics out;
  if (!share_lookup_.by_name) return out;
  for (const std::string& name : names) {
    if (auto t = share_lookup_.by_name(name)) out[name] = *t;
  }
  return out;
}

void GroupCoordinator::refresh_share_group(ShareGroup& g, bool membership_changed) {
  ShareTopics now = share_topics_of(g.subscribed_topics());
  if (!membership_changed && now == g.topics) return;
  g.bump(std::move(now));
  MIRRA_LOG_INFO("share group {}: epoch {} with {} member(s)", g.id, g.group_epoch,
                 g.members.size());
}

void GroupCoordinator::remove_share_member(ShareGroup& g, const std::string& member_id,
                                           std::string_view why) {
  if (g.members.erase(member_id) == 0) return;
  MIRRA_LOG_INFO("share group {}: member {} {}", g.id, member_id, why);
  refresh_share_group(g, true);
  if (share_member_gone_) share_member_gone_(g.id, member_id);
}

ShareGroupHeartbeatResponse GroupCoordinator::share_leave(const ShareGroupHeartbeatRequest& req) {
  auto it = share_groups_.find(req.group_id);
  if (it == share_groups_.end()) {
    return share_error(ErrorCode::GROUP_ID_NOT_FOUND,
                       fmt::format("Group {} not found.", req.group_id));
  }
  ShareGroup& g = it->second;
  if (g.members.count(req.member_id) == 0) {
    return share_error(ErrorCode::UNKNOWN_MEMBER_ID,
                       fmt::format("Member {} is not a member of group {}.", req.member_id, g.id));
  }
  remove_share_member(g, req.member_id, "left");
  ShareGroupHeartbeatResponse r;
  r.member_id = req.member_id;
  r.member_epoch = kLeaveEpoch;
  return r;
}

ShareGroupHeartbeatResponse GroupCoordinator::share_heartbeat(const ShareGroupHeartbeatRequest& req,
                                                              const ClientInfo& client) {
  MIRRA_ASSERT_OWNER(owner_);
  std::string message;
  if (ErrorCode e = check_share_request(req, message); e != ErrorCode::NONE) {
    return share_error(e, std::move(message));
  }
  if (Status st = check_available(req.group_id); !st) return share_error(st.code(), st.message());
  if (groups_.count(req.group_id) != 0) {
    return share_error(ErrorCode::GROUP_ID_NOT_FOUND, not_a_share_group(req.group_id));
  }
  if (req.member_epoch == kLeaveEpoch) return share_leave(req);
  const bool joining = req.member_epoch == kJoinEpoch;
  auto git = share_groups_.find(req.group_id);
  if (git == share_groups_.end()) {
    if (!joining) {
      return share_error(ErrorCode::GROUP_ID_NOT_FOUND,
                         fmt::format("Group {} not found.", req.group_id));
    }
    git = share_groups_.emplace(req.group_id, ShareGroup{}).first;
    git->second.id = req.group_id;
  }
  ShareGroup& g = git->second;
  auto mit = g.members.find(req.member_id);
  if (mit == g.members.end() && static_cast<int64_t>(g.members.size()) >= config_.share.max_size) {
    return share_error(
        ErrorCode::GROUP_MAX_SIZE_REACHED,
        fmt::format("The share group has reached its maximum capacity of {} members.",
                    config_.share.max_size));
  }
  bool changed = false;  // membership or subscriptions: the group epoch moves on
  if (mit == g.members.end()) {
    if (!joining) {
      return share_error(
          ErrorCode::UNKNOWN_MEMBER_ID,
          fmt::format("Member {} is not a member of group {}.", req.member_id, g.id));
    }
    mit = g.members.emplace(req.member_id, ShareMember{}).first;
    mit->second.id = req.member_id;
    changed = true;
    MIRRA_LOG_INFO("share group {}: member {} joined", g.id, req.member_id);
  } else if (joining && ShareGroup::check_epoch(mit->second, kJoinEpoch) != ErrorCode::NONE) {
    // Epoch 0 from a member that had moved on: it restarted or was told to rejoin, and
    // abandoned what it held. Its earlier incarnation is gone; the same id starts afresh.
    mit->second.epoch = kJoinEpoch;
    mit->second.previous_epoch = -1;
    mit->second.assignment.clear();
    if (share_member_gone_) share_member_gone_(g.id, req.member_id);
  } else if (!joining &&
             ShareGroup::check_epoch(mit->second, req.member_epoch) != ErrorCode::NONE) {
    // Fenced out of the group: what it holds goes back, and it rejoins with epoch 0.
    std::string why = fmt::format("has epoch {} where the group knows {}; it must rejoin",
                                  req.member_epoch, mit->second.epoch);
    remove_share_member(g, req.member_id, "was fenced: " + why);
    return share_error(ErrorCode::FENCED_MEMBER_EPOCH, "The share group member " + why + ".");
  }
  ShareMember& m = mit->second;
  if (req.rack_id) m.rack = req.rack_id;
  m.client_id = client.client_id;
  m.client_host = client.host;
  if (req.subscribed_topic_names) {
    std::set<std::string> subs(req.subscribed_topic_names->begin(),
                               req.subscribed_topic_names->end());
    if (subs != m.subscriptions) {
      m.subscriptions = std::move(subs);
      changed = true;
    }
  }
  refresh_share_group(g, changed);
  const bool assignment_changed = g.reconcile(m);
  m.session_deadline = SteadyClock::now() +
                       std::chrono::milliseconds(config_.share.session_timeout_ms);

  ShareGroupHeartbeatResponse r;
  r.member_id = m.id;
  r.member_epoch = m.epoch;
  r.heartbeat_interval_ms = config_.share.heartbeat_interval_ms;
  // As Kafka: on a join and whenever the assignment changed; also to a member still behind
  // (its earlier answer with the new assignment was lost).
  if (joining || assignment_changed || req.member_epoch != m.epoch) {
    auto& a = r.assignment.emplace();
    for (const auto& [topic_id, partitions] : m.assignment) {
      a.topic_partitions.push_back({topic_id, partitions, {}});
    }
  }
  return r;
}

protocol::ShareGroupDescribeResponse::DescribedGroup GroupCoordinator::share_describe(
    const std::string& group_id) {
  MIRRA_ASSERT_OWNER(owner_);
  protocol::ShareGroupDescribeResponse::DescribedGroup out;
  out.group_id = group_id;
  auto fail = [&](ErrorCode c, std::string message) {
    out.error_code = error_number(c);
    out.error_message = std::move(message);
    return out;
  };
  if (Status st = check_available(group_id); !st) return fail(st.code(), st.message());
  if (groups_.count(group_id) != 0)
    return fail(ErrorCode::GROUP_ID_NOT_FOUND, not_a_share_group(group_id));
  const ShareGroup* g = find_share(group_id);
  if (g == nullptr) {
    return fail(ErrorCode::GROUP_ID_NOT_FOUND, fmt::format("Group {} not found.", group_id));
  }
  out.group_state = std::string(share_state_name(g->state()));
  out.group_epoch = g->group_epoch;
  out.assignment_epoch = g->assignment_epoch;
  out.assignor_name = std::string(kSimpleAssignor);
  for (const auto& [id, m] : g->members) {
    auto& mo = out.members.emplace_back();
    mo.member_id = id;
    mo.rack_id = m.rack;
    mo.member_epoch = m.epoch;
    mo.client_id = m.client_id;
    mo.client_host = m.client_host;
    mo.subscribed_topic_names.assign(m.subscriptions.begin(), m.subscriptions.end());
    for (const auto& [topic_id, partitions] : m.assignment) {
      std::optional<std::string> name;
      if (share_lookup_.name_of) name = share_lookup_.name_of(topic_id);
      if (!name) continue;  // the topic was deleted since: no name to give, left out
      mo.assignment.topic_partitions.push_back({topic_id, *name, partitions, {}});
    }
  }
  return out;
}

void GroupCoordinator::share_sweep(SteadyClock::time_point now) {
  for (auto& [gid, g] : share_groups_) {
    std::vector<std::string> expired;
    for (const auto& [id, m] : g.members) {
      if (now >= m.session_deadline) expired.push_back(id);
    }
    for (const std::string& id : expired) {
      remove_share_member(g, id, "expired (no heartbeat within group.share.session.timeout.ms)");
    }
  }
}

void GroupCoordinator::list_share_groups(const std::set<std::string>& states, bool wanted,
                                         protocol::ListGroupsResponse& r) const {
  if (!wanted) return;
  for (const auto& [id, g] : share_groups_) {
    const std::string state(share_state_name(g.state()));
    if (!states.empty() && states.count(to_lower(state)) == 0) continue;
    auto& out = r.groups.emplace_back();
    out.group_id = id;
    out.protocol_type = std::string(kShareProtocolType);
    out.group_state = state;
    out.group_type = std::string(kShareProtocolType);
  }
}

protocol::DeleteGroupsResponse::DeletableGroupResult GroupCoordinator::delete_share_group(
    const std::string& group_id) {
  protocol::DeleteGroupsResponse::DeletableGroupResult out;
  out.group_id = group_id;
  auto it = share_groups_.find(group_id);
  MIRRA_ASSERT(it != share_groups_.end(), "share group {} is not known", group_id);
  if (!it->second.members.empty()) {
    out.error_code = error_number(ErrorCode::NON_EMPTY_GROUP);
    return out;
  }
  share_groups_.erase(it);
  MIRRA_LOG_INFO("share group {}: deleted", group_id);
  if (share_group_deleted_) share_group_deleted_(group_id);
  return out;
}

}  // namespace mirra::groups
