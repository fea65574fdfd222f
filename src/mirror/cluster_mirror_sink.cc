// ClusterMirrorSink: the mirror's destination on this broker (mirror_sink.h). The log
// operations go to each partition's shard through PartitionManager::run().
#include "base/clock.h"
#include "base/log.h"
#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "cluster/topic_admin.h"
#include "mirror/mirror_admin.h"
#include "mirror/mirror_sink.h"
#include "mirror/mirror_state_store.h"
#include "mirror/mirror_throttle.h"

namespace mirra::mirror {

std::vector<SinkTopic> ClusterMirrorSink::topics(const std::string& mirror) const {
  std::vector<SinkTopic> out;
  for (const metadata::TopicInfo* t : mirror_topics(store_.image(), mirror)) {
    SinkTopic& topic = out.emplace_back(SinkTopic{t->name, t->id, {}});
    for (const metadata::PartitionInfo& p : t->partitions) topic.partitions.push_back(p.partition);
    if (auto c = t->configs.find(std::string(kMirrorThrottledReplicasKey)); c != t->configs.end())
      topic.throttled_replicas = c->second;
  }
  return out;
}

std::optional<Uuid> ClusterMirrorSink::topic_id(const std::string& topic) const {
  const metadata::TopicInfo* t = store_.image().topic(topic);
  if (t == nullptr) return std::nullopt;
  return t->id;
}

std::optional<SinkLog> ClusterMirrorSink::log(const client::TopicPartition& tp) const {
  auto p = partitions_.find(tp.topic, tp.partition);
  if (p == nullptr) return std::nullopt;
  return SinkLog{p->topic_id, p->offsets.log_start, p->offsets.log_end, p->leader_epoch,
                 p->online()};
}

namespace {

Result<std::shared_ptr<cluster::Partition>> find_open(const cluster::PartitionManager& partitions,
                                                      const client::TopicPartition& tp) {
  auto p = partitions.find(tp.topic, tp.partition);
  if (p == nullptr) {
    return Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, client::to_string(tp) + " is not open");
  }
  return p;
}

// The partition's change on its shard: UNKNOWN_TOPIC_OR_PARTITION when it is gone.
template <typename F>
asio::awaitable<Status> run_on(cluster::PartitionManager& partitions, cluster::LogWriter writer,
                               const client::TopicPartition& tp, F job) {
  auto p = find_open(partitions, tp);
  if (!p.ok()) co_return p.status();
  co_return co_await partitions.run_write(p.value(), writer, std::move(job));
}

}  // namespace

asio::awaitable<Status> ClusterMirrorSink::append(const client::TopicPartition& tp,
                                                  std::span<const uint8_t> batches,
                                                  std::shared_ptr<const void> keep_alive) {
  auto p = find_open(partitions_, tp);
  if (!p.ok()) co_return p.status();
  // The job keeps the bytes alive on the shard. Named, not a temporary inside co_await: g++ 12
  // destroys such temporaries twice, and this one owns a shared_ptr.
  auto job = [keep_alive, batches](storage::PartitionLog& log) {
    return log.append_mirrored(batches, now_ms());
  };
  auto appended = co_await partitions_.run_write(p.value(), writer_, job);
  if (!appended.ok()) co_return appended.status();
  p.value()->wake_waiters();  // long-polling consumers of the destination see the new data
  co_return Status::OK();
}

asio::awaitable<Status> ClusterMirrorSink::truncate_to(const client::TopicPartition& tp,
                                                       int64_t offset) {
  co_return co_await run_on(partitions_, writer_, tp, [offset](storage::PartitionLog& log) {
    return log.truncate_to(offset);
  });
}

asio::awaitable<Status> ClusterMirrorSink::restart_at(const client::TopicPartition& tp,
                                                      int64_t offset) {
  co_return co_await run_on(partitions_, writer_, tp, [offset](storage::PartitionLog& log) {
    return log.truncate_fully_and_start_at(offset);
  });
}

asio::awaitable<Status> ClusterMirrorSink::advance_log_start(const client::TopicPartition& tp,
                                                             int64_t offset) {
  co_return co_await run_on(partitions_, writer_, tp, [offset](storage::PartitionLog& log) {
    return log.advance_log_start(offset);
  });
}

asio::awaitable<Status> ClusterMirrorSink::raise_leader_epoch(const client::TopicPartition& tp,
                                                              int32_t epoch) {
  co_return co_await topics_.raise_leader_epoch(tp.topic, tp.partition, epoch);
}

asio::awaitable<Result<LogEpochs>> ClusterMirrorSink::leader_epochs(
    const client::TopicPartition& tp) {
  auto p = find_open(partitions_, tp);
  if (!p.ok()) co_return p.status();
  co_return co_await partitions_.run(p.value(), [](const storage::PartitionLog& log) {
    return Result<LogEpochs>(
        LogEpochs{log.leader_epochs().entries(), log.log_start_offset(), log.log_end_offset()});
  });
}

const MirrorStateValue* ClusterMirrorSink::state(const MirrorStateKey& key) const {
  return states_.get(key);
}

int32_t ClusterMirrorSink::state_epoch(const MirrorStateKey& key) const {
  return states_.epoch_of(key);
}

asio::awaitable<Status> ClusterMirrorSink::put_state(const MirrorStateKey& key,
                                                     MirrorStateValue value,
                                                     int32_t expected_epoch) {
  co_return co_await states_.put(key, std::move(value), expected_epoch);
}

}  // namespace mirra::mirror
