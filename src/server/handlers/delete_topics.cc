// DeleteTopics (key 20): by name (all versions) or by topic id (v6+). The topic's metadata is
// removed first, then its logs are closed and deleted in the background of the shard.
#include "protocol/messages/delete_topics.h"

#include "cluster/metadata_store.h"
#include "cluster/topic_admin.h"
#include "server/client_quotas.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {

using protocol::DeleteTopicsRequest;
using protocol::DeleteTopicsResponse;

// From this version a topic over the client's controller_mutation_rate is refused (KIP-599).
constexpr int16_t kStrictQuotaFromVersion = 5;

asio::awaitable<HandlerResult> handle_delete_topics(RequestContext& ctx) {
  auto req = decode_body<DeleteTopicsRequest>(ctx);
  if (!req.ok()) co_return req.status();
  // Before v6 the request lists names; from v6 each entry has a name or an id.
  std::vector<std::pair<std::optional<std::string>, Uuid>> wanted;
  for (const auto& name : req->topic_names) wanted.emplace_back(name, Uuid::zero());
  for (const auto& t : req->topics) wanted.emplace_back(t.name, t.topic_id);

  DeleteTopicsResponse resp;
  for (const auto& [name, id] : wanted) {
    auto& out = resp.responses.emplace_back();
    out.name = name;
    out.topic_id = id;
    const auto& image = ctx.broker->metadata->image();
    const metadata::TopicInfo* topic = name ? image.topic(*name) : image.topic(id);
    // By name the check comes before existence; by id, an unauthorized caller learns no name.
    const std::optional<std::string> checked = name    ? name
                                               : topic ? std::optional(topic->name)
                                                       : std::nullopt;
    if (checked && !authorized(ctx, AclOperation::del, ResourceType::topic, *checked)) {
      out.error_code = error_number(ErrorCode::TOPIC_AUTHORIZATION_FAILED);
      out.error_message = topic_authorization_failed(*checked).message();
      if (!name) out.name = std::nullopt;
      continue;
    }
    if (topic == nullptr || (name && !id.is_zero() && topic->id != id)) {
      const bool by_id = !name;
      out.error_code =
          error_number(by_id ? ErrorCode::UNKNOWN_TOPIC_ID : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
      out.error_message = by_id ? "no topic has this id" : "the topic does not exist";
      continue;
    }
    out.name = topic->name;
    out.topic_id = topic->id;
    const std::string topic_name = topic->name;  // `topic` dies with the change
    const auto partitions = static_cast<int64_t>(topic->partitions.size());
    Status s = check_mutation_quota(ctx, ctx.api_version >= kStrictQuotaFromVersion);
    if (s.ok()) s = co_await ctx.broker->topic_admin->delete_topic(topic_name);
    if (s.ok()) record_mutation(ctx, partitions);
    if (!s.ok()) {
      out.error_code = error_number(s.code());
      out.error_message = s.message();
    }
  }
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
