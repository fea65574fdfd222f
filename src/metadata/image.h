// The metadata image: what the cluster knows about itself (cluster id, topics with their ids,
// partitions and config overrides, dynamic broker configs), built by applying metadata records
// in log order. The image is plain data: the broker's core thread owns its copy and changes it
// only by apply(), after the records are durable in the metadata log (metadata/metadata_log.h).
//
// A multi-broker store would produce the same records from a replicated log; handlers see only
// the image and the MetadataStore interface (metadata/store.h), never the log.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "base/uuid.h"
#include "metadata/records.h"

namespace mirra::metadata {

struct PartitionInfo {
  int32_t partition = 0;
  std::vector<int32_t> replicas;  // node ids; the first is the preferred leader
  int32_t leader = -1;
  int32_t leader_epoch = 0;
};

struct TopicInfo {
  std::string name;
  Uuid id;
  std::vector<PartitionInfo> partitions;       // index == partition number
  std::map<std::string, std::string> configs;  // topic-level overrides only (Kafka names)
};

class MetadataImage {
 public:
  // Offset of the last record applied (-1: none); a snapshot taken now covers up to here.
  int64_t last_offset() const { return last_offset_; }

  const TopicInfo* topic(std::string_view name) const;
  const TopicInfo* topic(const Uuid& id) const;
  // Sorted by name.
  const std::map<std::string, TopicInfo, std::less<>>& topics() const { return topics_; }
  // Dynamic broker configs (AlterConfigs on the broker resource); key -> value.
  const std::map<std::string, std::string>& broker_configs() const { return broker_configs_; }

  // Applies one record that the log assigned `offset`. A record that contradicts the image
  // (a partition of an unknown topic, a second topic with the same name) is a corrupt log:
  // the Status says which record and why, and the image is unchanged.
  Status apply(const MetadataRecord& record, int64_t offset);

 private:
  int64_t last_offset_ = -1;
  std::map<std::string, TopicInfo, std::less<>> topics_;
  std::unordered_map<Uuid, std::string> names_by_id_;
  std::map<std::string, std::string> broker_configs_;
};

}  // namespace mirra::metadata
