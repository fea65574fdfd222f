#include "metadata/meta_properties.h"

#include <charconv>
#include <map>
#include <system_error>

#include <fmt/format.h>

#include "base/log.h"
#include "base/parse.h"
#include "base/properties.h"
#include "storage/durable_file.h"

namespace mirra::metadata {

constexpr std::string_view kMirraLogComponent = "metadata";

namespace {

namespace fs = std::filesystem;

Status bad_file(const fs::path& file, std::string_view what) {
  return Status(ErrorCode::KAFKA_STORAGE_ERROR, fmt::format("{}: {}", file.string(), what));
}

std::optional<int32_t> parse_int32(std::string_view s) { return parse_decimal<int32_t>(s); }

Status write(const fs::path& file, const MetaProperties& props) {
  const std::string text = format_meta_properties(props);
  return storage::durable::write_file_atomically(
      file, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

Result<MetaProperties> create(const fs::path& log_dir, const fs::path& file, int32_t node_id) {
  std::error_code ec;
  fs::create_directories(log_dir, ec);
  if (ec) return storage::durable::io_error("create", log_dir, ec.value());
  MetaProperties props;
  props.cluster_id = Uuid::random().to_string();
  props.node_id = node_id;
  props.directory_id = Uuid::random();
  if (Status st = write(file, props); !st) return st;
  MIRRA_LOG_INFO("{}: created (cluster.id {}, node.id {})", file.string(), props.cluster_id,
                 node_id);
  return props;
}

}  // namespace

std::string format_meta_properties(const MetaProperties& props) {
  return fmt::format(
      "#Written by Mirra; identifies this log directory. Do not edit.\n"
      "version={}\ncluster.id={}\nnode.id={}\ndirectory.id={}\n",
      props.version, props.cluster_id, props.node_id, props.directory_id.to_string());
}

Result<MetaProperties> parse_meta_properties(std::string_view text, const fs::path& file) {
  auto parsed = parse_properties(text);
  if (!parsed) return bad_file(file, parsed.status().message());
  std::map<std::string, std::string, std::less<>> kv;
  for (auto& p : *parsed) kv[p.key] = std::move(p.value);  // a later duplicate wins, as in Java
  auto get = [&](std::string_view key) -> const std::string* {
    auto it = kv.find(key);
    return it == kv.end() ? nullptr : &it->second;
  };
  MetaProperties out;
  const std::string* version = get("version");
  if (!version) return bad_file(file, "no version");
  if (*version != "1")
    return bad_file(file, fmt::format("version {} is not supported (only {}, KRaft)", *version,
                                      kMetaPropertiesVersion));
  const std::string* cluster = get("cluster.id");
  if (!cluster) return bad_file(file, "no cluster.id");
  if (!Uuid::parse(*cluster))
    return bad_file(file, fmt::format("cluster.id '{}' is not a Uuid", *cluster));
  out.cluster_id = *cluster;
  const std::string* node = get("node.id");
  if (!node) return bad_file(file, "no node.id");
  auto node_id = parse_int32(*node);
  if (!node_id || *node_id < 0)
    return bad_file(file, fmt::format("node.id '{}' is not a node id", *node));
  out.node_id = *node_id;
  if (const std::string* dir = get("directory.id")) {
    auto id = Uuid::parse(*dir);
    if (!id || id->is_zero())
      return bad_file(file, fmt::format("directory.id '{}' is not a Uuid", *dir));
    out.directory_id = *id;
  }
  return out;
}

Result<MetaProperties> load_or_create_meta_properties(const fs::path& log_dir, int32_t node_id) {
  if (node_id < 0)
    return Status(ErrorCode::INVALID_CONFIG, fmt::format("node.id {} is negative", node_id));
  const fs::path file = log_dir / kMetaPropertiesFile;
  auto bytes = storage::durable::read_file(file);
  if (!bytes) return bytes.status();
  if (!bytes->has_value()) return create(log_dir, file, node_id);
  const auto& data = **bytes;
  auto props = parse_meta_properties(
      std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), file);
  if (!props) return props.status();
  if (props->node_id != node_id)
    return Status(ErrorCode::INVALID_CONFIG,
                  fmt::format("{} belongs to node.id {}, but this broker is configured with "
                              "node.id {}: if the directory moved, configure node.id {}; for a new "
                              "node, use an empty directory",
                              file.string(), props->node_id, node_id, props->node_id));
  if (props->directory_id.is_zero()) {
    props->directory_id = Uuid::random();
    if (Status st = write(file, *props); !st) return st;
    MIRRA_LOG_INFO("{}: added directory.id {}", file.string(), props->directory_id.to_string());
  }
  return props;
}

}  // namespace mirra::metadata
