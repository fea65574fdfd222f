#include "storage/checkpoint.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "base/parse.h"
#include "storage/durable_file.h"

namespace mirra::storage {
namespace {

Status malformed(const std::filesystem::path& path, const std::string& why) {
  return {ErrorCode::KAFKA_STORAGE_ERROR, "malformed " + path.string() + ": " + why};
}

bool parse_int64(const std::string& s, int64_t& out) {
  auto v = parse_decimal<int64_t>(s);
  if (v) out = *v;
  return v.has_value();
}

std::span<const uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace

Result<OffsetCheckpoint> read_offset_checkpoint(const std::filesystem::path& path) {
  auto content = durable::read_file(path);
  if (!content) return content.status();
  OffsetCheckpoint out;
  if (!*content) return out;
  std::istringstream in(std::string((*content)->begin(), (*content)->end()));
  std::string line;
  int64_t version = -1, count = -1;
  if (!std::getline(in, line) || !parse_int64(line, version) || version != 0)
    return malformed(path, "expected version 0 on line 1");
  if (!std::getline(in, line) || !parse_int64(line, count) || count < 0)
    return malformed(path, "expected an entry count on line 2");
  for (int64_t i = 0; i < count; ++i) {
    if (!std::getline(in, line)) return malformed(path, "fewer entries than the count says");
    // The topic cannot contain spaces; the last two fields are partition and offset.
    const size_t b = line.rfind(' ');
    const size_t a = b == std::string::npos || b == 0 ? std::string::npos : line.rfind(' ', b - 1);
    int64_t partition = 0, offset = 0;
    if (a == std::string::npos || a == 0 ||
        !parse_int64(line.substr(a + 1, b - a - 1), partition) ||
        !parse_int64(line.substr(b + 1), offset) || partition < 0 || partition > INT32_MAX)
      return malformed(path, "bad entry on line " + std::to_string(i + 3) + ": \"" + line + "\"");
    out[{line.substr(0, a), static_cast<int32_t>(partition)}] = offset;
  }
  if (std::getline(in, line) && !line.empty())
    return malformed(path, "more entries than the count says");
  return out;
}

Status write_offset_checkpoint(const std::filesystem::path& path, const OffsetCheckpoint& offsets) {
  std::string text = "0\n" + std::to_string(offsets.size()) + "\n";
  for (const auto& [tp, offset] : offsets)
    text += tp.topic + " " + std::to_string(tp.partition) + " " + std::to_string(offset) + "\n";
  return durable::write_file_atomically(path, as_bytes(text));
}

std::string partition_dir_name(const TopicPartition& tp) {
  return tp.topic + "-" + std::to_string(tp.partition);
}

std::optional<TopicPartition> parse_partition_dir_name(const std::string& name) {
  const size_t dash = name.rfind('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 == name.size()) return std::nullopt;
  int64_t partition = 0;
  if (!parse_int64(name.substr(dash + 1), partition) || partition < 0 || partition > INT32_MAX)
    return std::nullopt;
  return TopicPartition{name.substr(0, dash), static_cast<int32_t>(partition)};
}

Result<std::optional<Uuid>> read_partition_metadata(const std::filesystem::path& partition_dir) {
  const auto path = partition_dir / kPartitionMetadataFile;
  auto content = durable::read_file(path);
  if (!content) return content.status();
  if (!*content) return std::optional<Uuid>();
  std::istringstream in(std::string((*content)->begin(), (*content)->end()));
  std::string version, topic;
  if (!std::getline(in, version) || version != "version: 0")
    return malformed(path, "expected \"version: 0\" on line 1");
  if (!std::getline(in, topic) || !topic.starts_with("topic_id: "))
    return malformed(path, "expected \"topic_id: <id>\" on line 2");
  auto id = Uuid::parse(topic.substr(10));
  if (!id) return malformed(path, "bad topic id \"" + topic.substr(10) + "\"");
  return std::optional<Uuid>(*id);
}

Status write_partition_metadata(const std::filesystem::path& partition_dir, const Uuid& topic_id) {
  const std::string text = "version: 0\ntopic_id: " + topic_id.to_string() + "\n";
  return durable::write_file_atomically(partition_dir / kPartitionMetadataFile, as_bytes(text));
}

}  // namespace mirra::storage
