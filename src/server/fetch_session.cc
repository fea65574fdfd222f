#include "server/fetch_session.h"

#include <cstdint>

namespace mirra::server {

void FetchSessionCache::touch(int32_t id) {
  if (auto it = lru_pos_.find(id); it != lru_pos_.end()) lru_.erase(it->second);
  lru_.push_front(id);
  lru_pos_[id] = lru_.begin();
}

FetchSessionCache::Lookup FetchSessionCache::find_for_incremental(int32_t id, int32_t epoch) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return {ErrorCode::FETCH_SESSION_ID_NOT_FOUND, nullptr};
  if (it->second->next_epoch != epoch) return {ErrorCode::INVALID_FETCH_SESSION_EPOCH, nullptr};
  touch(id);
  return {ErrorCode::NONE, it->second};
}

std::shared_ptr<FetchSession> FetchSessionCache::create() {
  if (max_sessions_ == 0) return nullptr;
  if (sessions_.size() >= max_sessions_ && !lru_.empty()) remove(lru_.back());
  // Ids are positive and never 0 (which means "no session"); skip ids still in use.
  auto advance = [this] { next_id_ = next_id_ == INT32_MAX ? 1 : next_id_ + 1; };
  while (sessions_.count(next_id_) != 0) advance();
  const int32_t id = next_id_;
  advance();
  auto s = std::make_shared<FetchSession>();
  s->id = id;
  sessions_[id] = s;
  touch(id);
  return s;
}

std::shared_ptr<FetchSession> FetchSessionCache::peek(int32_t id) const {
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

void FetchSessionCache::remove(int32_t id) {
  sessions_.erase(id);
  if (auto it = lru_pos_.find(id); it != lru_pos_.end()) {
    lru_.erase(it->second);
    lru_pos_.erase(it);
  }
}

}  // namespace mirra::server
