#include "storage/leader_epoch_cache.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>
#include <utility>

#include "base/log.h"
#include "base/parse.h"
#include "storage/durable_file.h"

namespace mirra::storage {

namespace {

// First line of the file. Kafka has only ever written version 0 of leader-epoch-checkpoint.
constexpr int kCheckpointVersion = 0;
constexpr int32_t kUndefinedEpoch = -1;
constexpr int64_t kUndefinedEpochOffset = -1;

Status malformed(const std::filesystem::path& path, std::string_view why) {
  return Status(ErrorCode::KAFKA_STORAGE_ERROR,
                "leader-epoch checkpoint " + path.string() + " is malformed: " + std::string(why));
}

// Splits `text` into lines; a final line without '\n' still counts (Kafka's readLine does that).
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

// Whitespace-separated fields, as Kafka's reader splits on \s+.
std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

template <typename T>
bool parse_int(std::string_view s, T& out) {
  auto v = parse_decimal<T>(s);
  if (v) out = *v;
  return v.has_value();
}

Result<std::vector<EpochEntry>> parse_checkpoint(std::string_view text,
                                                 const std::filesystem::path& path) {
  std::vector<std::string_view> lines = split_lines(text);
  int version = -1;
  if (lines.empty() || !parse_int(lines[0], version)) return malformed(path, "no version line");
  if (version != kCheckpointVersion) {
    return malformed(path, "unknown version " + std::to_string(version));
  }
  int64_t count = -1;
  if (lines.size() < 2 || !parse_int(lines[1], count) || count < 0) {
    return malformed(path, "no entry count");
  }
  if (lines.size() - 2 != static_cast<uint64_t>(count)) {
    return malformed(path, "expected " + std::to_string(count) + " entries, found " +
                               std::to_string(lines.size() - 2) + " lines");
  }
  std::vector<EpochEntry> entries;
  for (size_t i = 2; i < lines.size(); ++i) {
    std::vector<std::string_view> f = split_fields(lines[i]);
    EpochEntry e;
    if (f.size() != 2 || !parse_int(f[0], e.epoch) || !parse_int(f[1], e.start_offset) ||
        e.epoch < 0 || e.start_offset < 0) {
      return malformed(path, "bad entry line " + std::to_string(i + 1) + ": '" +
                                 std::string(lines[i]) + "'");
    }
    entries.push_back(e);
  }
  return entries;
}

}  // namespace

Result<LeaderEpochCache> LeaderEpochCache::open(std::filesystem::path checkpoint_path) {
  LeaderEpochCache cache;
  cache.path_ = std::move(checkpoint_path);
  auto bytes = durable::read_file(cache.path_);
  if (!bytes) return bytes.status();
  if (!bytes->has_value()) return cache;
  const std::vector<uint8_t>& data = **bytes;
  auto entries = parse_checkpoint(
      std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), cache.path_);
  if (!entries) return entries.status();
  // Loaded through the same rules as assign(), as Kafka does, so a file written by an older
  // or buggy writer still yields a monotonic cache.
  for (const EpochEntry& e : entries.value()) cache.apply(e);
  return cache;
}

bool LeaderEpochCache::apply(EpochEntry entry) {
  if (!entries_.empty()) {
    const EpochEntry& last = entries_.back();
    if (entry.epoch == last.epoch && entry.start_offset >= last.start_offset) return false;
  }
  size_t removed = 0;
  while (!entries_.empty() && (entries_.back().epoch >= entry.epoch ||
                               entries_.back().start_offset >= entry.start_offset)) {
    entries_.pop_back();
    ++removed;
  }
  // Replacing one entry at the same start offset is the normal "epoch bumped before any data"
  // case; anything more means the log's tail disagreed with the cache.
  if (removed > 1) {
    MIRRA_CLOG_WARN("storage", "leader-epoch cache {}: epoch {} at {} dropped {} later entries",
                    path_.string(), entry.epoch, entry.start_offset, removed);
  }
  entries_.push_back(entry);
  return true;
}

Status LeaderEpochCache::assign(int32_t epoch, int64_t start_offset) {
  if (epoch < 0 || start_offset < 0) {
    return Status(ErrorCode::INVALID_REQUEST, "leader epoch " + std::to_string(epoch) +
                                                  " at offset " + std::to_string(start_offset) +
                                                  " is not a valid epoch entry");
  }
  if (!apply(EpochEntry{epoch, start_offset})) return Status::OK();
  return persist();
}

std::optional<EpochEntry> LeaderEpochCache::latest() const {
  if (entries_.empty()) return std::nullopt;
  return entries_.back();
}

std::pair<int32_t, int64_t> epoch_end_offset(std::span<const EpochEntry> entries, int32_t epoch,
                                             int64_t log_end_offset) {
  if (epoch == kUndefinedEpoch || entries.empty()) return {kUndefinedEpoch, kUndefinedEpochOffset};
  if (epoch == entries.back().epoch) return {epoch, log_end_offset};
  // The first entry with a larger epoch ("higher entry").
  auto higher = std::upper_bound(entries.begin(), entries.end(), epoch,
                                 [](int32_t e, const EpochEntry& x) { return e < x.epoch; });
  if (higher == entries.end()) return {kUndefinedEpoch, kUndefinedEpochOffset};
  if (higher == entries.begin()) return {epoch, higher->start_offset};
  return {std::prev(higher)->epoch, higher->start_offset};
}

std::pair<int32_t, int64_t> LeaderEpochCache::end_offset_for(int32_t epoch,
                                                             int64_t log_end_offset) const {
  return epoch_end_offset(entries_, epoch, log_end_offset);
}

Status LeaderEpochCache::truncate_from_end(int64_t end_offset) {
  size_t before = entries_.size();
  while (end_offset >= 0 && !entries_.empty() && entries_.back().start_offset >= end_offset) {
    entries_.pop_back();
  }
  return entries_.size() == before ? Status::OK() : persist();
}

Status LeaderEpochCache::truncate_from_start(int64_t start_offset) {
  auto first_kept = std::find_if(entries_.begin(), entries_.end(), [&](const EpochEntry& e) {
    return e.start_offset > start_offset;
  });
  if (first_kept == entries_.begin()) return Status::OK();
  // Already starting there: nothing to rewrite (every open calls this; it must not write).
  if (std::prev(first_kept) == entries_.begin() && entries_.front().start_offset == start_offset)
    return Status::OK();
  // The last entry at or below the new start still covers it: keep its epoch, move its start.
  EpochEntry clamped{std::prev(first_kept)->epoch, start_offset};
  auto last_removed = entries_.erase(entries_.begin(), std::prev(first_kept));
  *last_removed = clamped;
  return persist();
}

Status LeaderEpochCache::clear() {
  entries_.clear();
  return persist();
}

Status LeaderEpochCache::persist() {
  std::string text = std::to_string(kCheckpointVersion) + "\n" + std::to_string(entries_.size()) +
                     "\n";
  for (const EpochEntry& e : entries_) {
    text += std::to_string(e.epoch) + " " + std::to_string(e.start_offset) + "\n";
  }
  return durable::write_file_atomically(
      path_, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

}  // namespace mirra::storage
