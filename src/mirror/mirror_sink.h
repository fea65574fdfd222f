// MirrorSink: what a mirror's data path needs of the destination (docs/mirroring-design.md §2,
// §3): the mirror's topics, each partition's log bounds, appends at the source's offsets,
// truncations, the leader epoch and the durable partition states. Behind a small interface so
// that MirrorRunner can be driven by a fake destination in unit tests
// (tests/mirror/fake_sink.h). The real one, ClusterMirrorSink (cluster_mirror_sink.cc), wraps
// the metadata store, the partition manager, topic administration and MirrorStateStore.
//
// Threading: the core thread. The real sink's log operations run on the partitions' shards and
// are awaited on the core thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/status.h"
#include "base/uuid.h"
#include "client/types.h"
#include "cluster/log_writer.h"
#include "mirror/mirror_state_records.h"
#include "storage/leader_epoch_cache.h"

namespace mirra::cluster {
class MetadataStore;
class PartitionManager;
class TopicAdmin;
}  // namespace mirra::cluster

namespace mirra::mirror {

class MirrorStateStore;

// A destination topic of a mirror.
struct SinkTopic {
  std::string name;
  Uuid id;
  std::vector<int32_t> partitions;
  // Its mirror.replication.throttled.replicas config (docs/quotas.md); empty: none.
  std::string throttled_replicas = {};
};

// A destination partition's log as of its last operation.
struct SinkLog {
  Uuid topic_id;
  int64_t log_start = 0;
  int64_t log_end = 0;
  int32_t leader_epoch = 0;
  bool online = true;  // false: the log could not be opened (its operations fail)
};

// A partition log's leader epochs as of one moment (MirrorSink::leader_epochs()).
struct LogEpochs {
  std::vector<storage::EpochEntry> entries;
  int64_t log_start = 0;
  int64_t log_end = 0;
};

class MirrorSink {
 public:
  virtual ~MirrorSink() = default;

  // The topics whose `mirror.name` names `mirror`.
  virtual std::vector<SinkTopic> topics(const std::string& mirror) const = 0;
  // The id of a destination topic (nullopt: no such topic).
  virtual std::optional<Uuid> topic_id(const std::string& topic) const = 0;
  // The partition's log, nullopt when the partition does not exist (removed meanwhile).
  virtual std::optional<SinkLog> log(const client::TopicPartition& tp) const = 0;

  // Appends complete batches at their own offsets, which are at or above the log end
  // (PartitionLog::append_mirrored). `keep_alive` owns the bytes until the append is done.
  virtual asio::awaitable<Status> append(const client::TopicPartition& tp,
                                         std::span<const uint8_t> batches,
                                         std::shared_ptr<const void> keep_alive) = 0;
  // Drops everything at and above `offset`.
  virtual asio::awaitable<Status> truncate_to(const client::TopicPartition& tp, int64_t offset) = 0;
  // Drops the whole log; it starts (and ends) at `offset` from now on.
  virtual asio::awaitable<Status> restart_at(const client::TopicPartition& tp, int64_t offset) = 0;
  // Moves the log start up to `offset` (at most the log end).
  virtual asio::awaitable<Status> advance_log_start(const client::TopicPartition& tp,
                                                    int64_t offset) = 0;
  // Raises the partition's leader epoch to `epoch` (durably; nothing if it is there already).
  virtual asio::awaitable<Status> raise_leader_epoch(const client::TopicPartition& tp,
                                                     int32_t epoch) = 0;
  // The log's leader-epoch cache: the epoch of each run of batches and where it starts, in
  // order (the last one is the epoch of the last batch), with the log end it goes with.
  virtual asio::awaitable<Result<LogEpochs>> leader_epochs(const client::TopicPartition& tp) = 0;

  // The durable partition states (MirrorStateStore's contract: a write names the state epoch
  // it expects and is adopted once it is durable).
  virtual const MirrorStateValue* state(const MirrorStateKey& key) const = 0;
  virtual int32_t state_epoch(const MirrorStateKey& key) const = 0;
  virtual asio::awaitable<Status> put_state(const MirrorStateKey& key, MirrorStateValue value,
                                            int32_t expected_epoch) = 0;
};

// The real destination: this broker's partitions and states.
class ClusterMirrorSink : public MirrorSink {
 public:
  // `writer`: the mirror's (PartitionManager::take_mirror_writer()), the one writer the
  // manager lets change a mirror topic's log.
  ClusterMirrorSink(cluster::MetadataStore& store, cluster::PartitionManager& partitions,
                    cluster::LogWriter writer, cluster::TopicAdmin& topics,
                    MirrorStateStore& states)
      : store_(store), partitions_(partitions), writer_(writer), topics_(topics), states_(states) {}

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
  cluster::MetadataStore& store_;
  cluster::PartitionManager& partitions_;
  const cluster::LogWriter writer_;
  cluster::TopicAdmin& topics_;
  MirrorStateStore& states_;
};

}  // namespace mirra::mirror
