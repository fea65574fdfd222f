// CreateTopics (key 19): validation with Kafka's errors, validate_only, configs, explicit
// replica assignments; v5+ answers with the partition count, replication factor and every
// config of the topic (value, source, read-only, sensitive), v7+ with the topic id.
#include "protocol/messages/create_topics.h"

#include <fmt/format.h>

#include <set>

#include "cluster/metadata_store.h"
#include "cluster/topic_admin.h"
#include "cluster/topic_config.h"
#include "server/client_quotas.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::CreateTopicsRequest;
using protocol::CreateTopicsResponse;

Result<cluster::NewTopic> new_topic(const CreateTopicsRequest::CreatableTopic& t) {
  cluster::NewTopic nt;
  nt.name = t.name;
  nt.partitions = t.num_partitions;
  nt.replication_factor = t.replication_factor;
  // Assignments must number the partitions 0..n-1, each once.
  nt.assignments.resize(t.assignments.size());
  for (const auto& a : t.assignments) {
    const auto index = static_cast<size_t>(a.partition_index);
    if (a.partition_index < 0 || index >= nt.assignments.size() || !nt.assignments[index].empty()) {
      return Status(ErrorCode::INVALID_REPLICA_ASSIGNMENT,
                    fmt::format("partition {} of the assignment is out of order, repeated or "
                                "outside 0-{}",
                                a.partition_index, t.assignments.size() - 1));
    }
    nt.assignments[index] = a.broker_ids;
  }
  for (const auto& c : t.configs) {
    if (c.value) nt.configs[c.name] = *c.value;  // a null value means the default
  }
  return nt;
}

void describe_created(const RequestContext& ctx, const cluster::NewTopic& nt,
                      CreateTopicsResponse::CreatableTopicResult& out) {
  int32_t partitions = nt.partitions;
  int16_t rf = nt.replication_factor;
  cluster::NewTopic filled = nt;
  if (cluster::validate_new_topic(filled, ctx.broker->topic_admin->defaults()).ok()) {
    partitions = filled.partitions;
    rf = filled.replication_factor;
  }
  out.num_partitions = partitions;
  out.replication_factor = rf;
  const cluster::BrokerConfigSources sources = cluster::broker_config_sources(
      ctx.broker->metadata->image(), ctx.broker->static_settings, ctx.broker->config->node_id);
  out.configs.emplace();
  for (const auto& rc : cluster::resolve_topic_configs(nt.configs, sources)) {
    out.configs->push_back({rc.name, rc.value, false, static_cast<int8_t>(rc.source), false, {}});
  }
}

}  // namespace

// From this version a topic over the client's controller_mutation_rate is refused (KIP-599).
constexpr int16_t kStrictQuotaFromVersion = 6;

asio::awaitable<HandlerResult> handle_create_topics(RequestContext& ctx) {
  auto req = decode_body<CreateTopicsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  CreateTopicsResponse resp;
  std::set<std::string> seen;
  // Kafka: CREATE on the cluster allows every topic, else CREATE on each topic is needed.
  const bool create_any = authorized_on_cluster(ctx, AclOperation::create);
  for (const auto& t : req->topics) {
    auto& out = resp.topics.emplace_back();
    out.name = t.name;
    if (!seen.insert(t.name).second) {
      out.error_code = error_number(ErrorCode::INVALID_REQUEST);
      out.error_message = "the topic is listed more than once in the request";
      continue;
    }
    if (!create_any && !authorized(ctx, AclOperation::create, ResourceType::topic, t.name)) {
      out.error_code = error_number(ErrorCode::TOPIC_AUTHORIZATION_FAILED);
      out.error_message = topic_authorization_failed(t.name).message();
      continue;
    }
    auto parsed = new_topic(t);
    if (!parsed.ok()) {
      out.error_code = error_number(parsed.status().code());
      out.error_message = parsed.status().message();
      continue;
    }
    const cluster::NewTopic& nt = parsed.value();
    if (Status q = check_mutation_quota(ctx, ctx.api_version >= kStrictQuotaFromVersion); !q) {
      out.error_code = error_number(q.code());
      out.error_message = q.message();
      continue;
    }
    auto created = co_await ctx.broker->topic_admin->create_topic(nt, req->validate_only);
    if (!created.ok()) {
      out.error_code = error_number(created.status().code());
      out.error_message = created.status().message();
      continue;
    }
    if (!req->validate_only) {
      const auto* made = ctx.broker->metadata->image().topic(nt.name);
      record_mutation(ctx, made != nullptr ? static_cast<int64_t>(made->partitions.size()) : 0);
    }
    out.topic_id = created.value();
    if (ctx.api_version < 5) continue;
    // The created topic's configs are shown only to who may describe them.
    if (authorized(ctx, AclOperation::describe_configs, ResourceType::topic, t.name)) {
      describe_created(ctx, nt, out);
    } else {
      out.topic_config_error_code = error_number(ErrorCode::TOPIC_AUTHORIZATION_FAILED);
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
