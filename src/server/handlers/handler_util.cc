#include "server/handlers/handler_util.h"

#include <map>
#include <set>

#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "mirror/mirror_admin.h"
#include "mirror/mirror_manager.h"

namespace mirra::server {

Status check_writable(const RequestContext& ctx, std::string_view topic, int32_t partition) {
  const mirror::MirrorManager* m = ctx.broker->mirror_manager;
  if (m != nullptr) return m->check_writable(topic, partition);
  return mirror::check_writable(ctx.broker->metadata->image(), nullptr, topic, partition);
}

std::string client_host(const RequestContext& ctx) {
  const std::string& peer = ctx.connection != nullptr ? ctx.connection->peer : std::string();
  const size_t colon = peer.rfind(':');
  std::string host = colon == std::string::npos ? peer : peer.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  return "/" + host;
}

bool is_internal_topic(std::string_view name) {
  return name == "__consumer_offsets" || name == "__transaction_state" || name == "__mirror_state";
}

ErrorCode check_leader_epoch(int32_t requested, int32_t current) {
  if (requested == -1 || requested == current) return ErrorCode::NONE;
  return requested > current ? ErrorCode::UNKNOWN_LEADER_EPOCH : ErrorCode::FENCED_LEADER_EPOCH;
}

PartitionLookup find_partition(const RequestContext& ctx, std::string_view topic, int32_t index,
                               int32_t current_leader_epoch) {
  PartitionLookup out;
  out.partition = ctx.broker->partitions->find(topic, index);
  if (out.partition == nullptr) {
    out.error = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
    return out;
  }
  out.error = check_leader_epoch(current_leader_epoch, out.partition->leader_epoch);
  if (out.error != ErrorCode::NONE) out.partition.reset();
  return out;
}

namespace {

void add_topic(const RequestContext& ctx, const metadata::TopicInfo& topic,
               const std::optional<std::vector<int32_t>>& indexes,
               std::vector<TopicPartitions>& out) {
  TopicPartitions tp;
  tp.topic = topic.name;
  std::set<int32_t> wanted;
  if (indexes) wanted.insert(indexes->begin(), indexes->end());
  for (const metadata::PartitionInfo& pi : topic.partitions) {
    if (indexes && wanted.count(pi.partition) == 0) continue;
    if (auto p = ctx.broker->partitions->find(topic.name, pi.partition)) tp.partitions.push_back(p);
  }
  if (!tp.partitions.empty()) out.push_back(std::move(tp));
}

}  // namespace

std::vector<TopicPartitions> select_partitions(
    const RequestContext& ctx, const std::optional<std::vector<TopicSelection>>& topics) {
  const metadata::MetadataImage& image = ctx.broker->metadata->image();
  std::vector<TopicPartitions> out;
  if (!topics) {
    for (const auto& [name, topic] : image.topics()) add_topic(ctx, topic, std::nullopt, out);
    return out;
  }
  // A topic named twice has its index lists merged, as Kafka's set semantics give.
  std::map<std::string, std::optional<std::vector<int32_t>>> merged;
  for (const TopicSelection& s : *topics) {
    auto [it, fresh] = merged.try_emplace(s.topic, s.indexes);
    if (fresh || !it->second) continue;
    if (!s.indexes) {
      it->second.reset();
    } else {
      it->second->insert(it->second->end(), s.indexes->begin(), s.indexes->end());
    }
  }
  for (const auto& [name, indexes] : merged) {
    if (const metadata::TopicInfo* topic = image.topic(name)) add_topic(ctx, *topic, indexes, out);
  }
  return out;
}

PartitionView view_partition(const RequestContext& ctx, const std::string& topic,
                             const metadata::PartitionInfo& pi) {
  PartitionView v;
  v.leader = pi.leader;
  v.leader_epoch = pi.leader_epoch;
  v.replicas = pi.replicas;
  v.isr = pi.replicas;  // a single node: every replica it has is in sync
  auto part = ctx.broker->partitions->find(topic, pi.partition);
  if (part == nullptr || !part->online()) {
    v.error = ErrorCode::LEADER_NOT_AVAILABLE;
    v.leader = -1;
    v.offline = pi.replicas;
  }
  return v;
}

std::optional<std::string> error_message(const Status& s) {
  if (s.ok()) return std::nullopt;
  return s.message();
}

}  // namespace mirra::server
