// ShareState: every share partition of every share group on this broker, and their sessions
// (docs/share-groups-design.md). It joins the pure pieces: a SharePartition per
// (group, topic id, partition), created on a group's first fetch of the partition, and the
// ShareSessionCache; and it applies the events that give records back: a session ending (its
// member closed it, opened another, or its connection closed), a member leaving its group or
// being fenced, a group deleted.
//
// Pure logic: time is passed in, no I/O. Threading: not synchronised; the broker keeps it on
// the core thread beside the group coordinator.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "share/share_partition.h"
#include "share/share_sessions.h"

namespace mirra::share {

class ShareState {
 public:
  ShareState(const ShareLimits& limits, size_t max_sessions)
      : limits_(limits), sessions_(max_sessions) {}

  const ShareLimits& limits() const { return limits_; }
  ShareSessionCache& sessions() { return sessions_; }

  SharePartition* find(const ShareKey& key);
  // The partition's state, created at `start_offset` on first use.
  SharePartition& get_or_create(const ShareKey& key, int64_t start_offset);
  // The partition with its expired locks given back as of now_ms.
  SharePartition* find_current(const ShareKey& key, int64_t now_ms);

  // What the session's member holds on the session's partitions goes back.
  void end_session(const ShareSession& session);
  // Every session of the connection ends.
  void connection_closed(uint64_t connection);
  // The member left its group or was fenced: its session ends and everything it holds in the
  // group goes back.
  void member_gone(const std::string& group_id, const std::string& member_id);
  // The group is gone: its partitions' state too. Returns their keys (for the store's
  // tombstones).
  std::vector<ShareKey> group_deleted(const std::string& group_id);
  // A partition as the store had it at start-up.
  void restore(const ShareKey& key, SharePartition partition);
  // AlterShareGroupOffsets: the partition starts afresh at `start_offset` (created if new).
  void reset(const ShareKey& key, int64_t start_offset);
  // The group's partitions (of one topic: erase_topic also forgets them), in key order.
  std::vector<ShareKey> keys_of(const std::string& group_id) const;
  std::vector<ShareKey> erase_topic(const std::string& group_id, const Uuid& topic_id);
  // Every group holding state for some partition.
  std::vector<std::string> group_ids() const;

  size_t partition_count() const { return partitions_.size(); }

 private:
  ShareLimits limits_;
  ShareSessionCache sessions_;
  std::map<ShareKey, SharePartition> partitions_;  // by group id first: a group's are adjacent
};

}  // namespace mirra::share
