#include "groups/offsets_topic.h"

namespace mirra::groups {
namespace {

cluster::InternalTopicSpec offsets_topic_spec(const GroupConfig& config) {
  cluster::InternalTopicSpec spec;
  spec.name = kOffsetsTopic;
  spec.partitions = config.offsets_topic_partitions;
  // Kafka's settings for the topic: compacted (the latest record per key is the state),
  // uncompressed producer batches kept as written, smaller segments so compaction can run.
  spec.configs = {{"cleanup.policy", "compact"},
                  {"compression.type", "producer"},
                  {"segment.bytes", std::to_string(config.offsets_topic_segment_bytes)}};
  return spec;
}

}  // namespace

OffsetsTopic::OffsetsTopic(cluster::MetadataStore& metadata, cluster::PartitionManager& partitions,
                           cluster::TopicAdmin& topics, const GroupConfig& config)
    : topic_(metadata, partitions, topics, offsets_topic_spec(config)) {}

}  // namespace mirra::groups
