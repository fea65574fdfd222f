// ClusterSyncDestination: the sync tasks' destination on this broker (mirror_sync.h): topics
// added and failed through the mirror manager, topic configs and partitions through topic
// administration, group offsets through the group coordinator, ACLs in the metadata log (the
// broker's authorizer follows the image).
//
// Threading: the core thread, like the manager that owns it.
#pragma once

#include <functional>

#include "mirror/mirror_sync.h"

namespace mirra::cluster {
class MetadataStore;
class PartitionManager;
class TopicAdmin;
}  // namespace mirra::cluster

namespace mirra::mirror {

class MirrorManager;

// What the groups sync needs of this broker's group coordinator. `mirror` does not depend on
// `groups` (docs/architecture.md), so the broker, which owns both, sets these at start-up
// (MirrorManager::on_groups()). Until then no group exists and every commit is refused.
struct GroupHooks {
  // A group as the coordinator holds it (exists = false: unknown or not loaded).
  std::function<DestinationGroup(const std::string& group_id)> describe;
  // An admin commit (generation -1, no member id): per partition its outcome, a refusal of the
  // whole group (members, loading) as the Status.
  std::function<asio::awaitable<Result<std::vector<client::PartitionStatus>>>(
      std::string group_id, std::vector<client::OffsetToCommit> offsets)>
      commit;
  // AlterShareGroupOffsets on this broker (the share group created if missing): per partition
  // its outcome; a refusal of the whole group (members, a consumer group of that id:
  // GROUP_ID_NOT_FOUND) as the Status.
  std::function<asio::awaitable<Result<std::vector<client::PartitionStatus>>>(
      std::string group_id, std::vector<client::ShareGroupOffset> offsets)>
      alter_share;
};

class ClusterSyncDestination : public SyncDestination {
 public:
  // `authorizer`: this broker has one (authorizer.class.name); without, no ACL is synced.
  ClusterSyncDestination(MirrorManager& manager, cluster::MetadataStore& store,
                         cluster::PartitionManager& partitions, cluster::TopicAdmin& topics,
                         bool authorizer)
      : manager_(manager),
        store_(store),
        partitions_(partitions),
        topics_(topics),
        authorizer_(authorizer) {}

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
  asio::awaitable<Result<std::vector<client::PartitionStatus>>> alter_share_offsets(
      const std::string& group_id, std::vector<client::ShareGroupOffset> offsets) override;
  void set_group_hooks(GroupHooks hooks) { groups_ = std::move(hooks); }
  // cluster_sync_acls.cc
  Result<std::vector<DestinationAcl>> acls() const override;
  asio::awaitable<Status> change_acls(const std::string& mirror,
                                      std::vector<security::AclBinding> add,
                                      std::vector<security::AclBinding> remove) override;

 private:
  MirrorManager& manager_;
  cluster::MetadataStore& store_;
  cluster::PartitionManager& partitions_;
  cluster::TopicAdmin& topics_;
  GroupHooks groups_;
  bool authorizer_;
};

}  // namespace mirra::mirror
