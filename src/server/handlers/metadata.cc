// Metadata (key 3): brokers, cluster id, controller, and the topics asked for (all of them for
// a null list, or an empty one before v1), by name or by id (v10+). Unknown topics are created
// when the request allows it (v4+, always before) and auto.create.topics.enable is on.
#include "protocol/messages/metadata.h"

#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "cluster/topic_admin.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::MetadataRequest;
using protocol::MetadataResponse;

MetadataResponse::MetadataResponseTopic describe_topic(RequestContext& ctx,
                                                       const metadata::TopicInfo& topic,
                                                       bool include_operations) {
  MetadataResponse::MetadataResponseTopic out;
  out.name = topic.name;
  out.topic_id = topic.id;
  out.is_internal = is_internal_topic(topic.name);
  if (include_operations) {
    out.topic_authorized_operations =
        authorized_operations(ctx, ResourceType::topic, topic.name, kAllTopicOperations);
  }
  for (const metadata::PartitionInfo& pi : topic.partitions) {
    const PartitionView v = view_partition(ctx, topic.name, pi);
    MetadataResponse::MetadataResponsePartition p;
    p.error_code = error_number(v.error);
    p.partition_index = pi.partition;
    p.leader_id = v.leader;
    p.leader_epoch = v.leader_epoch;
    p.replica_nodes = v.replicas;
    p.isr_nodes = v.isr;
    p.offline_replicas = v.offline;
    out.partitions.push_back(std::move(p));
  }
  return out;
}

MetadataResponse::MetadataResponseTopic topic_error(std::optional<std::string> name, Uuid id,
                                                    ErrorCode code) {
  MetadataResponse::MetadataResponseTopic out;
  out.name = std::move(name);
  out.topic_id = id;
  out.error_code = error_number(code);
  return out;
}

// Creates `name` with the broker's defaults (auto.create.topics.enable); the answer is the
// created topic, or the error that prevented it.
asio::awaitable<MetadataResponse::MetadataResponseTopic> auto_create(RequestContext& ctx,
                                                                     const std::string& name,
                                                                     bool include_operations) {
  cluster::NewTopic t;
  t.name = name;
  auto created = co_await ctx.broker->topic_admin->create_topic(t, false);
  // A concurrent request may have created it first: answer with what exists.
  if (const auto* topic = ctx.broker->metadata->image().topic(name)) {
    co_return describe_topic(ctx, *topic, include_operations);
  }
  co_return topic_error(name, Uuid::zero(), created.status().code());
}

// Auto-creation needs CREATE on the cluster, else CREATE on the topic, as CreateTopics.
bool may_auto_create(RequestContext& ctx, const std::string& name) {
  return authorized_on_cluster(ctx, AclOperation::create) ||
         authorized(ctx, AclOperation::create, ResourceType::topic, name);
}

}  // namespace

asio::awaitable<HandlerResult> handle_metadata(RequestContext& ctx) {
  auto req = decode_body<MetadataRequest>(ctx);
  if (!req.ok()) co_return req.status();
  const BrokerState& b = *ctx.broker;
  const bool include_ops = req->include_topic_authorized_operations;
  const bool all_topics = !req->topics || (ctx.api_version == 0 && req->topics->empty());
  const bool may_create = b.config->auto_create_topics_enable &&
                          (ctx.api_version < 4 || req->allow_auto_topic_creation);

  MetadataResponse resp;
  const AdvertisedEndpoint& ep = ctx.endpoint();
  resp.brokers.push_back({b.config->node_id, ep.host, ep.port, std::nullopt, {}});
  resp.cluster_id = b.cluster_id;
  resp.controller_id = b.config->node_id;
  if (req->include_cluster_authorized_operations) resp.cluster_authorized_operations = 0;

  // Topics the caller may not DESCRIBE are left out of "all topics", and a named one is
  // answered TOPIC_AUTHORIZATION_FAILED whether it exists or not (docs/security.md).
  auto may_describe = [&](const std::string& name) {
    return authorized(ctx, AclOperation::describe, ResourceType::topic, name);
  };
  if (all_topics) {
    for (const auto& [name, topic] : b.metadata->image().topics()) {
      if (may_describe(name)) resp.topics.push_back(describe_topic(ctx, topic, include_ops));
    }
    co_return respond(ctx, resp);
  }
  for (const auto& rt : *req->topics) {
    const auto& image = b.metadata->image();
    if (!rt.name) {  // by id (v10+)
      const metadata::TopicInfo* topic = image.topic(rt.topic_id);
      if (topic != nullptr && !may_describe(topic->name)) {
        resp.topics.push_back(
            topic_error(std::nullopt, rt.topic_id, ErrorCode::TOPIC_AUTHORIZATION_FAILED));
        continue;
      }
      resp.topics.push_back(
          topic ? describe_topic(ctx, *topic, include_ops)
                : topic_error(std::nullopt, rt.topic_id, ErrorCode::UNKNOWN_TOPIC_ID));
      continue;
    }
    if (!may_describe(*rt.name)) {
      resp.topics.push_back(
          topic_error(rt.name, Uuid::zero(), ErrorCode::TOPIC_AUTHORIZATION_FAILED));
      continue;
    }
    if (const metadata::TopicInfo* topic = image.topic(*rt.name)) {
      resp.topics.push_back(describe_topic(ctx, *topic, include_ops));
    } else if (Status s = cluster::validate_topic_name(*rt.name); !s.ok()) {
      resp.topics.push_back(topic_error(rt.name, Uuid::zero(), ErrorCode::INVALID_TOPIC_EXCEPTION));
    } else if (may_create && !may_auto_create(ctx, *rt.name)) {
      resp.topics.push_back(
          topic_error(rt.name, Uuid::zero(), ErrorCode::TOPIC_AUTHORIZATION_FAILED));
    } else if (may_create) {
      resp.topics.push_back(co_await auto_create(ctx, *rt.name, include_ops));
    } else {
      resp.topics.push_back(
          topic_error(rt.name, Uuid::zero(), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION));
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
