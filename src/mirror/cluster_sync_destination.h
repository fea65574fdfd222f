// ClusterSyncDestination: the sync tasks' destination on this broker (mirror_sync.h): topics
// added and failed through the mirror manager, topic configs and partitions through topic
// administration, group offsets through the group coordinator.
//
// Threading: the core thread, like the manager that owns it.
#pragma once

#include "mirror/mirror_sync.h"

namespace mirra::cluster {
class MetadataStore;
class TopicAdmin;
}  // namespace mirra::cluster

namespace mirra::mirror {

class MirrorManager;

class ClusterSyncDestination : public SyncDestination {
 public:
  ClusterSyncDestination(MirrorManager& manager, cluster::MetadataStore& store,
                         cluster::TopicAdmin& topics)
      : manager_(manager), store_(store), topics_(topics) {}

  // cluster_sync_topics.cc
  asio::awaitable<std::vector<Status>> add_topics(const std::string& mirror,
                                                  std::vector<std::string> names) override;
  asio::awaitable<Status> fail_topic(const std::string& mirror, const std::string& topic,
                                     Status why) override;
  std::vector<std::string> topic_patterns(const std::string& mirror) const override;
  bool has_topic(const std::string& name) const override;
  // cluster_sync_configs.cc
  std::map<std::string, std::string> topic_configs(const std::string& topic) const override;
  asio::awaitable<Status> alter_topic_configs(const std::string& topic,
                                              std::map<std::string, std::string> set,
                                              std::vector<std::string> removed) override;
  asio::awaitable<Status> add_partitions(const std::string& mirror, const std::string& topic,
                                         int32_t count) override;
  // cluster_sync_groups.cc
  DestinationGroup group(const std::string& group_id) const override;
  std::optional<DestinationBounds> bounds(const client::TopicPartition& tp) const override;
  asio::awaitable<Result<std::vector<client::PartitionStatus>>> commit_offsets(
      const std::string& group_id, std::vector<client::OffsetToCommit> offsets) override;

 private:
  MirrorManager& manager_;
  cluster::MetadataStore& store_;
  cluster::TopicAdmin& topics_;
};

}  // namespace mirra::mirror
