#include "server/http_json.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>

#include "base/json.h"
#include "client/mirror_descriptions.h"
#include "cluster/metadata_store.h"
#include "cluster/topic_config.h"
#include "mirror/describe_json.h"
#include "server/handlers/describe_mirrors_sync.h"
#include "server/handlers/handler_util.h"
#include "server/request_context.h"

namespace mirra::server {

std::vector<TopicView> collect_topics(BrokerState& broker) {
  std::vector<TopicView> out;
  for (const auto& [name, topic] : broker.metadata->image().topics()) {
    TopicView& t = out.emplace_back();
    t.name = name;
    t.id = topic.id;
    if (auto it = topic.configs.find(std::string(cluster::kMirrorNameConfig));
        it != topic.configs.end()) {
      t.mirror = it->second;
    }
    collect_partitions(broker, topic, t.partitions);
  }
  return out;
}

std::vector<client::MirrorDescription> collect_mirror_descriptions(BrokerState& broker) {
  if (broker.mirror_manager == nullptr) return {};
  return client::mirror_descriptions(
      describe_mirrors_response(*broker.mirror_manager, std::nullopt));
}

std::string topics_json(const std::vector<TopicView>& topics) {
  std::vector<std::string> out;
  out.reserve(topics.size());
  for (const TopicView& t : topics) {
    std::vector<std::string> partitions;
    partitions.reserve(t.partitions.size());
    for (const PartitionSample& p : t.partitions) {
      partitions.push_back(fmt::format(
          R"({{"partition":{},"logStartOffset":{},"highWatermark":{},"lastStableOffset":{},)"
          R"("logEndOffset":{},"sizeBytes":{},"online":{}}})",
          p.partition, p.log_start, p.high_watermark, p.last_stable, p.log_end, p.size_bytes,
          p.online));
    }
    out.push_back(
        fmt::format(R"({{"topic":{},"topicId":{},"internal":{},"mirror":{},"partitions":[{}]}})",
                    json_string(t.name), json_string(t.id.to_string()), is_internal_topic(t.name),
                    t.mirror.empty() ? "null" : json_string(t.mirror), fmt::join(partitions, ",")));
  }
  return fmt::format(R"({{"topics":[{}]}})", fmt::join(out, ",\n"));
}

std::string groups_json(const MetricsSnapshot& s) {
  std::map<std::string, std::vector<std::string>> offsets;
  for (const GroupOffsetSample& o : s.group_offsets) {
    const int64_t log_end = o.lag >= 0 ? o.committed + o.lag : -1;
    offsets[o.group].push_back(fmt::format(
        R"({{"topic":{},"partition":{},"currentOffset":{},"logEndOffset":{},"lag":{}}})",
        json_string(o.topic), o.partition, o.committed, log_end, o.lag));
  }
  std::vector<std::string> out;
  out.reserve(s.groups.size());
  for (const GroupSample& g : s.groups) {
    out.push_back(fmt::format(
        R"({{"group":{},"type":"classic","state":{},"members":{},"offsets":[{}]}})",
        json_string(g.group), json_string(g.state), g.members, fmt::join(offsets[g.group], ",")));
  }
  std::map<std::string, std::vector<std::string>> starts;
  for (const GroupOffsetSample& o : s.share_group_offsets) {
    starts[o.group].push_back(
        fmt::format(R"({{"topic":{},"partition":{},"startOffset":{},"lag":{}}})",
                    json_string(o.topic), o.partition, o.committed, o.lag));
  }
  for (const GroupSample& g : s.share_groups) {
    out.push_back(fmt::format(
        R"({{"group":{},"type":"share","state":{},"members":{},"offsets":[{}]}})",
        json_string(g.group), json_string(g.state), g.members, fmt::join(starts[g.group], ",")));
  }
  return fmt::format(R"({{"groups":[{}]}})", fmt::join(out, ",\n"));
}

std::string mirrors_json(const std::vector<client::MirrorDescription>& mirrors) {
  std::vector<std::string> out;
  out.reserve(mirrors.size());
  for (const auto& m : mirrors) out.push_back(mirror::mirror_json(m));
  return fmt::format(R"({{"mirrors":[{}]}})", fmt::join(out, ",\n"));
}

}  // namespace mirra::server
