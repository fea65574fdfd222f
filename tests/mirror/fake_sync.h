// Fakes of the sync tasks' source and destination (mirror_sync.h), in memory. Tests set what
// the source holds and which calls fail, and read back what the sync changed on the
// destination.
//
// Threading: the test's io_context, one thread.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "mirror/mirror_sync.h"

namespace mirra::mirror::test {

class FakeSyncSource : public SyncSource {
 public:
  // What the source holds; tests change it between rounds.
  client::ClusterMetadata cluster;
  std::map<std::string, std::vector<client::ConfigEntry>> configs;  // by topic
  client::GroupListings groups;
  // Committed offsets by group and partition.
  std::map<std::string, std::map<client::TopicPartition, client::CommittedOffset>> offsets;
  // Share groups' start offsets by group and partition (share_group_offsets()).
  std::map<std::string, std::map<client::TopicPartition, client::ShareGroupOffset>> share_offsets;
  // Failures: a call as a whole, or one group's offsets (consumer or share group).
  Status metadata_error, configs_error, list_groups_error, share_offsets_error;
  std::map<std::string, Status> group_errors;
  std::vector<security::AclBinding> acl_list;  // acls()
  Status acls_error;
  // Calls made, for tests that count round trips.
  int metadata_calls = 0, configs_calls = 0, list_groups_calls = 0, offsets_calls = 0,
      acls_calls = 0, share_offsets_calls = 0;

  asio::awaitable<Result<client::ClusterMetadata>> metadata(
      std::optional<std::vector<std::string>> topics) override;
  asio::awaitable<Result<std::vector<client::ConfigResourceResult>>> topic_configs(
      std::vector<std::string> topics) override;
  asio::awaitable<Result<client::GroupListings>> list_groups() override;
  asio::awaitable<Result<std::map<std::string, Result<std::vector<client::CommittedOffset>>>>>
  committed_offsets(std::vector<std::string> groups,
                    std::vector<client::TopicPartition> partitions) override;
  asio::awaitable<Result<std::vector<security::AclBinding>>> acls() override;
  asio::awaitable<Result<std::map<std::string, Result<std::vector<client::ShareGroupOffset>>>>>
  share_group_offsets(std::vector<std::string> groups,
                      std::vector<client::TopicPartition> partitions) override;
  void close() override { closed = true; }
  bool closed = false;
};

class FakeSyncDestination : public SyncDestination {
 public:
  // Called by add_topics() for each name (a test adds the topic to its FakeSink); its Status
  // is the outcome. Empty: every add succeeds and is only recorded.
  std::function<Status(const std::string& mirror, const std::string& topic)> on_add;
  std::vector<std::string> added;               // every topic add_topics() was asked for
  std::map<std::string, Status> failed_topics;  // fail_topic()'s reasons
  // Called by fail_topic() (a test marks the partitions FAILED in its FakeSink); its Status is
  // the outcome. Empty: only recorded.
  std::function<Status(const std::string& topic, const Status& why)> on_fail;
  std::map<std::string, std::vector<std::string>> patterns;           // topic_patterns() by mirror
  std::set<std::string> local_topics;                                 // has_topic(): topics here
  std::map<std::string, std::map<std::string, std::string>> configs;  // by topic
  int config_changes = 0;
  std::map<std::string, int32_t> partition_counts;  // add_partitions()'s latest count by topic
  std::map<std::string, DestinationGroup> groups;
  std::map<client::TopicPartition, DestinationBounds> partition_bounds;
  // Committed offsets by group and partition; a group's commits refused with its Status.
  std::map<std::string, std::map<client::TopicPartition, client::OffsetToCommit>> committed;
  std::map<std::string, Status> commit_errors;
  int commits = 0;
  // Share groups' start offsets written by group and partition. alter_share_offsets() acts as
  // the broker's: refused with GROUP_ID_NOT_FOUND when `groups` has the id as another type,
  // NON_EMPTY_GROUP while it has members, else the share group is created in `groups`; or
  // refused with share_errors' Status for the group.
  std::map<std::string, std::map<client::TopicPartition, int64_t>> share_starts;
  std::map<std::string, Status> share_errors;
  int share_writes = 0;
  // The ACLs here with their makers ("" for one made here), as a set; acls() refused with
  // acls_error, change_acls() with change_acls_error.
  std::set<std::pair<security::AclBinding, std::string>> acl_set;
  Status acls_error, change_acls_error;
  int acl_changes = 0;

  asio::awaitable<std::vector<Status>> add_topics(const std::string& mirror,
                                                  std::vector<std::string> names) override;
  asio::awaitable<Status> fail_topic(const std::string& mirror, const std::string& topic,
                                     Status why) override;
  std::vector<std::string> topic_patterns(const std::string& mirror) const override;
  bool has_topic(const std::string& name) const override { return local_topics.count(name) != 0; }
  std::map<std::string, std::string> topic_configs(const std::string& topic) const override;
  asio::awaitable<Status> alter_topic_configs(const std::string& topic,
                                              std::map<std::string, std::string> set,
                                              std::vector<std::string> removed) override;
  asio::awaitable<Status> add_partitions(const std::string& mirror, const std::string& topic,
                                         int32_t count) override;
  DestinationGroup group(const std::string& group_id) const override;
  std::optional<DestinationBounds> bounds(const client::TopicPartition& tp) const override;
  asio::awaitable<Result<std::vector<client::PartitionStatus>>> commit_offsets(
      const std::string& group_id, std::vector<client::OffsetToCommit> offsets) override;
  asio::awaitable<Result<std::vector<client::PartitionStatus>>> alter_share_offsets(
      const std::string& group_id, std::vector<client::ShareGroupOffset> offsets) override;
  Result<std::vector<DestinationAcl>> acls() const override;
  asio::awaitable<Status> change_acls(const std::string& mirror,
                                      std::vector<security::AclBinding> add,
                                      std::vector<security::AclBinding> remove) override;
};

}  // namespace mirra::mirror::test
