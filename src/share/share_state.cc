#include "share/share_state.h"

namespace mirra::share {
namespace {

// The first key of a group in key order: the smallest topic id and partition.
ShareKey group_begin(const std::string& group_id) {
  return ShareKey{group_id, Uuid::zero(), INT32_MIN};
}

}  // namespace

SharePartition* ShareState::find(const ShareKey& key) {
  auto it = partitions_.find(key);
  return it == partitions_.end() ? nullptr : &it->second;
}

SharePartition& ShareState::get_or_create(const ShareKey& key, int64_t start_offset) {
  auto it = partitions_.find(key);
  if (it == partitions_.end()) it = partitions_.emplace(key, SharePartition(start_offset)).first;
  return it->second;
}

SharePartition* ShareState::find_current(const ShareKey& key, int64_t now_ms) {
  SharePartition* p = find(key);
  if (p != nullptr && p->next_deadline() <= now_ms) p->expire_locks(now_ms, limits_);
  return p;
}

void ShareState::end_session(const ShareSession& session) {
  for (const SharePartitionId& id : session.partitions) {
    if (SharePartition* p = find({session.group_id, id.topic_id, id.partition})) {
      p->release_member(session.member_id, limits_);
    }
  }
}

void ShareState::connection_closed(uint64_t connection) {
  for (const ShareSession& s : sessions_.drop_connection(connection)) end_session(s);
}

void ShareState::member_gone(const std::string& group_id, const std::string& member_id) {
  sessions_.close(group_id, member_id);
  for (auto it = partitions_.lower_bound(group_begin(group_id));
       it != partitions_.end() && it->first.group_id == group_id; ++it) {
    it->second.release_member(member_id, limits_);
  }
}

std::vector<ShareKey> ShareState::group_deleted(const std::string& group_id) {
  auto first = partitions_.lower_bound(group_begin(group_id));
  auto last = first;
  std::vector<ShareKey> keys;
  while (last != partitions_.end() && last->first.group_id == group_id)
    keys.push_back((last++)->first);
  partitions_.erase(first, last);
  return keys;
}

void ShareState::restore(const ShareKey& key, SharePartition partition) {
  partitions_.insert_or_assign(key, std::move(partition));
}

void ShareState::reset(const ShareKey& key, int64_t start_offset) {
  get_or_create(key, start_offset).reset(start_offset);
}

std::vector<ShareKey> ShareState::keys_of(const std::string& group_id) const {
  std::vector<ShareKey> keys;
  for (auto it = partitions_.lower_bound(group_begin(group_id));
       it != partitions_.end() && it->first.group_id == group_id; ++it) {
    keys.push_back(it->first);
  }
  return keys;
}

std::vector<ShareKey> ShareState::erase_topic(const std::string& group_id, const Uuid& topic_id) {
  std::vector<ShareKey> keys;
  auto it = partitions_.lower_bound(ShareKey{group_id, topic_id, INT32_MIN});
  while (it != partitions_.end() && it->first.group_id == group_id &&
         it->first.topic_id == topic_id) {
    keys.push_back(it->first);
    it = partitions_.erase(it);
  }
  return keys;
}

std::vector<std::string> ShareState::group_ids() const {
  std::vector<std::string> ids;
  for (const auto& [key, p] : partitions_) {
    if (ids.empty() || ids.back() != key.group_id) ids.push_back(key.group_id);
  }
  return ids;
}

}  // namespace mirra::share
