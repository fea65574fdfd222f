// FakeSink: a destination in memory for MirrorRunner's unit tests (mirror_sink.h). Its logs
// keep batches by base offset and check what PartitionLog::append_mirrored checks (CRC and
// counts of each batch, nothing below the log end); its states keep MirrorStateStore's epoch
// fencing. Tests hold appends in flight, make the next append of a partition fail, change
// states behind the runner's back (pause, failover) and read back every append.
//
// Threading: the test's io_context, one thread.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/asio.h"
#include "mirror/mirror_sink.h"
#include "protocol/wire.h"

namespace mirra::mirror::test {

struct FakeLog {
  SinkLog log;
  std::map<int64_t, protocol::Bytes> batches;  // base offset -> bytes
};

class FakeSink : public MirrorSink {
 public:
  explicit FakeSink(asio::any_io_executor ex) : ex_(ex) {}

  // A topic of `mirror` whose partitions start empty and PREPARING.
  void add_topic(const std::string& mirror, const std::string& name, Uuid id, int32_t partitions);
  FakeLog& partition(const client::TopicPartition& tp) { return logs_.at(tp); }
  // The topic's mirror.replication.throttled.replicas.
  void set_throttled_replicas(const std::string& topic, std::string value) {
    topics_.at(topic).throttled_replicas = std::move(value);
  }
  // The state of a partition as a test sets it (pause, failover, ...), fenced like any write.
  void set_state(const client::TopicPartition& tp, MirrorState state);
  std::optional<MirrorState> state_of(const client::TopicPartition& tp) const;
  const MirrorStateValue* state_value(const client::TopicPartition& tp) const;

  // The next append of the partition fails with `error`.
  void fail_next_append(const client::TopicPartition& tp, Status error);
  // While held, appends wait (counted in held_appends()); release_appends() lets them go.
  void hold_appends() { hold_ = true; }
  void release_appends();
  size_t held_appends() const { return held_; }
  // Called inside raise_leader_epoch(), while the runner awaits it (a failover arriving then).
  std::function<void()> on_raise_leader_epoch;
  // Every append that reached a log: the partition and the offset it started at.
  const std::vector<std::pair<client::TopicPartition, int64_t>>& appends() const {
    return appends_;
  }

  std::vector<SinkTopic> topics(const std::string& mirror) const override;
  std::optional<Uuid> topic_id(const std::string& topic) const override;
  std::optional<SinkLog> log(const client::TopicPartition& tp) const override;
  asio::awaitable<Status> append(const client::TopicPartition& tp, std::span<const uint8_t> batches,
                                 std::shared_ptr<const void> keep_alive) override;
  asio::awaitable<Status> truncate_to(const client::TopicPartition& tp, int64_t offset) override;
  asio::awaitable<Status> restart_at(const client::TopicPartition& tp, int64_t offset) override;
  asio::awaitable<Status> advance_log_start(const client::TopicPartition& tp,
                                            int64_t offset) override;
  asio::awaitable<Status> raise_leader_epoch(const client::TopicPartition& tp,
                                             int32_t epoch) override;
  asio::awaitable<Result<LogEpochs>> leader_epochs(const client::TopicPartition& tp) override;
  const MirrorStateValue* state(const MirrorStateKey& key) const override;
  int32_t state_epoch(const MirrorStateKey& key) const override;
  asio::awaitable<Status> put_state(const MirrorStateKey& key, MirrorStateValue value,
                                    int32_t expected_epoch) override;

 private:
  struct Topic {
    std::string mirror;
    Uuid id;
    int32_t partitions = 0;
    std::string throttled_replicas = {};
  };
  MirrorStateKey key_of(const client::TopicPartition& tp) const;

  asio::any_io_executor ex_;
  std::map<std::string, Topic> topics_;
  std::map<client::TopicPartition, FakeLog> logs_;
  std::map<MirrorStateKey, MirrorStateValue> states_;
  std::map<client::TopicPartition, std::deque<Status>> append_errors_;
  std::vector<std::pair<client::TopicPartition, int64_t>> appends_;
  bool hold_ = false;
  size_t held_ = 0;
  std::set<asio::steady_timer*> waiters_;
};

}  // namespace mirra::mirror::test
