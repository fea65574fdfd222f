#include "server/share_admin.h"

#include <algorithm>

#include <fmt/format.h>

#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "groups/group_coordinator.h"
#include "server/handlers/share_util.h"
#include "server/request_context.h"
#include "share/share_store.h"

namespace mirra::server {
namespace {

// The row of one partition: its state's start offset and lag, or -1s without state.
ShareOffsetRow row_of(BrokerState& broker, const std::string& group_id,
                      const metadata::TopicInfo& topic, int32_t partition) {
  ShareOffsetRow row{topic.name, topic.id, partition, -1, -1, -1, ErrorCode::NONE};
  auto part = broker.partitions->find(topic.name, partition);
  if (part == nullptr) {
    row.error = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
    return row;
  }
  row.leader_epoch = part->leader_epoch;
  const share::SharePartition* p = broker.share->find({group_id, topic.id, partition});
  if (p == nullptr) return row;
  row.start_offset = p->start_offset();
  // What the group has still to finish: from its start to the high watermark, less what is
  // finished above the start (never below zero: the start may be past a truncated log).
  const int64_t ahead = part->offsets.high_watermark - p->start_offset() - p->finished_in_flight();
  row.lag = std::max<int64_t>(0, ahead);
  return row;
}

// Every partition the group holds state for, by topic and partition.
std::vector<ShareOffsetRow> rows_with_state(BrokerState& broker, const std::string& group_id) {
  std::vector<ShareOffsetRow> rows;
  const metadata::MetadataImage& image = broker.metadata->image();
  for (const share::ShareKey& key : broker.share->keys_of(group_id)) {
    const metadata::TopicInfo* topic = image.topic(key.topic_id);
    if (topic == nullptr) continue;  // deleted: its state goes with the next start-up
    rows.push_back(row_of(broker, group_id, *topic, key.partition));
  }
  std::sort(rows.begin(), rows.end(), [](const ShareOffsetRow& a, const ShareOffsetRow& b) {
    return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
  });
  return rows;
}

// The group admin may change: a share group without members.
Status check_empty(const groups::ShareGroup& g) {
  if (g.members.empty()) return Status::OK();
  return Status(
      ErrorCode::NON_EMPTY_GROUP,
      fmt::format("The group {} is not empty: it has {} member(s).", g.id, g.members.size()));
}

Status storage_error(const std::string& what) {
  return Status(ErrorCode::KAFKA_STORAGE_ERROR,
                fmt::format("the share state of {} could not be written", what));
}

}  // namespace

Result<std::vector<ShareOffsetRow>> describe_share_offsets(
    BrokerState& broker, const std::string& group_id,
    const std::optional<std::map<std::string, std::vector<int32_t>>>& topics) {
  auto group = broker.groups->share_group_for_admin(group_id);
  if (!group.ok()) return group.status();
  if (!topics) return rows_with_state(broker, group_id);
  std::vector<ShareOffsetRow> rows;
  const metadata::MetadataImage& image = broker.metadata->image();
  for (const auto& [name, partitions] : *topics) {
    const metadata::TopicInfo* topic = image.topic(name);
    for (int32_t p : partitions) {
      if (topic == nullptr) {
        rows.push_back({name, Uuid::zero(), p, -1, -1, -1, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION});
      } else {
        rows.push_back(row_of(broker, group_id, *topic, p));
      }
    }
  }
  return rows;
}

asio::awaitable<Result<std::vector<ShareOffsetOutcome>>> alter_share_offsets(
    BrokerState& broker, std::string group_id, std::vector<ShareOffsetTarget> targets) {
  auto group = broker.groups->ensure_share_group(group_id);
  if (!group.ok()) co_return group.status();
  if (Status st = check_empty(*group.value()); !st) co_return st;
  std::vector<ShareOffsetOutcome> out;
  for (const ShareOffsetTarget& t : targets) {
    ShareOffsetOutcome& o =
        out.emplace_back(ShareOffsetOutcome{t.topic, Uuid::zero(), t.partition, Status::OK()});
    const metadata::TopicInfo* topic = broker.metadata->image().topic(t.topic);
    if (topic != nullptr) o.topic_id = topic->id;
    if (topic == nullptr || broker.partitions->find(t.topic, t.partition) == nullptr) {
      o.status = Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                        fmt::format("{}-{} does not exist", t.topic, t.partition));
      continue;
    }
    if (t.start_offset < 0) {
      o.status = Status(ErrorCode::INVALID_REQUEST,
                        fmt::format("the start offset of {}-{} is negative", t.topic, t.partition));
      continue;
    }
    const share::ShareKey key{group_id, topic->id, t.partition};  // named: see persist_share_state
    broker.share->reset(key, t.start_offset);
    // Written before the answer: a start offset the caller was told is set survives a crash.
    if (co_await persist_share_state(broker, key) != ErrorCode::NONE) {
      out.back().status = storage_error(fmt::format("{}-{}", t.topic, t.partition));
    }
  }
  co_return out;
}

asio::awaitable<Result<std::vector<ShareOffsetOutcome>>> delete_share_offsets(
    BrokerState& broker, std::string group_id, std::vector<std::string> topics) {
  auto group = broker.groups->share_group_for_admin(group_id);
  if (!group.ok()) co_return group.status();
  if (Status st = check_empty(*group.value()); !st) co_return st;
  std::vector<ShareOffsetOutcome> out;
  for (const std::string& name : topics) {
    ShareOffsetOutcome& o =
        out.emplace_back(ShareOffsetOutcome{name, Uuid::zero(), -1, Status::OK()});
    const metadata::TopicInfo* topic = broker.metadata->image().topic(name);
    if (topic == nullptr) {
      o.status = Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                        fmt::format("topic {} does not exist", name));
      continue;
    }
    o.topic_id = topic->id;
    const std::vector<share::ShareKey> keys = broker.share->erase_topic(group_id, topic->id);
    if (keys.empty() || broker.share_store == nullptr) continue;
    const Status s = co_await broker.share_store->erase(keys);
    if (!s.ok()) o.status = storage_error(fmt::format("topic {}", name));
  }
  co_return out;
}

}  // namespace mirra::server
