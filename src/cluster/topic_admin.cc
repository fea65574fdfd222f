#include "cluster/topic_admin.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "base/log.h"

namespace mirra::cluster {
namespace {

constexpr std::string_view kMirraLogComponent = "topics";
constexpr size_t kMaxTopicNameLength = 249;

using metadata::MetadataImage;
using metadata::MetadataRecord;
using Records = std::vector<MetadataRecord>;

Status error(ErrorCode code, std::string message) { return Status(code, std::move(message)); }

metadata::PartitionRecord partition_record(const Uuid& id, int32_t index,
                                           std::vector<int32_t> replicas) {
  metadata::PartitionRecord pr;
  pr.topic_id = id;
  pr.partition = index;
  pr.leader = replicas.front();
  pr.replicas = std::move(replicas);
  pr.leader_epoch = 0;
  return pr;
}

Status validate_assignments(const NewTopic& t, int32_t node_id) {
  if (t.partitions != -1 || t.replication_factor != -1) {
    return error(ErrorCode::INVALID_REQUEST,
                 "both a replica assignment and a partition count or replication factor were "
                 "given; use one or the other");
  }
  for (size_t p = 0; p < t.assignments.size(); ++p) {
    const auto& brokers = t.assignments[p];
    if (brokers.empty()) {
      return error(ErrorCode::INVALID_REPLICA_ASSIGNMENT,
                   fmt::format("partition {} has an empty replica list", p));
    }
    std::set<int32_t> seen;
    for (int32_t b : brokers) {
      if (b != node_id) {
        return error(ErrorCode::INVALID_REPLICA_ASSIGNMENT,
                     fmt::format("partition {} is assigned to broker {}, which does not exist "
                                 "(this cluster has only broker {})",
                                 p, b, node_id));
      }
      if (!seen.insert(b).second) {
        return error(ErrorCode::INVALID_REPLICA_ASSIGNMENT,
                     fmt::format("partition {} lists broker {} twice", p, b));
      }
    }
  }
  return Status::OK();
}

}  // namespace

Status validate_topic_name(std::string_view name) {
  if (name.empty()) return error(ErrorCode::INVALID_TOPIC_EXCEPTION, "topic name is empty");
  if (name == "." || name == "..") {
    return error(ErrorCode::INVALID_TOPIC_EXCEPTION, "topic name cannot be \".\" or \"..\"");
  }
  if (name.size() > kMaxTopicNameLength) {
    return error(ErrorCode::INVALID_TOPIC_EXCEPTION,
                 fmt::format("topic name is {} characters long; the limit is {}", name.size(),
                             kMaxTopicNameLength));
  }
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) {
      return error(ErrorCode::INVALID_TOPIC_EXCEPTION,
                   fmt::format("topic name \"{}\" contains a character other than ASCII "
                               "letters, digits, '.', '_' and '-'",
                               name));
    }
  }
  return Status::OK();
}

Status validate_new_topic(NewTopic& t, const TopicDefaults& d) {
  if (Status s = validate_topic_name(t.name); !s.ok()) return s;
  if (!t.assignments.empty()) {
    if (t.assignments.size() > static_cast<size_t>(d.max_partitions)) {
      return error(ErrorCode::INVALID_PARTITIONS,
                   fmt::format("{} partitions exceed this broker's limit of {} per topic",
                               t.assignments.size(), d.max_partitions));
    }
    if (Status s = validate_assignments(t, d.node_id); !s.ok()) return s;
    t.partitions = static_cast<int32_t>(t.assignments.size());
    t.replication_factor = static_cast<int16_t>(t.assignments.front().size());
  } else {
    if (t.partitions == -1) t.partitions = d.num_partitions;
    if (t.replication_factor == -1) t.replication_factor = d.default_replication_factor;
    if (t.partitions <= 0) {
      return error(ErrorCode::INVALID_PARTITIONS,
                   fmt::format("number of partitions must be at least 1, got {}", t.partitions));
    }
    if (t.replication_factor <= 0) {
      return error(
          ErrorCode::INVALID_REPLICATION_FACTOR,
          fmt::format("replication factor must be at least 1, got {}", t.replication_factor));
    }
    if (t.replication_factor > 1) {
      return error(ErrorCode::INVALID_REPLICATION_FACTOR,
                   fmt::format("replication factor {} cannot be reached: this cluster has 1 "
                               "broker",
                               t.replication_factor));
    }
    if (t.partitions > d.max_partitions) {
      return error(ErrorCode::INVALID_PARTITIONS,
                   fmt::format("{} partitions exceed this broker's limit of {} per topic",
                               t.partitions, d.max_partitions));
    }
    t.assignments.assign(static_cast<size_t>(t.partitions), std::vector<int32_t>{d.node_id});
  }
  for (const auto& [key, value] : t.configs) {
    if (Status s = validate_topic_config(key, value); !s.ok()) return s;
  }
  return Status::OK();
}

asio::awaitable<Result<Uuid>> TopicAdmin::create_topic(NewTopic topic, bool validate_only) {
  if (Status s = validate_new_topic(topic, defaults_); !s.ok()) co_return s;
  const Uuid id = topic.id.value_or(Uuid::random());
  auto build = [&](const MetadataImage& image) -> Result<Records> {
    if (image.topic(topic.name) != nullptr) {
      return error(ErrorCode::TOPIC_ALREADY_EXISTS,
                   fmt::format("topic \"{}\" already exists", topic.name));
    }
    if (image.topic(id) != nullptr) {
      return error(ErrorCode::TOPIC_ALREADY_EXISTS,
                   fmt::format("a topic with id {} already exists", id.to_string()));
    }
    if (validate_only) return Records{};
    Records out;
    out.push_back(metadata::TopicRecord{topic.name, id});
    for (size_t p = 0; p < topic.assignments.size(); ++p) {
      out.push_back(partition_record(id, static_cast<int32_t>(p), topic.assignments[p]));
    }
    for (const auto& [key, value] : topic.configs) {
      out.push_back(metadata::ConfigRecord{2, topic.name, key, value});
    }
    if (topic.mirror_name) {
      out.push_back(metadata::ConfigRecord{2, topic.name, std::string(kMirrorNameConfig),
                                           *topic.mirror_name});
    }
    return out;
  };
  // The topic is recorded before its logs are opened: a partition that cannot be opened
  // (disk, permissions) fails the request with KAFKA_STORAGE_ERROR instead of a success for a
  // partition that can take no write; it stays offline, as in Kafka.
  Status opened;
  auto after = [&](const MetadataImage& image) -> asio::awaitable<void> {
    const metadata::TopicInfo* info = image.topic(topic.name);
    if (info == nullptr) co_return;
    MIRRA_LOG_INFO(
        "created topic {} (id {}, {} partition(s){})", topic.name, id.to_string(),
        info->partitions.size(),
        topic.configs.empty() ? "" : fmt::format(", {} config override(s)", topic.configs.size()));
    for (const auto& [key, value] : topic.configs) warn_if_deprecated("topic " + topic.name, key);
    opened = co_await partitions_.add_partitions(*info);
  };
  // Named, not a conditional temporary inside co_await: g++ 12 destroys such temporaries
  // twice.
  AfterChange then;
  if (!validate_only) then = after;
  Status s = co_await store_.change(build, then);
  if (!s.ok()) co_return s;
  if (!opened.ok()) co_return opened;
  co_return id;
}

asio::awaitable<Status> TopicAdmin::delete_topic(const std::string& name) {
  auto build = [&](const MetadataImage& image) -> Result<Records> {
    const metadata::TopicInfo* info = image.topic(name);
    if (info == nullptr) {
      return error(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                   fmt::format("topic \"{}\" does not exist", name));
    }
    return Records{metadata::RemoveTopicRecord{info->id}};
  };
  auto after = [&](const MetadataImage&) -> asio::awaitable<void> {
    MIRRA_LOG_INFO("deleted topic {}", name);
    co_await partitions_.remove_topic(name);
  };
  co_return co_await store_.change(build, after);
}

asio::awaitable<Status> TopicAdmin::create_partitions(const std::string& name, int32_t count,
                                                      bool validate_only) {
  int32_t before = 0;
  auto build = [&](const MetadataImage& image) -> Result<Records> {
    const metadata::TopicInfo* info = image.topic(name);
    if (info == nullptr) {
      return error(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                   fmt::format("topic \"{}\" does not exist", name));
    }
    before = static_cast<int32_t>(info->partitions.size());
    if (count > defaults_.max_partitions) {
      return error(ErrorCode::INVALID_PARTITIONS,
                   fmt::format("{} partitions exceed this broker's limit of {} per topic", count,
                               defaults_.max_partitions));
    }
    if (count <= before) {
      return error(ErrorCode::INVALID_PARTITIONS,
                   fmt::format("topic \"{}\" has {} partition(s); the new count must be higher, "
                               "got {}",
                               name, before, count));
    }
    if (validate_only) return Records{};
    Records out;
    for (int32_t p = before; p < count; ++p) {
      out.push_back(partition_record(info->id, p, {defaults_.node_id}));
    }
    return out;
  };
  Status opened;  // see create_topic
  auto after = [&](const MetadataImage& image) -> asio::awaitable<void> {
    const metadata::TopicInfo* info = image.topic(name);
    if (info == nullptr) co_return;
    MIRRA_LOG_INFO("topic {}: partitions {} -> {}", name, before, count);
    opened = co_await partitions_.add_partitions(*info);
  };
  AfterChange then;  // see create_topic
  if (!validate_only) then = after;
  Status s = co_await store_.change(build, then);
  if (!s.ok()) co_return s;
  co_return opened;
}

asio::awaitable<Status> TopicAdmin::set_mirror_name(const std::string& name,
                                                    const std::string& mirror) {
  auto build = [&](const MetadataImage& image) -> Result<Records> {
    if (image.topic(name) == nullptr) {
      return error(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                   fmt::format("topic \"{}\" does not exist", name));
    }
    return Records{metadata::ConfigRecord{2, name, std::string(kMirrorNameConfig), mirror}};
  };
  auto after = [&](const MetadataImage&) -> asio::awaitable<void> {
    MIRRA_LOG_INFO("topic {}: config {}={}", name, kMirrorNameConfig, mirror);
    co_return;
  };
  co_return co_await store_.change(build, after);
}

asio::awaitable<Status> TopicAdmin::raise_leader_epoch(const std::string& name, int32_t partition,
                                                       int32_t epoch) {
  auto build = [&](const MetadataImage& image) -> Result<Records> {
    const metadata::TopicInfo* t = image.topic(name);
    if (t == nullptr || partition < 0 || partition >= static_cast<int32_t>(t->partitions.size())) {
      return error(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                   fmt::format("partition {}-{} does not exist", name, partition));
    }
    const metadata::PartitionInfo& p = t->partitions[static_cast<size_t>(partition)];
    if (p.leader_epoch >= epoch) return Records{};
    return Records{metadata::PartitionRecord{t->id, partition, p.replicas, p.leader, epoch}};
  };
  auto after = [&](const MetadataImage&) -> asio::awaitable<void> {
    if (auto handle = partitions_.find(name, partition)) {
      handle->leader_epoch = std::max(handle->leader_epoch, epoch);
    }
    co_return;
  };
  co_return co_await store_.change(build, after);
}

asio::awaitable<Result<size_t>> TopicAdmin::bump_leader_epochs() {
  size_t bumped = 0;
  auto build = [&bumped](const MetadataImage& image) -> Result<Records> {
    Records out;
    for (const auto& [name, t] : image.topics()) {
      for (const metadata::PartitionInfo& p : t.partitions) {
        out.push_back(
            metadata::PartitionRecord{t.id, p.partition, p.replicas, p.leader, p.leader_epoch + 1});
      }
    }
    bumped = out.size();
    return out;
  };
  auto after = [this](const MetadataImage& image) -> asio::awaitable<void> {
    for (const auto& [name, t] : image.topics()) {
      for (const metadata::PartitionInfo& p : t.partitions) {
        if (auto handle = partitions_.find(name, p.partition))
          handle->leader_epoch = p.leader_epoch;
      }
    }
    co_return;
  };
  if (Status s = co_await store_.change(build, after); !s.ok()) co_return s;
  co_return bumped;
}

asio::awaitable<Status> TopicAdmin::alter_topic_configs(
    const std::string& name, const std::map<std::string, std::optional<std::string>>& changes,
    bool validate_only) {
  for (const auto& [key, value] : changes) {
    if (Status s = check_client_settable(key); !s.ok()) co_return s;
    if (!value) {
      if (find_topic_config(key) == nullptr) {
        co_return error(ErrorCode::INVALID_CONFIG, fmt::format("unknown topic config {}", key));
      }
      continue;
    }
    if (Status s = validate_topic_config(key, *value); !s.ok()) co_return s;
  }
  auto build = [&](const MetadataImage& image) -> Result<Records> {
    if (image.topic(name) == nullptr) {
      return error(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                   fmt::format("topic \"{}\" does not exist", name));
    }
    if (validate_only) return Records{};
    Records out;
    for (const auto& [key, value] : changes) {
      out.push_back(metadata::ConfigRecord{2, name, key, value});
    }
    return out;
  };
  auto after = [&](const MetadataImage& image) -> asio::awaitable<void> {
    const metadata::TopicInfo* info = image.topic(name);
    if (info == nullptr) co_return;
    std::string list;
    for (const auto& [key, value] : changes) {
      list += fmt::format("{}{}={}", list.empty() ? "" : ", ", key, value.value_or("(default)"));
    }
    MIRRA_LOG_INFO("topic {}: config {}", name, list);
    for (const auto& [key, value] : changes) {
      if (value) warn_if_deprecated("topic " + name, key);
    }
    co_await partitions_.reconfigure(*info);
  };
  AfterChange then;  // see create_topic
  if (!validate_only) then = after;
  co_return co_await store_.change(build, then);
}

}  // namespace mirra::cluster
