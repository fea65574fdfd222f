#include "cluster/internal_topic.h"

#include <fmt/format.h>

#include "base/clock.h"
#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "cluster/topic_admin.h"
#include "protocol/records/batch_builder.h"
#include "protocol/records/record.h"
#include "storage/log_scan.h"

namespace mirra::cluster {
namespace {

protocol::Bytes copy_of(records::Bytes b) { return protocol::Bytes(b.begin(), b.end()); }

// A marker's entry, or nullopt for other control records (none are written to these topics).
Result<std::optional<InternalEntry>> marker_entry(const records::BatchView& batch,
                                                  const records::RecordView& rec) {
  auto control = records::parse_control_record(rec);
  if (!control.ok()) return control.status();
  const auto type = static_cast<records::ControlType>(control->type);
  if (type != records::ControlType::ABORT && type != records::ControlType::COMMIT) {
    return std::optional<InternalEntry>();
  }
  InternalEntry e;
  e.producer = {batch.producer_id(), batch.producer_epoch(), true};
  e.marker_commit = type == records::ControlType::COMMIT;
  return std::optional<InternalEntry>(std::move(e));
}

// Shard thread: the partition's records and markers in log order.
Result<std::vector<InternalEntry>> read_entries(const storage::PartitionLog& log) {
  std::vector<InternalEntry> out;
  std::vector<uint8_t> scratch;
  Status st = storage::scan_batches(log, 0, [&](const records::BatchView& batch) {
    if (Status v = batch.validate(); !v) return v;
    const InternalProducer producer{batch.producer_id(), batch.producer_epoch(),
                                    batch.is_transactional()};
    return records::for_each_record(batch, scratch, [&](const records::RecordView& rec) {
      if (batch.is_control()) {
        auto marker = marker_entry(batch, rec);
        if (!marker.ok()) return marker.status();
        if (marker.value()) out.push_back(std::move(*marker.value()));
        return Status::OK();
      }
      if (!rec.key) return Status(ErrorCode::CORRUPT_MESSAGE, "a record without a key");
      InternalEntry e;
      e.record.key = copy_of(*rec.key);
      if (rec.value) e.record.value = copy_of(*rec.value);
      e.producer = producer;
      out.push_back(std::move(e));
      return Status::OK();
    });
  });
  if (!st) return st;
  return out;
}

}  // namespace

bool InternalTopic::exists() const { return metadata_.image().topic(spec_.name) != nullptr; }

int32_t InternalTopic::partition_count() const {
  const metadata::TopicInfo* t = metadata_.image().topic(spec_.name);
  return t != nullptr ? static_cast<int32_t>(t->partitions.size()) : spec_.partitions;
}

bool InternalTopic::partitions_open() const {
  const int32_t count = partition_count();
  for (int32_t p = 0; p < count; ++p) {
    if (partitions_.find(spec_.name, p) == nullptr) return false;
  }
  return true;
}

asio::awaitable<Status> InternalTopic::ensure_created() {
  if (exists()) {
    // Another request may have created the topic a moment ago: it is in the image while that
    // change is still opening its partitions.
    if (!partitions_open()) co_await metadata_.settled();
    co_return Status::OK();
  }
  NewTopic topic;
  topic.name = spec_.name;
  topic.partitions = spec_.partitions;
  topic.replication_factor = 1;
  topic.configs = spec_.configs;
  auto created = co_await topics_.create_topic(std::move(topic), false);
  // A concurrent caller may have created it between the check and the create.
  if (!created.ok() && created.status().code() != ErrorCode::TOPIC_ALREADY_EXISTS) {
    co_return created.status();
  }
  co_return Status::OK();
}

asio::awaitable<Status> InternalTopic::append(int32_t partition,
                                              std::vector<InternalRecord> records,
                                              InternalProducer producer) {
  if (records.empty()) co_return Status::OK();
  auto part = partitions_.find(spec_.name, partition);
  if (part == nullptr) {
    co_return Status(ErrorCode::COORDINATOR_NOT_AVAILABLE,
                     fmt::format("{}-{} is not open", spec_.name, partition));
  }
  const int64_t now = now_ms();
  std::vector<records::RecordInput> inputs;
  inputs.reserve(records.size());
  for (const InternalRecord& r : records) {
    records::RecordInput in;
    in.key = records::Bytes(r.key);
    if (r.value) in.value = records::Bytes(*r.value);
    in.timestamp = now;
    inputs.push_back(in);
  }
  records::BatchOptions options;
  options.producer_id = producer.producer_id;
  options.producer_epoch = producer.producer_epoch;
  options.transactional = producer.transactional;
  // The broker's own batches carry no sequence; a producer's get sequences it never checks
  // (storage checks only client batches), so any non-negative start is fine.
  if (producer.producer_id >= 0) options.base_sequence = 0;
  auto batch = records::build_batch(options, inputs);
  if (!batch.ok()) co_return batch.status();
  const int32_t epoch = part->leader_epoch;
  auto appended = co_await partitions_.run_write(
      part, LogWriter::coordinator(), [&](storage::PartitionLog& log) {
        return log.append_as_leader(batch.value(), epoch, storage::AppendOrigin::coordinator, now);
      });
  co_return appended.status();
}

asio::awaitable<Result<std::vector<InternalEntry>>> InternalTopic::read_all(int32_t partition) {
  auto part = partitions_.find(spec_.name, partition);
  if (part == nullptr) {
    co_return Status(ErrorCode::COORDINATOR_NOT_AVAILABLE,
                     fmt::format("{}-{} is not open", spec_.name, partition));
  }
  auto read = co_await partitions_.run(
      part, [](const storage::PartitionLog& log) { return read_entries(log); });
  co_return read;
}

}  // namespace mirra::cluster
