// meta.properties: Kafka's identity file in each log directory (KRaft, version 1). It binds the
// directory to a cluster and a node, so that a broker started with another node.id, or a
// directory moved to the wrong broker, is refused instead of serving someone else's data.
//
//   version=1
//   cluster.id=<22-char base64 uuid>
//   node.id=<N>
//   directory.id=<22-char base64 uuid>
//
// Parsed with base/properties.h (Java .properties rules); written atomically (temp file,
// fsync, rename, directory fsync). Format notes: docs/formats/metadata.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "base/status.h"
#include "base/uuid.h"

namespace mirra::metadata {

inline constexpr std::string_view kMetaPropertiesFile = "meta.properties";
inline constexpr int32_t kMetaPropertiesVersion = 1;

struct MetaProperties {
  int32_t version = kMetaPropertiesVersion;
  std::string cluster_id;  // Kafka accepts only a Uuid's text here (kafka-storage format)
  int32_t node_id = -1;
  Uuid directory_id;

  bool operator==(const MetaProperties&) const = default;
};

// Loads <log_dir>/meta.properties, or creates the directory and the file durably (fresh random
// cluster.id and directory.id) when it is absent. A file whose node.id differs is refused
// with INVALID_CONFIG naming the file and both ids (Kafka's InconsistentNodeIdException); one
// that does not parse, lacks a key or has another version is KAFKA_STORAGE_ERROR naming the
// file and the problem. A version-1 file without directory.id (written before Kafka 3.7) gets
// one, written back durably.
Result<MetaProperties> load_or_create_meta_properties(const std::filesystem::path& log_dir,
                                                      int32_t node_id);

// The text of the file, and its parser (`file` only names it in messages).
std::string format_meta_properties(const MetaProperties& props);
Result<MetaProperties> parse_meta_properties(std::string_view text,
                                             const std::filesystem::path& file);

}  // namespace mirra::metadata
