#include "fake_sync.h"

#include <algorithm>

namespace mirra::mirror::test {

asio::awaitable<Result<client::ClusterMetadata>> FakeSyncSource::metadata(
    std::optional<std::vector<std::string>> topics) {
  ++metadata_calls;
  if (!metadata_error.ok()) co_return metadata_error;
  if (!topics) co_return cluster;
  client::ClusterMetadata out = cluster;
  out.topics.clear();
  for (const std::string& name : *topics) {
    const client::TopicInfo* t = cluster.topic(name);
    if (t != nullptr) {
      out.topics.push_back(*t);
    } else {
      out.topics.push_back({name, Uuid{}, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, false, {}});
    }
  }
  co_return out;
}

asio::awaitable<Result<std::vector<client::ConfigResourceResult>>> FakeSyncSource::topic_configs(
    std::vector<std::string> topics) {
  ++configs_calls;
  if (!configs_error.ok()) co_return configs_error;
  std::vector<client::ConfigResourceResult> out;
  for (const std::string& name : topics) {
    client::ConfigResourceResult& r = out.emplace_back();
    r.resource = {client::ConfigResourceType::topic, name, {}};
    if (cluster.topic(name) == nullptr) {
      r.status = Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "no such topic");
    } else if (auto it = configs.find(name); it != configs.end()) {
      r.entries = it->second;
    }
  }
  co_return out;
}

asio::awaitable<Result<std::vector<security::AclBinding>>> FakeSyncSource::acls() {
  ++acls_calls;
  if (!acls_error.ok()) co_return acls_error;
  co_return acl_list;
}

asio::awaitable<Result<client::GroupListings>> FakeSyncSource::list_groups() {
  ++list_groups_calls;
  if (!list_groups_error.ok()) co_return list_groups_error;
  co_return groups;
}

namespace {

// Each group's offsets for `partitions` out of `held` (by group and partition; `none` where a
// group has none), or its error out of `errors`.
template <typename Offset>
std::map<std::string, Result<std::vector<Offset>>> offsets_of(
    const std::vector<std::string>& groups, const std::vector<client::TopicPartition>& partitions,
    const std::map<std::string, std::map<client::TopicPartition, Offset>>& held,
    const std::map<std::string, Status>& errors) {
  std::map<std::string, Result<std::vector<Offset>>> out;
  for (const std::string& g : groups) {
    if (auto e = errors.find(g); e != errors.end()) {
      out.insert_or_assign(g, e->second);
      continue;
    }
    std::vector<Offset> found;
    const auto it = held.find(g);
    for (const client::TopicPartition& tp : partitions) {
      Offset o;  // offset -1: none
      o.tp = tp;
      if (it != held.end()) {
        if (auto h = it->second.find(tp); h != it->second.end()) o = h->second;
      }
      found.push_back(o);
    }
    out.insert_or_assign(g, std::move(found));
  }
  return out;
}

}  // namespace

asio::awaitable<Result<std::map<std::string, Result<std::vector<client::CommittedOffset>>>>>
FakeSyncSource::committed_offsets(std::vector<std::string> groups,
                                  std::vector<client::TopicPartition> partitions) {
  ++offsets_calls;
  co_return offsets_of(groups, partitions, offsets, group_errors);
}

asio::awaitable<Result<std::map<std::string, Result<std::vector<client::ShareGroupOffset>>>>>
FakeSyncSource::share_group_offsets(std::vector<std::string> groups,
                                    std::vector<client::TopicPartition> partitions) {
  ++share_offsets_calls;
  if (!share_offsets_error.ok()) co_return share_offsets_error;
  co_return offsets_of(groups, partitions, share_offsets, group_errors);
}

asio::awaitable<std::vector<Status>> FakeSyncDestination::add_topics(
    const std::string& mirror, std::vector<std::string> names) {
  std::vector<Status> out;
  for (const std::string& n : names) {
    added.push_back(n);
    out.push_back(on_add ? on_add(mirror, n) : Status::OK());
  }
  co_return out;
}

asio::awaitable<Status> FakeSyncDestination::fail_topic(const std::string&,
                                                        const std::string& topic, Status why) {
  failed_topics.insert_or_assign(topic, why);
  co_return on_fail ? on_fail(topic, why) : Status::OK();
}

std::vector<std::string> FakeSyncDestination::topic_patterns(const std::string& mirror) const {
  auto it = patterns.find(mirror);
  return it == patterns.end() ? std::vector<std::string>{} : it->second;
}

std::map<std::string, std::string> FakeSyncDestination::topic_configs(
    const std::string& topic) const {
  auto it = configs.find(topic);
  return it == configs.end() ? std::map<std::string, std::string>{} : it->second;
}

asio::awaitable<Status> FakeSyncDestination::alter_topic_configs(
    const std::string& topic, std::map<std::string, std::string> set,
    std::vector<std::string> removed) {
  ++config_changes;
  auto& c = configs[topic];
  for (auto& [k, v] : set) c.insert_or_assign(k, v);
  for (const std::string& k : removed) c.erase(k);
  co_return Status::OK();
}

asio::awaitable<Status> FakeSyncDestination::add_partitions(const std::string&,
                                                            const std::string& topic,
                                                            int32_t count) {
  partition_counts.insert_or_assign(topic, count);
  co_return Status::OK();
}

DestinationGroup FakeSyncDestination::group(const std::string& group_id) const {
  auto it = groups.find(group_id);
  return it == groups.end() ? DestinationGroup{} : it->second;
}

std::optional<DestinationBounds> FakeSyncDestination::bounds(
    const client::TopicPartition& tp) const {
  auto it = partition_bounds.find(tp);
  if (it == partition_bounds.end()) return std::nullopt;
  return it->second;
}

asio::awaitable<Result<std::vector<client::PartitionStatus>>> FakeSyncDestination::commit_offsets(
    const std::string& group_id, std::vector<client::OffsetToCommit> offsets) {
  ++commits;
  if (auto e = commit_errors.find(group_id); e != commit_errors.end()) co_return e->second;
  std::vector<client::PartitionStatus> out;
  for (client::OffsetToCommit& o : offsets) {
    out.push_back({o.tp, Status::OK()});
    committed[group_id].insert_or_assign(o.tp, std::move(o));
  }
  co_return out;
}

asio::awaitable<Result<std::vector<client::PartitionStatus>>>
FakeSyncDestination::alter_share_offsets(const std::string& group_id,
                                         std::vector<client::ShareGroupOffset> offsets) {
  ++share_writes;
  if (auto e = share_errors.find(group_id); e != share_errors.end()) co_return e->second;
  DestinationGroup& g = groups[group_id];
  if (g.exists && g.protocol_type != "share") {
    co_return Status(ErrorCode::GROUP_ID_NOT_FOUND, "not a share group");
  }
  if (g.members > 0) co_return Status(ErrorCode::NON_EMPTY_GROUP, "the group has members");
  g = {true, "share", 0};
  std::vector<client::PartitionStatus> out;
  for (const client::ShareGroupOffset& o : offsets) {
    out.push_back({o.tp, Status::OK()});
    share_starts[group_id].insert_or_assign(o.tp, o.start_offset);
  }
  co_return out;
}

Result<std::vector<DestinationAcl>> FakeSyncDestination::acls() const {
  if (!acls_error.ok()) return acls_error;
  std::vector<DestinationAcl> out;
  for (const auto& [b, mirror] : acl_set) out.push_back({b, mirror});
  return out;
}

asio::awaitable<Status> FakeSyncDestination::change_acls(const std::string& mirror,
                                                         std::vector<security::AclBinding> add,
                                                         std::vector<security::AclBinding> remove) {
  ++acl_changes;
  if (!change_acls_error.ok()) co_return change_acls_error;
  for (const security::AclBinding& b : remove) acl_set.erase({b, mirror});
  for (security::AclBinding& b : add) {
    const bool held =
        std::any_of(acl_set.begin(), acl_set.end(), [&](const auto& e) { return e.first == b; });
    if (!held) acl_set.insert({std::move(b), mirror});
  }
  co_return Status::OK();
}

}  // namespace mirra::mirror::test
