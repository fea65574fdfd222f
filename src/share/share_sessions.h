// Share sessions (docs/share-groups-design.md): a share consumer names the partitions it reads
// from this broker once, in a session opened by its first ShareFetch, and later requests carry
// only what changed. A session belongs to one member of one group on one connection.
//
// Request epochs (ShareSessionEpoch):
//   0      opens a session with the request's partitions; an open session of the same member
//          is replaced (the client lost it: it reconnected, or its close did not arrive);
//   N > 0  continues the member's session: N must be its next epoch (1, 2, ..., wrapping
//          from INT32_MAX to 1), else INVALID_SHARE_SESSION_EPOCH; no session:
//          SHARE_SESSION_NOT_FOUND;
//   -1     closes it after this request's acknowledgements (ShareAcknowledge, ShareFetch).
// At `max_sessions` (group.share.max.share.sessions) an open is refused with
// SHARE_SESSION_LIMIT_REACHED. A session dies with its connection: what its member still
// holds on the session's partitions is released by the caller (close and drop return the
// session for that).
//
// Pure bookkeeping: no I/O, no time. Threading: not synchronised; the broker keeps it on the
// core thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/error_codes.h"
#include "base/uuid.h"

namespace mirra::share {

struct ShareKey {
  std::string group_id;
  Uuid topic_id;
  int32_t partition = 0;
  auto operator<=>(const ShareKey&) const = default;
};

struct SharePartitionId {
  Uuid topic_id;
  int32_t partition = 0;
  auto operator<=>(const SharePartitionId&) const = default;
};

struct ShareSession {
  std::string group_id;
  std::string member_id;
  uint64_t connection = 0;
  int32_t next_epoch = 1;
  std::set<SharePartitionId> partitions;
};

class ShareSessionCache {
 public:
  explicit ShareSessionCache(size_t max_sessions) : max_sessions_(max_sessions) {}

  struct Opened {
    ErrorCode error = ErrorCode::NONE;
    ShareSession* session = nullptr;       // when error is NONE
    std::optional<ShareSession> replaced;  // the member's earlier session, if any
  };
  // Epoch 0: a new session for the member on `connection`.
  Opened open(const std::string& group_id, const std::string& member_id, uint64_t connection);
  // Epoch > 0: the member's session, its epoch moved on; or the error.
  ErrorCode continue_session(const std::string& group_id, const std::string& member_id,
                             int32_t epoch, ShareSession*& session);
  // Epoch -1: the member's session, which must exist (SHARE_SESSION_NOT_FOUND), without
  // changing it; the caller applies the request's acknowledgements, then close()s it.
  ShareSession* find(const std::string& group_id, const std::string& member_id);
  // Removes the member's session and returns it (nullopt when there was none).
  std::optional<ShareSession> close(const std::string& group_id, const std::string& member_id);
  // Removes every session opened on `connection` (it closed) and returns them.
  std::vector<ShareSession> drop_connection(uint64_t connection);

  size_t size() const { return sessions_.size(); }

 private:
  using Key = std::pair<std::string, std::string>;  // group id, member id
  size_t max_sessions_;
  std::map<Key, ShareSession> sessions_;
};

}  // namespace mirra::share
