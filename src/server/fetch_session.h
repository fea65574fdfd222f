// Fetch sessions (KIP-227): a consumer or mirror fetcher that fetches the same partitions over
// and over sends them once; later requests ("incremental") carry only what changed, and
// responses carry only partitions with news (records, a moved high watermark, LSO or log
// start, an error).
//
// Request (SessionId, SessionEpoch):
//   (0, -1)  full fetch without a session;      (0, 0)  full fetch, create a session;
//   (S, -1)  close S, full fetch without one;   (S, 0)  close S, full fetch, create one;
//   (S, N>0) incremental fetch in S: N must be S's next epoch (INVALID_FETCH_SESSION_EPOCH),
//            S must exist (FETCH_SESSION_ID_NOT_FOUND).
// When the cache is full, the least recently used session is evicted; a full fetch that
// cannot get a session is answered with SessionId 0, which clients handle by fetching fully.
//
// Threading: core thread only.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/error_codes.h"
#include "base/uuid.h"

namespace mirra::server {

struct SessionPartitionKey {
  Uuid topic_id;      // zero for requests before v13
  std::string topic;  // empty for v13+ requests
  int32_t partition = 0;
  auto operator<=>(const SessionPartitionKey&) const = default;
};

// What the client asked for and what it was last told about one partition.
struct SessionPartition {
  int64_t fetch_offset = 0;
  int64_t log_start_offset = -1;  // the follower's log start (ignored for consumers)
  int32_t max_bytes = 0;
  int32_t current_leader_epoch = -1;
  int32_t last_fetched_epoch = -1;
  // Sent in the last response: a partition is re-sent only when one of these changes or it has
  // records or an error.
  int64_t sent_high_watermark = -1;
  int64_t sent_last_stable = -1;
  int64_t sent_log_start = -1;
  bool ever_sent = false;
};

struct FetchSession {
  int32_t id = 0;
  int32_t next_epoch = 1;
  std::map<SessionPartitionKey, SessionPartition> partitions;
};

class FetchSessionCache {
 public:
  explicit FetchSessionCache(size_t max_sessions) : max_sessions_(max_sessions) {}

  // The session an incremental request continues, or the error to answer with.
  struct Lookup {
    ErrorCode error = ErrorCode::NONE;
    std::shared_ptr<FetchSession> session;
  };
  Lookup find_for_incremental(int32_t id, int32_t epoch);
  // Creates a session for a full fetch (SessionEpoch 0); nullptr when sessions are disabled.
  std::shared_ptr<FetchSession> create();
  void remove(int32_t id);
  size_t size() const { return sessions_.size(); }
  // The session with this id, or nullptr; not a use (the LRU order stays). For tests.
  std::shared_ptr<FetchSession> peek(int32_t id) const;

 private:
  void touch(int32_t id);

  size_t max_sessions_;
  int32_t next_id_ = 1;
  // shared_ptr: a fetch waiting for data keeps its session alive even if it is evicted.
  std::unordered_map<int32_t, std::shared_ptr<FetchSession>> sessions_;
  std::list<int32_t> lru_;  // most recently used first
  std::unordered_map<int32_t, std::list<int32_t>::iterator> lru_pos_;
};

}  // namespace mirra::server
