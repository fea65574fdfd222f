#include "metadata/image.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/parse.h"

namespace mirra::metadata {
namespace {

Status refuse(std::string message) {
  return Status(ErrorCode::CORRUPT_MESSAGE, std::move(message));
}

// Replicas name each node once; the leader (when there is one) is among them.
Status check_replicas(const PartitionRecord& r, const std::string& topic) {
  if (r.replicas.empty())
    return refuse(fmt::format("partition {}-{} has no replicas", topic, r.partition));
  std::vector<int32_t> sorted = r.replicas;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    return refuse(fmt::format("partition {}-{} lists a replica twice", topic, r.partition));
  if (r.leader != -1 &&
      std::find(r.replicas.begin(), r.replicas.end(), r.leader) == r.replicas.end())
    return refuse(
        fmt::format("partition {}-{}: leader {} is not a replica", topic, r.partition, r.leader));
  return Status::OK();
}

}  // namespace

const TopicInfo* MetadataImage::topic(std::string_view name) const {
  auto it = topics_.find(name);
  return it == topics_.end() ? nullptr : &it->second;
}

const TopicInfo* MetadataImage::topic(const Uuid& id) const {
  auto it = names_by_id_.find(id);
  return it == names_by_id_.end() ? nullptr : topic(it->second);
}

Status MetadataImage::apply(const MetadataRecord& record, int64_t offset) {
  if (offset <= last_offset_)
    return refuse(fmt::format("metadata record at offset {} is not after the last one applied ({})",
                              offset, last_offset_));
  if (Status st = apply_change(record); !st)
    return Status(st.code(), fmt::format("{} at offset {}: {}", record_type_name(record), offset,
                                         st.message()));
  last_offset_ = offset;
  return Status::OK();
}

// Every apply_* checks everything before it changes anything, so a refused record leaves the
// image as it was.
Status MetadataImage::apply_change(const MetadataRecord& record) {
  return std::visit(
      [this](const auto& r) -> Status {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, TopicRecord>) return apply_topic(r);
        if constexpr (std::is_same_v<T, PartitionRecord>) return apply_partition(r);
        if constexpr (std::is_same_v<T, ConfigRecord>) return apply_config(r);
        if constexpr (std::is_same_v<T, RemoveTopicRecord>) return apply_remove(r);
        if constexpr (std::is_same_v<T, ProducerIdsRecord>) return apply_producer_ids(r);
        if constexpr (std::is_same_v<T, MirrorRecord>) return apply_mirror(r);
        if constexpr (std::is_same_v<T, RemoveMirrorRecord>) return apply_remove_mirror(r);
        if constexpr (std::is_same_v<T, UserScramCredentialRecord>) return apply_scram(r);
        if constexpr (std::is_same_v<T, RemoveUserScramCredentialRecord>)
          return apply_remove_scram(r);
        if constexpr (std::is_same_v<T, AccessControlEntryRecord>) return apply_acl(r);
        if constexpr (std::is_same_v<T, RemoveAccessControlEntryRecord>) return apply_remove_acl(r);
        if constexpr (std::is_same_v<T, ClientQuotaRecord>) return apply_client_quota(r);
      },
      record);
}

Status MetadataImage::apply_topic(const TopicRecord& r) {
  if (r.name.empty()) return refuse("empty topic name");
  if (r.id.is_zero()) return refuse(fmt::format("topic {} has the zero id", r.name));
  if (topics_.contains(r.name)) return refuse(fmt::format("topic {} already exists", r.name));
  if (auto it = names_by_id_.find(r.id); it != names_by_id_.end())
    return refuse(fmt::format("topic id {} of {} already belongs to topic {}", r.id.to_string(),
                              r.name, it->second));
  TopicInfo info;
  info.name = r.name;
  info.id = r.id;
  names_by_id_.emplace(r.id, r.name);
  topics_.emplace(r.name, std::move(info));
  return Status::OK();
}

Status MetadataImage::apply_partition(const PartitionRecord& r) {
  auto id_it = names_by_id_.find(r.topic_id);
  if (id_it == names_by_id_.end())
    return refuse(
        fmt::format("partition {} of unknown topic id {}", r.partition, r.topic_id.to_string()));
  TopicInfo& t = topics_.find(id_it->second)->second;
  const auto count = static_cast<int64_t>(t.partitions.size());
  if (r.partition < 0 || r.partition > count)
    return refuse(fmt::format("partition {} of topic {} is not contiguous (the topic has {})",
                              r.partition, t.name, count));
  if (Status st = check_replicas(r, t.name); !st) return st;
  if (r.partition < count) {
    const int32_t current = t.partitions[static_cast<size_t>(r.partition)].leader_epoch;
    if (r.leader_epoch < current)
      return refuse(fmt::format("partition {}-{}: leader epoch {} is below the current {}", t.name,
                                r.partition, r.leader_epoch, current));
  }
  PartitionInfo p{r.partition, r.replicas, r.leader, r.leader_epoch};
  if (r.partition == count) {
    t.partitions.push_back(std::move(p));
  } else {
    t.partitions[static_cast<size_t>(r.partition)] = std::move(p);
  }
  return Status::OK();
}

Status MetadataImage::apply_config(const ConfigRecord& r) {
  if (r.key.empty()) return refuse("empty config key");
  std::map<std::string, std::string>* target = nullptr;
  if (r.resource_type == kTopicResource) {
    auto it = topics_.find(r.resource_name);
    if (it == topics_.end())
      return refuse(fmt::format("config {} for unknown topic '{}'", r.key, r.resource_name));
    target = &it->second.configs;
  } else if (r.resource_type == kBrokerResource) {
    if (!r.resource_name.empty() && !parse_decimal<int32_t>(r.resource_name))
      return refuse(fmt::format("config {} for broker '{}': a broker is named by its node id",
                                r.key, r.resource_name));
    target = r.resource_name.empty() ? &broker_configs_ : &node_configs_[r.resource_name];
  } else if (r.resource_type == kGroupResource) {
    if (r.resource_name.empty())
      return refuse(fmt::format("config {} for a group without id", r.key));
    target = &group_configs_[r.resource_name];
  } else {
    return refuse(
        fmt::format("config {} for resource type {}: only topics (2), brokers (4) and groups "
                    "(32) have configs",
                    r.key, r.resource_type));
  }
  if (r.value) {
    (*target)[r.key] = *r.value;
  } else {
    target->erase(r.key);
  }
  // A node or group left without overrides leaves the image (`target` dies with its entry).
  if (target->empty() && !r.resource_name.empty()) {
    if (r.resource_type == kBrokerResource) node_configs_.erase(r.resource_name);
    if (r.resource_type == kGroupResource) group_configs_.erase(r.resource_name);
  }
  return Status::OK();
}

Status MetadataImage::apply_remove(const RemoveTopicRecord& r) {
  auto it = names_by_id_.find(r.topic_id);
  if (it == names_by_id_.end())
    return refuse(fmt::format("remove of unknown topic id {}", r.topic_id.to_string()));
  topics_.erase(it->second);
  names_by_id_.erase(it);
  return Status::OK();
}

Status MetadataImage::apply_producer_ids(const ProducerIdsRecord& r) {
  if (r.next_producer_id <= next_producer_id_)
    return refuse(fmt::format("next producer id {} does not move past {}", r.next_producer_id,
                              next_producer_id_));
  if (r.next_producer_id > kMaxNextProducerId)
    return refuse(
        fmt::format("next producer id {} is above {}", r.next_producer_id, kMaxNextProducerId));
  next_producer_id_ = r.next_producer_id;
  return Status::OK();
}

const MirrorInfo* MetadataImage::mirror(std::string_view name) const {
  auto it = mirrors_.find(name);
  return it == mirrors_.end() ? nullptr : &it->second;
}

Status MetadataImage::apply_mirror(const MirrorRecord& r) {
  if (r.name.empty()) return refuse("mirror with an empty name");
  MirrorInfo m{r.name, {}};
  for (size_t i = 0; i < r.configs.size(); ++i) {
    const std::string& key = r.configs[i].first;
    if (key.empty()) return refuse(fmt::format("mirror {}: empty config key", r.name));
    if (i > 0 && key <= r.configs[i - 1].first)
      return refuse(
          fmt::format("mirror {}: config keys not sorted and unique at '{}'", r.name, key));
    m.configs.emplace(key, r.configs[i].second);
  }
  for (size_t i = 0; i < r.topic_patterns.size(); ++i) {
    const std::string& p = r.topic_patterns[i];
    if (p.empty()) return refuse(fmt::format("mirror {}: empty topic pattern", r.name));
    if (std::find(r.topic_patterns.begin(), r.topic_patterns.begin() + i, p) !=
        r.topic_patterns.begin() + i)
      return refuse(fmt::format("mirror {}: topic pattern '{}' twice", r.name, p));
  }
  m.topic_patterns = r.topic_patterns;
  mirrors_[r.name] = std::move(m);
  return Status::OK();
}

Status MetadataImage::apply_remove_mirror(const RemoveMirrorRecord& r) {
  if (mirrors_.erase(r.name) == 0)
    return refuse(fmt::format("remove of unknown mirror '{}'", r.name));
  return Status::OK();
}

std::vector<MetadataRecord> image_records(const MetadataImage& image) {
  std::vector<MetadataRecord> out;
  for (const auto& [name, t] : image.topics()) {
    out.emplace_back(TopicRecord{t.name, t.id});
    for (const PartitionInfo& p : t.partitions)
      out.emplace_back(PartitionRecord{t.id, p.partition, p.replicas, p.leader, p.leader_epoch});
    for (const auto& [key, value] : t.configs)
      out.emplace_back(ConfigRecord{kTopicResource, t.name, key, value});
  }
  for (const auto& [key, value] : image.broker_configs())
    out.emplace_back(ConfigRecord{kBrokerResource, "", key, value});
  for (const auto& [node, configs] : image.node_configs())
    for (const auto& [key, value] : configs)
      out.emplace_back(ConfigRecord{kBrokerResource, node, key, value});
  for (const auto& [group, configs] : image.group_configs())
    for (const auto& [key, value] : configs)
      out.emplace_back(ConfigRecord{kGroupResource, group, key, value});
  if (image.next_producer_id() > 0)
    out.emplace_back(ProducerIdsRecord{-1, image.next_producer_id()});
  for (const auto& [name, m] : image.mirrors()) {
    out.emplace_back(MirrorRecord{name, {m.configs.begin(), m.configs.end()}, m.topic_patterns});
  }
  append_scram_records(image, out);
  for (const auto& [id, acl] : image.acls()) out.emplace_back(acl);
  append_client_quota_records(image, out);
  return out;
}

Result<MetadataImage> image_from_records(std::span<const MetadataRecord> records,
                                         int64_t last_offset) {
  MetadataImage image;
  for (size_t i = 0; i < records.size(); ++i) {
    if (Status st = image.apply_change(records[i]); !st)
      return Status(st.code(), fmt::format("snapshot record {} ({}): {}", i,
                                           record_type_name(records[i]), st.message()));
  }
  image.last_offset_ = last_offset;
  return image;
}

}  // namespace mirra::metadata
