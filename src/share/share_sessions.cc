#include "share/share_sessions.h"

#include "base/assert.h"

namespace mirra::share {

ShareSessionCache::Opened ShareSessionCache::open(const std::string& group_id,
                                                  const std::string& member_id,
                                                  uint64_t connection) {
  Opened out;
  out.replaced = close(group_id, member_id);
  if (sessions_.size() >= max_sessions_) {
    out.error = ErrorCode::SHARE_SESSION_LIMIT_REACHED;
    return out;
  }
  ShareSession& s = sessions_[{group_id, member_id}];
  s = ShareSession{group_id, member_id, connection, 1, {}};
  out.session = &s;
  return out;
}

ErrorCode ShareSessionCache::continue_session(const std::string& group_id,
                                              const std::string& member_id, int32_t epoch,
                                              ShareSession*& session) {
  MIRRA_ASSERT(epoch > 0, "epoch {} does not continue a session", epoch);
  session = find(group_id, member_id);
  if (session == nullptr) return ErrorCode::SHARE_SESSION_NOT_FOUND;
  if (epoch != session->next_epoch) {
    session = nullptr;
    return ErrorCode::INVALID_SHARE_SESSION_EPOCH;
  }
  session->next_epoch = epoch == INT32_MAX ? 1 : epoch + 1;
  return ErrorCode::NONE;
}

ShareSession* ShareSessionCache::find(const std::string& group_id, const std::string& member_id) {
  auto it = sessions_.find({group_id, member_id});
  return it == sessions_.end() ? nullptr : &it->second;
}

std::optional<ShareSession> ShareSessionCache::close(const std::string& group_id,
                                                     const std::string& member_id) {
  auto it = sessions_.find({group_id, member_id});
  if (it == sessions_.end()) return std::nullopt;
  ShareSession s = std::move(it->second);
  sessions_.erase(it);
  return s;
}

std::vector<ShareSession> ShareSessionCache::drop_connection(uint64_t connection) {
  std::vector<ShareSession> out;
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (it->second.connection == connection) {
      out.push_back(std::move(it->second));
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

}  // namespace mirra::share
