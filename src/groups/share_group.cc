#include "groups/share_group.h"

#include <algorithm>

#include "base/assert.h"

namespace mirra::groups {

std::string_view share_state_name(ShareGroupState s) {
  switch (s) {
    case ShareGroupState::empty:
      return "Empty";
    case ShareGroupState::stable:
      return "Stable";
    case ShareGroupState::dead:
      return "Dead";
  }
  return "Unknown";
}

std::map<std::string, ShareAssignment> simple_assign(
    const std::map<std::string, std::set<std::string>>& subscriptions, const ShareTopics& topics) {
  std::map<std::string, ShareAssignment> out;
  for (const auto& [member, subs] : subscriptions) out[member];  // members without topics too
  size_t start = 0;  // where the next topic's first partition goes
  for (const auto& [name, topic] : topics) {
    std::vector<const std::string*> members;  // map order: sorted by member id
    for (const auto& [member, subs] : subscriptions) {
      if (subs.count(name) != 0) members.push_back(&member);
    }
    if (members.empty() || topic.partitions <= 0) continue;
    const size_t m = members.size();
    const size_t p = static_cast<size_t>(topic.partitions);
    // Partitions outnumber members: partition i to member i mod m. Otherwise every member gets
    // one partition, member j partition j mod p: the partitions are shared.
    for (size_t i = 0; i < std::max(m, p); ++i) {
      const std::string& member = *members[(start + i) % m];
      out[member][topic.id].push_back(static_cast<int32_t>(i % p));
    }
    start = (start + p) % m;
  }
  for (auto& [member, assignment] : out) {
    for (auto& [id, partitions] : assignment) {
      std::sort(partitions.begin(), partitions.end());
      MIRRA_ASSERT(std::adjacent_find(partitions.begin(), partitions.end()) == partitions.end(),
                   "member {} got a partition twice", member);
    }
  }
  return out;
}

std::set<std::string> ShareGroup::subscribed_topics() const {
  std::set<std::string> out;
  for (const auto& [id, m] : members) out.insert(m.subscriptions.begin(), m.subscriptions.end());
  return out;
}

ErrorCode ShareGroup::check_epoch(const ShareMember& m, int32_t epoch) {
  if (epoch == m.epoch || epoch == m.previous_epoch) return ErrorCode::NONE;
  return ErrorCode::FENCED_MEMBER_EPOCH;
}

void ShareGroup::bump(ShareTopics now_topics) {
  topics = std::move(now_topics);
  ++group_epoch;
  std::map<std::string, std::set<std::string>> subscriptions;
  for (const auto& [mid, m] : members) subscriptions[mid] = m.subscriptions;
  target = simple_assign(subscriptions, topics);
  assignment_epoch = group_epoch;
  MIRRA_ASSERT(target.size() == members.size(), "share group {}: {} targets for {} members", id,
               target.size(), members.size());
}

bool ShareGroup::reconcile(ShareMember& m) const {
  if (m.epoch == assignment_epoch) return false;
  // A member is only ever behind: epochs move forward with the group.
  MIRRA_ASSERT(m.epoch < assignment_epoch, "share group {}: member {} at epoch {} ahead of {}", id,
               m.id, m.epoch, assignment_epoch);
  auto it = target.find(m.id);
  ShareAssignment next = it == target.end() ? ShareAssignment{} : it->second;
  m.previous_epoch = m.epoch;
  m.epoch = assignment_epoch;
  const bool changed = next != m.assignment;
  m.assignment = std::move(next);
  return changed;
}

}  // namespace mirra::groups
