// Checkpoint files of a log directory, in Kafka's formats (docs/formats/checkpoints.md):
//
//  - recovery-point-offset-checkpoint and log-start-offset-checkpoint, one per log dir:
//      0\n<count>\n<topic> <partition> <offset>\n...
//    written atomically (temporary file, fsync, rename, fsync dir) by whoever owns the dir's
//    partitions (the broker's log manager), from PartitionLog::recovery_point() and
//    log_start_offset(); read once at start-up and handed to PartitionLog::open.
//  - partition.metadata, one per partition dir: "version: 0\ntopic_id: <22-char base64>\n".
//
// Partition directories are named "<topic>-<partition>", as in Kafka.
#pragma once

#include <compare>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "base/status.h"
#include "base/uuid.h"

namespace mirra::storage {

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  auto operator<=>(const TopicPartition&) const = default;
};

inline constexpr const char* kRecoveryPointCheckpoint = "recovery-point-offset-checkpoint";
inline constexpr const char* kLogStartCheckpoint = "log-start-offset-checkpoint";
inline constexpr const char* kPartitionMetadataFile = "partition.metadata";

using OffsetCheckpoint = std::map<TopicPartition, int64_t>;

// A missing file is an empty map. A malformed one is KAFKA_STORAGE_ERROR naming the line.
Result<OffsetCheckpoint> read_offset_checkpoint(const std::filesystem::path& path);
Status write_offset_checkpoint(const std::filesystem::path& path, const OffsetCheckpoint& offsets);

// "<topic>-<partition>" and back (the topic may itself contain '-').
std::string partition_dir_name(const TopicPartition& tp);
std::optional<TopicPartition> parse_partition_dir_name(const std::string& name);

// partition.metadata in `partition_dir`; nullopt when the file does not exist.
Result<std::optional<Uuid>> read_partition_metadata(const std::filesystem::path& partition_dir);
Status write_partition_metadata(const std::filesystem::path& partition_dir, const Uuid& topic_id);

}  // namespace mirra::storage
