// Small POSIX file helpers for the storage metadata files that must survive a crash whole:
// producer-state snapshots and the leader-epoch checkpoint (the txn index uses fsync_fd too).
//
// write_file_atomically() gives "old content or new content, never a mix": it writes a
// temporary file next to the target, fsyncs it, renames it over the target and fsyncs the
// directory (without the last step the rename itself may be lost in a crash).
// Errors are KAFKA_STORAGE_ERROR with the path, the errno text and the errno name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mirra::storage::durable {

// Suffix of the temporary file written before the rename; stale ones are leftovers of a crash.
inline constexpr std::string_view kTempSuffix = ".tmp";

Status write_file_atomically(const std::filesystem::path& path, std::span<const uint8_t> bytes);

// The whole file, or nullopt when it does not exist.
Result<std::optional<std::vector<uint8_t>>> read_file(const std::filesystem::path& path);

Status fsync_fd(int fd, const std::filesystem::path& path_for_errors);
Status fsync_dir(const std::filesystem::path& dir);

// Writes all of `bytes` at the fd's current position (retries short writes and EINTR).
Status write_all(int fd, std::span<const uint8_t> bytes,
                 const std::filesystem::path& path_for_errors);

// Writes all of `bytes` at `offset` with pwrite (retries short writes and EINTR). On an error
// the file may hold part of them; the caller cuts it back.
Status pwrite_all(int fd, std::span<const uint8_t> bytes, int64_t offset,
                  const std::filesystem::path& path_for_errors);

// KAFKA_STORAGE_ERROR "<what> <path>: <strerror(err)> (<errno name>)"; storage/io_error.h
// reads the errno name.
Status io_error(std::string_view what, const std::filesystem::path& path, int err);

}  // namespace mirra::storage::durable
