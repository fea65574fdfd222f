// InternalTopic: a coordinator's access to its internal compacted topic (__consumer_offsets for
// groups, __transaction_state for transactions). It creates the topic the first time the
// coordinator needs it, as Kafka does, appends a coordinator's records to one partition, and
// reads a partition back when the coordinator loads.
//
// Threading: core thread; the log work runs on the partition's shard through the
// PartitionManager.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/status.h"
#include "protocol/wire.h"

namespace mirra::cluster {

class MetadataStore;
class PartitionManager;
class TopicAdmin;

struct InternalTopicSpec {
  std::string name;
  int32_t partitions = 50;
  std::map<std::string, std::string> configs;  // topic overrides it is created with
};

// One record: a key and its value, or a tombstone (no value).
struct InternalRecord {
  protocol::Bytes key;
  std::optional<protocol::Bytes> value;
};

// Who writes a batch: the broker itself (no producer id), or a transactional producer whose
// records count only once its transaction commits (TxnOffsetCommit).
struct InternalProducer {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  bool transactional = false;
};

// What a partition holds, in log order: records with the producer of their batch, and the
// transaction markers (control batches) that decide those of transactional producers.
struct InternalEntry {
  InternalRecord record;  // empty key for a marker
  InternalProducer producer;
  std::optional<bool> marker_commit;  // set for a marker: true COMMIT, false ABORT
};

class InternalTopic {
 public:
  InternalTopic(MetadataStore& metadata, PartitionManager& partitions, TopicAdmin& topics,
                InternalTopicSpec spec)
      : metadata_(metadata), partitions_(partitions), topics_(topics), spec_(std::move(spec)) {}

  const std::string& name() const { return spec_.name; }
  bool exists() const;
  // The topic's partition count once it exists, else the configured count it will get.
  int32_t partition_count() const;

  // Creates the topic unless it exists (concurrent callers share the outcome of one create),
  // and returns once its partitions are open.
  asio::awaitable<Status> ensure_created();
  // Appends `records` as one batch to `partition`.
  asio::awaitable<Status> append(int32_t partition, std::vector<InternalRecord> records,
                                 InternalProducer producer = {});
  // Everything `partition` holds, in log order.
  asio::awaitable<Result<std::vector<InternalEntry>>> read_all(int32_t partition);

 private:
  // Every partition of the existing topic has its handle in the partition manager.
  bool partitions_open() const;

  MetadataStore& metadata_;
  PartitionManager& partitions_;
  TopicAdmin& topics_;
  const InternalTopicSpec spec_;
};

}  // namespace mirra::cluster
