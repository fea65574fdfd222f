// PauseMirrorTopics (key 102) and ResumeMirrorTopics (key 103), docs/mirroring-design.md §3, §7: a
// paused partition is not fetched and stays read-only; resume continues from the local log end and
// recovers FAILED partitions.
#include "protocol/messages/pause_mirror_topics.h"
#include "protocol/messages/resume_mirror_topics.h"

#include "mirror/mirror_manager.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

template <typename Resp>
Resp topic_outcomes(const Result<std::vector<mirror::MirrorTopicOutcome>>& outcomes) {
  Resp resp;
  if (!outcomes.ok()) {
    resp.error_code = error_number(outcomes.status().code());
    resp.error_message = outcomes.status().message();
    return resp;
  }
  for (const mirror::MirrorTopicOutcome& t : outcomes.value()) {
    auto& out = resp.topics.emplace_back();
    out.name = t.name;
    out.topic_id = t.id;
    out.error_code = error_number(t.status.code());
    if (!t.status.ok()) out.error_message = t.status.message();
  }
  return resp;
}

using TopicsAction = asio::awaitable<Result<std::vector<mirror::MirrorTopicOutcome>>> (
    mirror::MirrorManager::*)(const std::string&, const std::vector<std::string>&,
                              const std::vector<std::string>&);

// Both requests name a mirror, topics and patterns, and answer per topic.
template <typename Req, typename Resp>
asio::awaitable<HandlerResult> handle_topics_action(RequestContext& ctx, TopicsAction action) {
  auto req = decode_body<Req>(ctx);
  if (!req.ok()) co_return req.status();
  if (auto refused = refuse_unless_on_cluster<Resp>(ctx, AclOperation::cluster_action)) {
    co_return respond(ctx, *refused);
  }
  auto outcomes = co_await (ctx.broker->mirror_manager->*action)(req->mirror_name, req->topic_names,
                                                                 req->topic_patterns);
  co_return respond(ctx, topic_outcomes<Resp>(outcomes));
}

}  // namespace

asio::awaitable<HandlerResult> handle_pause_mirror_topics(RequestContext& ctx) {
  return handle_topics_action<protocol::PauseMirrorTopicsRequest,
                              protocol::PauseMirrorTopicsResponse>(ctx,
                                                                   &mirror::MirrorManager::pause);
}

asio::awaitable<HandlerResult> handle_resume_mirror_topics(RequestContext& ctx) {
  return handle_topics_action<protocol::ResumeMirrorTopicsRequest,
                              protocol::ResumeMirrorTopicsResponse>(ctx,
                                                                    &mirror::MirrorManager::resume);
}

}  // namespace mirra::server
