#include "groups/group.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "base/text.h"

namespace mirra::groups {
namespace {

constexpr std::pair<GroupState, std::string_view> kStateNames[] = {
    {GroupState::empty, "Empty"},
    {GroupState::preparing_rebalance, "PreparingRebalance"},
    {GroupState::completing_rebalance, "CompletingRebalance"},
    {GroupState::stable, "Stable"},
    {GroupState::dead, "Dead"},
};

bool offers(const std::vector<JoinProtocol>& protocols, std::string_view name) {
  return std::any_of(protocols.begin(), protocols.end(),
                     [&](const JoinProtocol& p) { return p.name == name; });
}

// Members ordered by when they joined.
std::vector<const Member*> by_join_order(const std::map<std::string, Member>& members) {
  std::vector<const Member*> out;
  for (const auto& [id, m] : members) out.push_back(&m);
  std::sort(out.begin(), out.end(),
            [](const Member* a, const Member* b) { return a->join_order < b->join_order; });
  return out;
}

}  // namespace

std::string_view state_name(GroupState s) {
  for (const auto& [state, name] : kStateNames) {
    if (state == s) return name;
  }
  return "Unknown";
}

std::optional<GroupState> parse_state(std::string_view name) {
  for (const auto& [state, n] : kStateNames) {
    if (iequals(n, name)) return state;
  }
  return std::nullopt;
}

const Bytes* Member::metadata_for(std::string_view protocol) const {
  for (const JoinProtocol& p : protocols) {
    if (p.name == protocol) return &p.metadata;
  }
  return nullptr;
}

ErrorCode Group::check_member(const std::string& member_id,
                              const std::optional<std::string>& instance_id) const {
  if (instance_id) {
    auto it = static_members.find(*instance_id);
    if (it == static_members.end()) return ErrorCode::UNKNOWN_MEMBER_ID;
    if (it->second != member_id) return ErrorCode::FENCED_INSTANCE_ID;
  }
  return has_member(member_id) ? ErrorCode::NONE : ErrorCode::UNKNOWN_MEMBER_ID;
}

bool Group::all_members_joined() const {
  if (!pending_members.empty()) return false;
  return std::all_of(members.begin(), members.end(),
                     [](const auto& kv) { return kv.second.awaiting_join != nullptr; });
}

bool Group::supports(std::string_view type, const std::vector<JoinProtocol>& protocols) const {
  if (type.empty() || protocols.empty()) return false;
  if (members.empty()) return true;
  if (protocol_type && *protocol_type != type) return false;
  // Some protocol of the newcomer must be offered by every current member.
  return std::any_of(protocols.begin(), protocols.end(), [&](const JoinProtocol& p) {
    return std::all_of(members.begin(), members.end(),
                       [&](const auto& kv) { return offers(kv.second.protocols, p.name); });
  });
}

std::string Group::select_protocol() const {
  const std::vector<const Member*> ordered = by_join_order(members);
  if (ordered.empty()) return {};
  std::vector<std::string> candidates;
  for (const JoinProtocol& p : ordered.front()->protocols) {
    const bool everyone = std::all_of(ordered.begin(), ordered.end(), [&](const Member* m) {
      return offers(m->protocols, p.name);
    });
    if (everyone) candidates.push_back(p.name);
  }
  // Each member votes for the candidate it lists first.
  std::map<std::string, int> votes;
  for (const Member* m : ordered) {
    for (const JoinProtocol& p : m->protocols) {
      if (std::find(candidates.begin(), candidates.end(), p.name) != candidates.end()) {
        ++votes[p.name];
        break;
      }
    }
  }
  std::string best;
  int best_votes = -1;
  for (const std::string& c : candidates) {  // in the oldest member's order: ties go to it
    if (votes[c] > best_votes) {
      best = c;
      best_votes = votes[c];
    }
  }
  return best;
}

int32_t Group::max_rebalance_timeout_ms() const {
  int32_t out = 0;
  for (const auto& [id, m] : members) out = std::max(out, m.rebalance_timeout_ms);
  return out;
}

std::optional<std::string> Group::pick_leader() const {
  if (leader && has_member(*leader)) return leader;
  const std::vector<const Member*> ordered = by_join_order(members);
  if (ordered.empty()) return std::nullopt;
  return ordered.front()->id;
}

GroupValue Group::to_record() const {
  GroupValue v;
  v.protocol_type = protocol_type.value_or("");
  v.generation = generation;
  v.protocol = protocol;
  v.leader = leader;
  v.current_state_timestamp = state_timestamp_ms;
  for (const Member* m : by_join_order(members)) {
    GroupMemberValue mv;
    mv.member_id = m->id;
    mv.group_instance_id = m->instance_id;
    mv.client_id = m->client_id;
    mv.client_host = m->client_host;
    mv.rebalance_timeout_ms = m->rebalance_timeout_ms;
    mv.session_timeout_ms = m->session_timeout_ms;
    if (protocol) {
      if (const Bytes* md = m->metadata_for(*protocol)) mv.subscription = *md;
    }
    mv.assignment = m->assignment;
    v.members.push_back(std::move(mv));
  }
  return v;
}

}  // namespace mirra::groups
