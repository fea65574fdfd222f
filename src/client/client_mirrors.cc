// Client's calls of Mirra's mirror admin RPCs (MIRRORING.md §7). They go to the controller,
// which owns the metadata the mirrors live in; NOT_CONTROLLER is followed as for topics.
#include <fmt/format.h>

#include "client/client.h"
#include "client/client_routing.h"

namespace mirra::client {
namespace {

template <typename Resp>
bool not_controller(const Resp& r) {
  return error_from_number(r.error_code) == ErrorCode::NOT_CONTROLLER;
}

}  // namespace

asio::awaitable<Status> Client::create_mirror(
    std::string name, std::vector<std::pair<std::string, std::string>> configs,
    bool validate_only) {
  protocol::CreateMirrorRequest req;
  req.mirror_name = name;
  req.validate_only = validate_only;
  for (auto& [key, value] : configs) {
    auto& c = req.configs.emplace_back();
    c.name = key;
    c.value = value;
  }
  auto reply = co_await send_admin(req, true, not_controller<protocol::CreateMirrorResponse>);
  if (!reply.ok()) co_return reply.status();
  co_return status_from(reply->body.error_code, reply->body.error_message, "create mirror " + name);
}

asio::awaitable<Status> Client::delete_mirror(std::string name) {
  protocol::DeleteMirrorRequest req;
  req.mirror_name = name;
  auto reply = co_await send_admin(req, true, not_controller<protocol::DeleteMirrorResponse>);
  if (!reply.ok()) co_return reply.status();
  co_return status_from(reply->body.error_code, reply->body.error_message, "delete mirror " + name);
}

asio::awaitable<Result<std::vector<MirrorListing>>> Client::list_mirrors(
    bool include_topics, std::optional<std::vector<std::string>> topic_names) {
  protocol::ListMirrorsRequest req;
  req.include_topics = include_topics;
  req.topic_names = std::move(topic_names);
  auto reply = co_await send_admin(req, true, not_controller<protocol::ListMirrorsResponse>);
  if (!reply.ok()) co_return reply.status();
  const auto& r = reply->body;
  if (Status s = status_from(r.error_code, r.error_message, "list mirrors"); !s.ok()) co_return s;
  std::vector<MirrorListing> out;
  for (const auto& m : r.mirrors) {
    MirrorListing& l = out.emplace_back();
    l.name = m.name;
    l.source_bootstrap_servers = m.source_bootstrap_servers;
    l.source_cluster_id = m.source_cluster_id;
    l.topic_count = m.topic_count;
    for (const auto& t : m.topics) l.topics.push_back({t.name, t.topic_id, t.state});
  }
  co_return out;
}

}  // namespace mirra::client
