#include "groups/offsets_topic.h"

#include <fmt/format.h>

#include "base/clock.h"
#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "cluster/topic_admin.h"
#include "protocol/records/batch_builder.h"
#include "protocol/records/record.h"
#include "storage/log_scan.h"

namespace mirra::groups {
namespace {

Bytes copy_of(records::Bytes b) { return Bytes(b.begin(), b.end()); }

// Shard thread: the partition's records, skipping control batches (none are written to this
// topic today; transactional offset commits will add markers).
Result<std::vector<OffsetsEntry>> read_entries(const storage::PartitionLog& log) {
  std::vector<OffsetsEntry> out;
  std::vector<uint8_t> scratch;
  Status st = storage::scan_batches(log, 0, [&](const records::BatchView& batch) {
    if (Status v = batch.validate(); !v) return v;
    if (batch.is_control()) return Status::OK();
    return records::for_each_record(batch, scratch, [&](const records::RecordView& rec) {
      if (!rec.key) return Status(ErrorCode::CORRUPT_MESSAGE, "a record without a key");
      OffsetsEntry e;
      e.key = copy_of(*rec.key);
      if (rec.value) e.value = copy_of(*rec.value);
      out.push_back(std::move(e));
      return Status::OK();
    });
  });
  if (!st) return st;
  return out;
}

}  // namespace

bool OffsetsTopic::exists() const { return metadata_.image().topic(kOffsetsTopic) != nullptr; }

int32_t OffsetsTopic::partition_count() const {
  const metadata::TopicInfo* t = metadata_.image().topic(kOffsetsTopic);
  return t != nullptr ? static_cast<int32_t>(t->partitions.size())
                      : config_.offsets_topic_partitions;
}

bool OffsetsTopic::partitions_open() const {
  const int32_t count = partition_count();
  for (int32_t p = 0; p < count; ++p) {
    if (partitions_.find(kOffsetsTopic, p) == nullptr) return false;
  }
  return true;
}

asio::awaitable<Status> OffsetsTopic::ensure_created() {
  if (exists()) {
    // Another group's request may have created the topic a moment ago: it is in the image
    // while that change is still opening its partitions.
    if (!partitions_open()) co_await metadata_.settled();
    co_return Status::OK();
  }
  cluster::NewTopic topic;
  topic.name = kOffsetsTopic;
  topic.partitions = config_.offsets_topic_partitions;
  topic.replication_factor = 1;
  // Kafka's settings for the topic: compacted (the latest record per key is the state),
  // uncompressed producer batches kept as written, smaller segments so compaction can run.
  topic.configs = {{"cleanup.policy", "compact"},
                   {"compression.type", "producer"},
                   {"segment.bytes", std::to_string(config_.offsets_topic_segment_bytes)}};
  auto created = co_await topics_.create_topic(std::move(topic), false);
  // A concurrent caller may have created it between the check and the create.
  if (!created.ok() && created.status().code() != ErrorCode::TOPIC_ALREADY_EXISTS) {
    co_return created.status();
  }
  co_return Status::OK();
}

asio::awaitable<Status> OffsetsTopic::append(const std::string& group,
                                             std::vector<OffsetsEntry> entries) {
  if (entries.empty()) co_return Status::OK();
  auto part = partitions_.find(kOffsetsTopic, partition_of(group));
  if (part == nullptr) {
    co_return Status(ErrorCode::COORDINATOR_NOT_AVAILABLE,
                     fmt::format("{} is not open", kOffsetsTopic));
  }
  const int64_t now = now_ms();
  std::vector<records::RecordInput> inputs;
  inputs.reserve(entries.size());
  for (const OffsetsEntry& e : entries) {
    records::RecordInput in;
    in.key = records::Bytes(e.key);
    if (e.value) in.value = records::Bytes(*e.value);
    in.timestamp = now;
    inputs.push_back(in);
  }
  auto batch = records::build_batch(records::BatchOptions{}, inputs);
  if (!batch.ok()) co_return batch.status();
  const int32_t epoch = part->leader_epoch;
  auto appended = co_await partitions_.run(part, [&](storage::PartitionLog& log) {
    return log.append_as_leader(batch.value(), epoch, storage::AppendOrigin::coordinator, now);
  });
  co_return appended.status();
}

asio::awaitable<Result<std::vector<OffsetsEntry>>> OffsetsTopic::read_all(int32_t partition) {
  auto part = partitions_.find(kOffsetsTopic, partition);
  if (part == nullptr) {
    co_return Status(ErrorCode::COORDINATOR_NOT_AVAILABLE,
                     fmt::format("{}-{} is not open", kOffsetsTopic, partition));
  }
  auto read = co_await partitions_.run(part, [](storage::PartitionLog& log) {
    return read_entries(log);
  });
  co_return read;
}

}  // namespace mirra::groups
