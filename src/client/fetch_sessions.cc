#include "client/fetch_sessions.h"

#include <cstdint>
#include <set>

namespace mirra::client {

int32_t next_fetch_session_epoch(int32_t epoch) {
  if (epoch < 0) return epoch;  // sessionless stays sessionless
  return epoch == INT32_MAX ? 1 : epoch + 1;
}

const FetchSessions::Session* FetchSessions::session(int32_t node_id) const {
  auto it = sessions_.find(node_id);
  return it == sessions_.end() ? nullptr : &it->second;
}

FetchSessions::Request FetchSessions::sessionless(int32_t node_id, int16_t version,
                                                  size_t target_count) {
  Request r;
  r.node_id = node_id;
  r.version = version;
  r.send.reserve(target_count);
  for (size_t i = 0; i < target_count; ++i) r.send.push_back(i);
  return r;
}

namespace {

bool changed(const FetchSessions::Partition& p, const FetchTarget& t, bool by_id) {
  return p.fetch_offset != t.offset || p.max_bytes != t.max_bytes ||
         p.current_leader_epoch != t.current_leader_epoch || (by_id && p.topic_id != t.topic_id);
}

}  // namespace

FetchSessions::Request FetchSessions::prepare(int32_t node_id, int16_t version,
                                              const std::vector<FetchTarget>& targets) {
  Session& s = sessions_[node_id];
  if (version < kFetchSessionsFromVersion || s.in_flight) {
    ++stats_.sessionless;
    return sessionless(node_id, version, targets.size());
  }
  // Partitions are keyed by name before v13 and by id from v13: a session made at one cannot
  // go on at the other.
  if (s.id != 0 && s.version != version) reset(s, /*keep_id_to_close=*/true);
  Request r;
  r.node_id = node_id;
  r.version = version;
  r.session_id = s.id;
  r.epoch = s.epoch;
  s.in_flight = true;
  if (!r.incremental()) {
    ++stats_.full;
    r.send = sessionless(node_id, version, targets.size()).send;
    return r;
  }
  ++stats_.incremental;
  const bool by_id = version >= kFetchTopicIdsFromVersion;
  std::set<TopicPartition> wanted;
  for (size_t i = 0; i < targets.size(); ++i) {
    const FetchTarget& t = targets[i];
    wanted.insert(t.tp);
    auto it = s.partitions.find(t.tp);
    if (it == s.partitions.end() || changed(it->second, t, by_id)) r.send.push_back(i);
    // A recreated topic (new id) is a different partition to the broker: drop the old one.
    if (it != s.partitions.end() && by_id && it->second.topic_id != t.topic_id) {
      r.forget.emplace_back(t.tp, it->second.topic_id);
    }
  }
  for (const auto& [tp, p] : s.partitions) {
    if (wanted.count(tp) == 0) r.forget.emplace_back(tp, p.topic_id);
  }
  return r;
}

bool FetchSessions::complete(const Request& r, const std::vector<FetchTarget>& targets,
                             int32_t response_session_id) {
  if (!r.uses_session()) return true;
  Session& s = sessions_[r.node_id];
  s.in_flight = false;
  if (r.incremental() && response_session_id != r.session_id) {
    reset(s, /*keep_id_to_close=*/false);
    return false;
  }
  if (!r.incremental()) {
    s.partitions.clear();
    s.version = r.version;
    if (response_session_id == 0) {  // no session offered: stay full
      s.id = 0;
      s.epoch = 0;
      return true;
    }
    s.id = response_session_id;
    s.epoch = 1;
  } else {
    s.epoch = next_fetch_session_epoch(s.epoch);
    for (const auto& [tp, id] : r.forget) {
      auto it = s.partitions.find(tp);
      if (it != s.partitions.end() && it->second.topic_id == id) s.partitions.erase(it);
    }
  }
  const bool by_id = r.version >= kFetchTopicIdsFromVersion;
  for (size_t i : r.send) {
    const FetchTarget& t = targets[i];
    Partition& p = s.partitions[t.tp];
    if (by_id && p.topic_id != t.topic_id) p = Partition{};  // new, or its topic was recreated
    p.topic_id = t.topic_id;
    p.fetch_offset = t.offset;
    p.max_bytes = t.max_bytes;
    p.current_leader_epoch = t.current_leader_epoch;
  }
  return true;
}

void FetchSessions::fail(const Request& r, ErrorCode error) {
  if (!r.uses_session()) return;
  Session& s = sessions_[r.node_id];
  s.in_flight = false;
  // The broker no longer knows the id (evicted, restarted): never send it again, another
  // fetcher may get it next.
  reset(s, /*keep_id_to_close=*/error != ErrorCode::FETCH_SESSION_ID_NOT_FOUND);
}

void FetchSessions::reset(Session& s, bool keep_id_to_close) {
  if (s.id != 0) ++stats_.resets;
  if (!keep_id_to_close) s.id = 0;
  s.epoch = 0;
  s.partitions.clear();
}

void FetchSessions::record(int32_t node_id, const TopicPartition& tp, int64_t high_watermark,
                           int64_t last_stable_offset, int64_t log_start_offset) {
  auto s = sessions_.find(node_id);
  if (s == sessions_.end()) return;
  auto it = s->second.partitions.find(tp);
  if (it == s->second.partitions.end()) return;
  Partition& p = it->second;
  p.answered = true;
  p.high_watermark = high_watermark;
  p.last_stable_offset = last_stable_offset;
  p.log_start_offset = log_start_offset;
}

const FetchSessions::Partition* FetchSessions::answered(int32_t node_id,
                                                        const TopicPartition& tp) const {
  const Session* s = session(node_id);
  if (s == nullptr) return nullptr;
  auto it = s->partitions.find(tp);
  return it == s->partitions.end() || !it->second.answered ? nullptr : &it->second;
}

}  // namespace mirra::client
