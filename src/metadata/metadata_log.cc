#include "metadata/metadata_log.h"

#include <algorithm>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "base/clock.h"
#include "base/log.h"
#include "metadata/snapshot.h"
#include "protocol/records/batch_builder.h"
#include "protocol/records/record.h"
#include "storage/durable_file.h"
#include "storage/log_scan.h"
#include "storage/partition_log.h"
#include "storage/segment.h"

namespace mirra::metadata {

constexpr std::string_view kMirraLogComponent = "metadata";

namespace {

namespace fs = std::filesystem;
using storage::PartitionLog;

// Bytes read per step while replaying (at least one whole batch is always read).

storage::LogConfig log_config(const MetadataLogOptions& options) {
  storage::LogConfig c;
  c.segment_bytes = options.segment_bytes;
  c.max_message_bytes = options.max_batch_bytes;
  // Only snapshots delete records: no time or size retention, no idle rolls.
  c.retention_ms = -1;
  c.retention_bytes = -1;
  c.segment_ms = storage::LogConfig::kNoLimit;
  // Covered segments go at once (nobody opens metadata segments by name).
  c.file_delete_delay_ms = 0;
  return c;
}

bool is_empty(const MetadataImage& image) {
  return image.last_offset() == -1 && image.topics().empty() && image.broker_configs().empty() &&
         image.node_configs().empty();
}

Status corrupt(std::string message) {
  return Status(ErrorCode::CORRUPT_MESSAGE, std::move(message));
}

// Snapshot end offsets in the directory, newest first.
Result<std::vector<int64_t>> list_snapshots(const fs::path& dir) {
  std::vector<int64_t> ends;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (auto end = parse_snapshot_file_name(entry.path().filename().string())) ends.push_back(*end);
  }
  if (ec) return storage::durable::io_error("list", dir, ec.value());
  std::sort(ends.rbegin(), ends.rend());
  return ends;
}

struct Loaded {
  MetadataImage image;
  int64_t end = 0;  // replay starts here
};

// The newest snapshot that reads back whole and from whose end the log still holds every
// record; none at all is fine only while the log still starts at 0.
Result<Loaded> load_newest_snapshot(const fs::path& dir, const PartitionLog& log) {
  auto ends = list_snapshots(dir);
  if (!ends) return ends.status();
  for (int64_t end : *ends) {
    const fs::path path = dir / snapshot_file_name(end);
    if (end < log.log_start_offset()) {
      MIRRA_LOG_WARN("{}: skipped: the log starts at {}, after the snapshot's end", path.string(),
                     log.log_start_offset());
      continue;
    }
    auto bytes = storage::durable::read_file(path);
    if (!bytes) return bytes.status();
    if (!bytes->has_value()) continue;  // removed meanwhile
    auto image = decode_snapshot(**bytes, end);
    if (!image) {
      MIRRA_LOG_WARN("{}: ignored, falling back to an older snapshot and the log: {}",
                     path.string(), image.status().message());
      continue;
    }
    return Loaded{std::move(image).value(), end};
  }
  if (log.log_start_offset() > 0)
    return corrupt(
        fmt::format("metadata log {} starts at offset {} but no valid snapshot covers "
                    "the records below it",
                    dir.string(), log.log_start_offset()));
  return Loaded{};
}

// Applies one batch's records at or above `from` to the image.
Status replay_batch(const records::BatchView& batch, int64_t from, MetadataImage& image,
                    std::vector<uint8_t>& scratch) {
  if (Status st = batch.validate(); !st) return st;
  return records::for_each_record(batch, scratch, [&](const records::RecordView& rec) {
    const int64_t offset = batch.base_offset() + rec.offset_delta;
    if (offset < from) return Status::OK();
    if (!rec.value)
      return corrupt(fmt::format("metadata record at offset {} has no value", offset));
    auto record = decode_record(*rec.value);
    if (!record) return corrupt(fmt::format("offset {}: {}", offset, record.status().message()));
    return image.apply(*record, offset);
  });
}

// Replays every record from `from` to the log end into the image.
Status replay(const PartitionLog& log, int64_t from, MetadataImage& image) {
  std::vector<uint8_t> scratch;
  return storage::scan_batches(log, from, [&](const records::BatchView& batch) {
    return replay_batch(batch, from, image, scratch);
  });
}

}  // namespace

MetadataLog::MetadataLog(fs::path partition_dir, std::unique_ptr<PartitionLog> log,
                         MetadataLogOptions options)
    : partition_dir_(std::move(partition_dir)), log_(std::move(log)), options_(options) {}

MetadataLog::~MetadataLog() {
  if (Status st = close(); !st)
    MIRRA_LOG_ERROR("{}: close failed: {}", partition_dir_.string(), st.to_string());
}

Result<std::unique_ptr<MetadataLog>> MetadataLog::open(const fs::path& dir, MetadataImage* image,
                                                       MetadataLogOptions options) {
  if (image == nullptr || !is_empty(*image))
    return Status(ErrorCode::INVALID_REQUEST, "MetadataLog::open needs an empty image");
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return storage::durable::io_error("create", dir, ec.value());
  fs::path partition_dir = dir / kMetadataPartitionDir;
  auto log = PartitionLog::open(partition_dir, log_config(options));
  if (!log) return log.status();
  auto loaded = load_newest_snapshot(partition_dir, **log);
  if (!loaded) return loaded.status();
  if (loaded->end > (*log)->log_end_offset()) {
    // Only a log that lost fsynced records can be behind a snapshot; the snapshot has them.
    MIRRA_LOG_WARN("{}: log ends at {}, before the snapshot's end {}; restarting the log there",
                   partition_dir.string(), (*log)->log_end_offset(), loaded->end);
    if (Status st = (*log)->truncate_fully_and_start_at(loaded->end); !st) return st;
  }
  if (Status st = replay(**log, loaded->end, loaded->image); !st) return st;
  std::unique_ptr<MetadataLog> out(
      new MetadataLog(std::move(partition_dir), std::move(log).value(), options));
  out->snapshot_end_ = loaded->end;
  MIRRA_LOG_INFO("{}: opened at offset {} (snapshot end {}, {} topics)",
                 out->partition_dir_.string(), out->next_offset(), loaded->end,
                 loaded->image.topics().size());
  *image = std::move(loaded->image);
  return out;
}

Status MetadataLog::usable() const {
  if (closed_)
    return Status(ErrorCode::KAFKA_STORAGE_ERROR,
                  fmt::format("metadata log {} is closed", partition_dir_.string()));
  return failed_;
}

Result<int64_t> MetadataLog::append(std::span<const MetadataRecord> records) {
  if (Status st = usable(); !st) return st;
  if (records.empty()) return Status(ErrorCode::INVALID_REQUEST, "empty metadata append");
  const int64_t now = now_ms();
  std::vector<std::vector<uint8_t>> values;
  std::vector<records::RecordInput> inputs;
  values.reserve(records.size());
  inputs.reserve(records.size());
  for (const MetadataRecord& r : records) {
    values.push_back(encode_record(r));
    records::RecordInput input;
    input.value = values.back();
    input.timestamp = now;
    inputs.push_back(input);
  }
  auto batch = records::build_batch(records::BatchOptions{}, inputs);
  if (!batch) return batch.status();
  auto appended = log_->append_as_leader(*batch, 0, storage::AppendOrigin::client, now);
  if (!appended) {
    // A refusal (too large) leaves the log as it was; a disk error may not.
    if (appended.status().code() == ErrorCode::KAFKA_STORAGE_ERROR) failed_ = appended.status();
    return appended.status();
  }
  if (Status st = log_->flush(); !st) {
    failed_ = st;
    return st;
  }
  return appended->first_offset;
}

Status MetadataLog::write_snapshot(const MetadataImage& image) {
  if (Status st = usable(); !st) return st;
  const int64_t end = image.last_offset() + 1;
  if (end > next_offset())
    return Status(ErrorCode::INVALID_REQUEST,
                  fmt::format("image at offset {} is ahead of the metadata log (next offset {})",
                              image.last_offset(), next_offset()));
  if (end < snapshot_end_)
    return Status(ErrorCode::INVALID_REQUEST,
                  fmt::format("image at offset {} is behind the newest snapshot (end {})",
                              image.last_offset(), snapshot_end_));
  const fs::path path = partition_dir_ / snapshot_file_name(end);
  if (Status st = storage::durable::write_file_atomically(path, encode_snapshot(image)); !st)
    return st;
  snapshot_end_ = end;
  // The snapshot is durable: nothing below its end is needed any more.
  if (Status st = delete_snapshots_below(end); !st) return st;
  if (Status st = log_->advance_log_start(end); !st) return st;
  return log_->apply_retention(now_ms());  // removes the retired files (no delete delay)
}

Status MetadataLog::delete_snapshots_below(int64_t end_offset) {
  auto ends = list_snapshots(partition_dir_);
  if (!ends) return ends.status();
  for (int64_t e : *ends) {
    if (e >= end_offset) continue;
    std::error_code ec;
    fs::remove(partition_dir_ / snapshot_file_name(e), ec);
    if (ec)
      MIRRA_LOG_WARN("{}: cannot remove old snapshot {}: {}", partition_dir_.string(),
                     snapshot_file_name(e), ec.message());
  }
  return Status::OK();
}

int64_t MetadataLog::next_offset() const { return log_->log_end_offset(); }

int64_t MetadataLog::records_since_snapshot() const { return next_offset() - snapshot_end_; }

Status MetadataLog::close() {
  if (closed_) return Status::OK();
  closed_ = true;
  return log_->close();
}

}  // namespace mirra::metadata
