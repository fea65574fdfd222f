// The broker's JSON API for tools (docs/observability.md "JSON API"): what the CLI describes,
// with the CLI's --json field names.
//   /v1/mirrors  the DescribeMirrors answer (mirror/describe_json.h: the rows of
//                `mirra mirror --describe --json`, grouped per mirror)
//   /v1/topics   topics with their ids, mirror and partitions' offsets and sizes
//   /v1/groups   consumer groups with state, members and per partition the committed offset,
//                the log end offset (the high watermark, as `mirra groups --describe` shows it)
//                and the lag
//   /v1/history  each mirror's lag over the last minutes (server/mirror_lag_history.h)
// Collection runs on the core thread and copies; the text is written from the copy on the
// HTTP thread (server/http_endpoints.h).
#pragma once

#include <string>
#include <vector>

#include "base/uuid.h"
#include "client/types.h"
#include "server/broker_metrics.h"

namespace mirra::server {

struct TopicView {
  std::string name;
  Uuid id;
  std::string mirror;  // mirror.name; empty when the topic is not (or no longer) a mirror's
  std::vector<PartitionSample> partitions;
};

// Core thread.
std::vector<TopicView> collect_topics(BrokerState& broker);
std::vector<client::MirrorDescription> collect_mirror_descriptions(BrokerState& broker);

// Any thread.
std::string topics_json(const std::vector<TopicView>& topics);
std::string groups_json(const MetricsSnapshot& groups);  // its groups and group_offsets
std::string mirrors_json(const std::vector<client::MirrorDescription>& mirrors);

}  // namespace mirra::server
