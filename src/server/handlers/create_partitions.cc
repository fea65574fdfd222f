// CreatePartitions (key 37): grows topics. Explicit assignments must give one replica list per
// new partition, of the topic's replication factor, naming only this node (a single-node
// cluster has no other broker). validate_only checks without changing anything. Errors are
// per topic, with Kafka's codes and messages naming the topic.
#include "protocol/messages/create_partitions.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "cluster/metadata_store.h"
#include "cluster/topic_admin.h"
#include "server/client_quotas.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::CreatePartitionsRequest;
using protocol::CreatePartitionsResponse;

Status invalid_assignment(std::string message) {
  return Status(ErrorCode::INVALID_REPLICA_ASSIGNMENT, std::move(message));
}

Status check_assignments(const RequestContext& ctx,
                         const CreatePartitionsRequest::CreatePartitionsTopic& t) {
  if (!t.assignments) return Status::OK();
  const metadata::TopicInfo* topic = ctx.broker->metadata->image().topic(t.name);
  if (topic == nullptr) return Status::OK();  // create_partitions names the missing topic
  const int64_t adding = static_cast<int64_t>(t.count) -
                         static_cast<int64_t>(topic->partitions.size());
  if (adding <= 0) return Status::OK();  // create_partitions explains why the count is wrong
  if (static_cast<int64_t>(t.assignments->size()) != adding) {
    return invalid_assignment(
        fmt::format("topic \"{}\": {} partition(s) would be added but {} assignment(s) were given",
                    t.name, adding, t.assignments->size()));
  }
  const size_t rf = topic->partitions.empty() ? 1 : topic->partitions.front().replicas.size();
  const int32_t node_id = ctx.broker->config->node_id;
  for (const auto& a : *t.assignments) {
    if (a.broker_ids.size() != rf) {
      return invalid_assignment(fmt::format(
          "topic \"{}\": an assignment lists {} replica(s), inconsistent with the topic's "
          "replication factor {}",
          t.name, a.broker_ids.size(), rf));
    }
    std::set<int32_t> seen;
    for (int32_t id : a.broker_ids) {
      if (id != node_id) {
        return invalid_assignment(fmt::format(
            "topic \"{}\": the assignment names broker {}, which does not exist (this cluster "
            "has only broker {})",
            t.name, id, node_id));
      }
      if (!seen.insert(id).second) {
        return invalid_assignment(
            fmt::format("topic \"{}\": an assignment lists broker {} twice", t.name, id));
      }
    }
  }
  return Status::OK();
}

}  // namespace

// From this version a topic over the client's controller_mutation_rate is refused (KIP-599).
constexpr int16_t kStrictQuotaFromVersion = 3;

asio::awaitable<HandlerResult> handle_create_partitions(RequestContext& ctx) {
  auto req = decode_body<CreatePartitionsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  std::map<std::string, int> count;
  for (const auto& t : req->topics) ++count[t.name];
  CreatePartitionsResponse resp;
  for (const auto& t : req->topics) {
    Status s = Status::OK();
    if (count[t.name] > 1) {
      s = Status(ErrorCode::INVALID_REQUEST,
                 fmt::format("topic \"{}\" is listed more than once in the request", t.name));
    } else if (!authorized(ctx, AclOperation::alter, ResourceType::topic, t.name)) {
      s = topic_authorization_failed(t.name);
    } else {
      // A mirror topic's partitions follow its source's (docs/mirroring-design.md §4, §8).
      s = check_writable(ctx, t.name, -1);
      if (s.ok()) s = check_assignments(ctx, t);
    }
    if (s.ok()) s = check_mutation_quota(ctx, ctx.api_version >= kStrictQuotaFromVersion);
    if (s.ok()) {
      const auto* topic = ctx.broker->metadata->image().topic(t.name);
      const int64_t before = topic != nullptr ? static_cast<int64_t>(topic->partitions.size()) : 0;
      s = co_await ctx.broker->topic_admin->create_partitions(t.name, t.count, req->validate_only);
      if (s.ok() && !req->validate_only) record_mutation(ctx, int64_t{t.count} - before);
    }
    resp.results.push_back({t.name, error_number(s.code()), error_message(s), {}});
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
