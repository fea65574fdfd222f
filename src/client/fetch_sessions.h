// FetchSessions: the client's side of KIP-227 fetch sessions, for a fetcher that asks the same
// brokers for the same partitions over and over (the mirror's fetch loop).
//
// Per broker it remembers the session the broker gave out (id, next epoch) and the partitions
// in it: the fetch offset, partition max bytes and leader epoch last sent, and the high
// watermark, last stable offset and log start the broker last reported. The first request to a
// broker is a full one with epoch 0 (the broker creates a session); later requests are
// incremental: they carry only new partitions and those whose offset, max bytes or leader epoch
// changed, name the partitions no longer asked for in forgotten_topics_data (by name before
// Fetch v13, by topic id from v13), and the broker answers only partitions with news. Client::
// fetch fills the partitions left out of an incremental answer from what is remembered here, so
// its callers still get one answer per partition they asked for.
//
// A top-level error, a lost connection or an answer the session cannot explain resets the
// broker's session: the next request is full again (FETCH_SESSION_ID_NOT_FOUND: without the
// old id, the broker no longer has it; otherwise closing the old id, as Kafka's clients do).
// A broker that answers a full request with session id 0 offers no session (librdkafka's mock,
// a full session cache): every request to it stays full, each asking again for a session.
// Fetch v4-v6 have no sessions: requests to such brokers are sessionless.
//
// Ownership and threading: caller-owned, one per fetcher and per Client (broker node ids are
// the keys), passed in FetchOptions::sessions; it must outlive the fetch calls using it. It is
// touched only on the Client's executor. While a request of one broker's session is in flight,
// an overlapping fetch call to that broker is sent sessionless rather than breaking the epoch
// sequence.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/error_codes.h"
#include "base/uuid.h"
#include "client/types.h"

namespace mirra::client {

// Fetch v7 brought sessions; v13 names topics by id.
inline constexpr int16_t kFetchSessionsFromVersion = 7;
inline constexpr int16_t kFetchTopicIdsFromVersion = 13;

// The epoch after `epoch` in a session: 1 follows INT32_MAX (0 is the full fetch's, -1 means no
// session), per KIP-227.
int32_t next_fetch_session_epoch(int32_t epoch);

// One partition as one request to one broker asks for it.
struct FetchTarget {
  TopicPartition tp;
  Uuid topic_id;  // zero without ids (the request is then at most v12)
  int64_t offset = 0;
  int32_t max_bytes = 0;
  int32_t current_leader_epoch = -1;
};

class FetchSessions {
 public:
  // One partition of a broker's session.
  struct Partition {
    Uuid topic_id;
    int64_t fetch_offset = -1;  // as last sent
    int32_t max_bytes = 0;
    int32_t current_leader_epoch = -1;
    bool answered = false;  // the broker has reported the offsets below in this session
    int64_t high_watermark = -1;
    int64_t last_stable_offset = -1;
    int64_t log_start_offset = -1;
  };
  struct Session {
    int32_t id = 0;        // 0: none (yet): the next request is full and asks for one
    int32_t epoch = 0;     // of the next request: 0 full, > 0 incremental
    int16_t version = -1;  // the Fetch version the session was made with
    std::map<TopicPartition, Partition> partitions;
    bool in_flight = false;  // a request of this session awaits its answer
  };
  // Requests sent with this object, by kind (for tests and metrics).
  struct Stats {
    uint64_t full = 0;         // epoch 0: creating a session
    uint64_t incremental = 0;  // epoch > 0
    uint64_t sessionless = 0;  // epoch -1: old broker or overlapping call
    uint64_t resets = 0;       // sessions given up after an error
  };

  FetchSessions() = default;
  FetchSessions(const FetchSessions&) = delete;
  FetchSessions& operator=(const FetchSessions&) = delete;

  // The session with a broker, or nullptr before the first request to it.
  const Session* session(int32_t node_id) const;
  const Stats& stats() const { return stats_; }
  // Forgets every broker's session (the brokers are not told; theirs expire by eviction).
  void clear() { sessions_.clear(); }

  // ---- the protocol steps, for Client::fetch ----

  // What one request carries: the session fields, which targets go in, what to forget.
  struct Request {
    int32_t node_id = -1;
    int16_t version = 0;
    int32_t session_id = 0;
    int32_t epoch = -1;        // -1: sessionless
    std::vector<size_t> send;  // indexes into the targets given to prepare()
    std::vector<std::pair<TopicPartition, Uuid>> forget;
    bool uses_session() const { return epoch >= 0; }
    bool incremental() const { return epoch > 0; }
  };
  // Plans the request of `targets` (no partition twice) to a broker at Fetch `version`.
  Request prepare(int32_t node_id, int16_t version, const std::vector<FetchTarget>& targets);
  // A sessionless request of every target (what fetch sends without a FetchSessions).
  static Request sessionless(int32_t node_id, int16_t version, size_t target_count);
  // The answer to `r` came without a top-level error: the session takes in what was sent.
  // False when the answer does not continue the session (an incremental answer with another
  // session id): the session is reset and the partitions left out have no answer.
  bool complete(const Request& r, const std::vector<FetchTarget>& targets,
                int32_t response_session_id);
  // `r` failed (transport, top-level `error`) or was abandoned: resets the broker's session.
  void fail(const Request& r, ErrorCode error);
  // A partition's answer in the response to a completed request.
  void record(int32_t node_id, const TopicPartition& tp, int64_t high_watermark,
              int64_t last_stable_offset, int64_t log_start_offset);
  // The partition as last answered in the broker's session, or nullptr if it never was.
  const Partition* answered(int32_t node_id, const TopicPartition& tp) const;

 private:
  void reset(Session& s, bool keep_id_to_close);

  std::map<int32_t, Session> sessions_;  // by broker node id
  Stats stats_;
};

}  // namespace mirra::client
