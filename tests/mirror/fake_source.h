// FakeSourceCluster: a source cluster in memory for MirrorRunner's unit tests. It holds record
// batches per partition with a leader each, and answers the runner's connections
// (mirror_source.h) as a Kafka cluster would: fetches at an offset with a size limit,
// OFFSET_OUT_OF_RANGE outside the log, NOT_LEADER_OR_FOLLOWER to a broker that no longer leads
// (the connection then refreshes its leaders, as Mirra's client does), long polls that end when
// data arrives, ListOffsets, Metadata with leader epochs, fetches fenced by a stale current
// leader epoch, and OffsetForLeaderEpoch. Tests script failures (a partition's next answers, a
// whole fetch), hold answers to keep them in flight, change leaders, log starts and tails, and
// read back every fetch the runner sent.
//
// Threading: the test's io_context, one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/asio.h"
#include "base/uuid.h"
#include "client/types.h"
#include "mirror/mirror_source.h"
#include "protocol/wire.h"

namespace mirra::mirror::test {

// One fetch request as the fake received it.
struct SentFetch {
  std::string client_id;
  int32_t broker = -1;  // the leader the connection routed it to
  std::vector<client::FetchPosition> positions;
  std::chrono::steady_clock::time_point at;
};

class FakeSourceCluster {
 public:
  explicit FakeSourceCluster(asio::any_io_executor ex);

  void add_topic(const std::string& name, Uuid id, int32_t partitions, int32_t leader = 1);
  void delete_topic(const std::string& name);
  // Appends a batch of `records` records (non-idempotent: the mirror copies it byte for byte)
  // at the log end; returns its base offset.
  int64_t produce(const client::TopicPartition& tp, int32_t records, int32_t leader_epoch = 0);
  // Flips a bit inside the records of the batch at `base_offset` (its CRC no longer matches).
  void corrupt(const client::TopicPartition& tp, int64_t base_offset);
  void set_leader(const client::TopicPartition& tp, int32_t leader);
  // DeleteRecords: the log starts at `offset` (batches wholly below it are gone).
  void delete_records(const client::TopicPartition& tp, int64_t offset);
  // An unclean restart that lost the tail: the log ends at `offset` (a batch boundary).
  void lose_tail(const client::TopicPartition& tp, int64_t offset);
  // The partition's leader epoch as Metadata shows it and fetches are fenced by.
  void set_leader_epoch(const client::TopicPartition& tp, int32_t epoch);
  // OffsetForLeaderEpoch answers UNSUPPORTED_VERSION (a source without the API).
  void refuse_offset_for_leader_epoch() { epochs_unsupported_ = true; }
  size_t epoch_queries() const { return epoch_queries_; }

  // The next `count` answers for the partition carry `error` instead of records.
  void fail_partition(const client::TopicPartition& tp, Status error, int count = 1);
  // The next fetch request fails as a whole.
  void fail_next_fetch(Status error);
  // While held, fetch answers wait (the requests are recorded); release() lets them go.
  void hold_fetches();
  // Fetches from the `n`-th on (0-based, counting every fetch so far) are held.
  void hold_fetches_from(size_t n) { hold_from_ = n; }
  void release_fetches();
  size_t held_fetches() const { return held_; }

  const std::vector<SentFetch>& fetches() const { return fetches_; }
  // The batches of a partition: base offset -> bytes.
  const std::map<int64_t, protocol::Bytes>& batches(const client::TopicPartition& tp) const;
  int64_t log_start(const client::TopicPartition& tp) const;
  int64_t log_end(const client::TopicPartition& tp) const;

  // A MirrorSource whose connections read this cluster (which must outlive them).
  std::unique_ptr<MirrorSource> source();

 private:
  friend class FakeConnection;
  struct Partition {
    int32_t leader = 1;
    int32_t leader_epoch = 0;
    int64_t log_start = 0;
    int64_t log_end = 0;
    std::map<int64_t, protocol::Bytes> batches;
    std::deque<Status> errors;
  };
  struct Topic {
    Uuid id;
    std::vector<Partition> partitions;
  };

  Partition& partition(const client::TopicPartition& tp);
  const Partition* find(const client::TopicPartition& tp) const;
  Partition* find(const client::TopicPartition& tp) {
    return const_cast<Partition*>(std::as_const(*this).find(tp));
  }
  client::ClusterMetadata metadata(const std::vector<std::string>& topics) const;
  // The answer for one position routed to `broker`; `leader_moved` is set on NOT_LEADER.
  client::FetchedPartition answer(const client::FetchPosition& pos, int32_t broker,
                                  bool& leader_moved);
  bool has_data(const std::vector<client::FetchPosition>& positions) const;
  void notify();

  asio::any_io_executor ex_;
  std::map<std::string, Topic> topics_;
  std::deque<Status> fetch_errors_;
  std::vector<SentFetch> fetches_;
  bool epochs_unsupported_ = false;
  size_t epoch_queries_ = 0;  // partitions asked by OffsetForLeaderEpoch so far
  bool hold_ = false;
  size_t hold_from_ = SIZE_MAX;
  size_t held_ = 0;
  std::set<asio::steady_timer*> waiters_;  // fetches waiting: cancelled on any change
};

}  // namespace mirra::mirror::test
