// Client's calls of Mirra's mirror admin RPCs (docs/mirroring-design.md §7). They go to the
// controller, which owns the metadata the mirrors live in; NOT_CONTROLLER is followed as for
// topics.
#include <type_traits>

#include <fmt/format.h>

#include "client/client.h"
#include "client/client_routing.h"
#include "client/mirror_descriptions.h"

namespace mirra::client {
namespace {

template <typename Resp>
bool not_controller(const Resp& r) {
  return error_from_number(r.error_code) == ErrorCode::NOT_CONTROLLER;
}

// A sync error as the broker worded it, with no prefix: describe shows it next to its kind or
// group.
Status sync_status(int16_t code, const std::optional<std::string>& message) {
  const ErrorCode ec = error_from_number(code);
  if (ec == ErrorCode::NONE) return Status::OK();
  return Status(ec, message && !message->empty() ? *message : std::string(error_message(ec)));
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

namespace {

// The per-topic answers of AddTopicsToMirror and RemoveTopicsFromMirror.
template <typename Resp>
Result<std::vector<MirrorTopicResult>> topic_results(const Resp& r, const std::string& mirror) {
  if (Status s = status_from(r.error_code, r.error_message, "mirror " + mirror); !s.ok()) return s;
  std::vector<MirrorTopicResult> out;
  for (const auto& t : r.topics) {
    MirrorTopicResult& o = out.emplace_back();
    o.name = t.name;
    o.id = t.topic_id;
    o.status = status_from(t.error_code, t.error_message, "topic " + t.name);
    if constexpr (std::is_same_v<Resp, protocol::RemoveTopicsFromMirrorResponse>) {
      for (const auto& p : t.partitions) {
        o.stops.push_back({p.partition_index, p.last_mirrored_offset, p.discarded_records});
      }
    }
    if constexpr (std::is_same_v<Resp, protocol::AddTopicsToMirrorResponse>) {
      for (const auto& p : t.partitions) {
        o.restarts.push_back({p.partition_index, p.truncated_to_offset, p.discarded_records});
      }
    }
  }
  return out;
}

template <typename Req>
Req topics_request(std::string mirror, std::vector<std::string> names,
                   std::vector<std::string> patterns) {
  Req req;
  req.mirror_name = std::move(mirror);
  req.topic_names = std::move(names);
  req.topic_patterns = std::move(patterns);
  return req;
}

}  // namespace

template <typename Req>
asio::awaitable<Result<std::vector<MirrorTopicResult>>> Client::mirror_topics_call(
    std::string mirror, std::vector<std::string> names, std::vector<std::string> patterns) {
  using Resp = response_t<Req>;
  auto req = topics_request<Req>(mirror, std::move(names), std::move(patterns));
  auto reply = co_await send_admin(req, true, not_controller<Resp>);
  if (!reply.ok()) co_return reply.status();
  co_return topic_results(reply->body, mirror);
}

asio::awaitable<Result<std::vector<MirrorTopicResult>>> Client::add_topics_to_mirror(
    std::string mirror, std::vector<std::string> names, std::vector<std::string> patterns) {
  return mirror_topics_call<protocol::AddTopicsToMirrorRequest>(std::move(mirror), std::move(names),
                                                                std::move(patterns));
}

asio::awaitable<Result<std::vector<MirrorTopicResult>>> Client::remove_topics_from_mirror(
    std::string mirror, std::vector<std::string> names, std::vector<std::string> patterns) {
  return mirror_topics_call<protocol::RemoveTopicsFromMirrorRequest>(
      std::move(mirror), std::move(names), std::move(patterns));
}

asio::awaitable<Result<std::vector<MirrorTopicResult>>> Client::pause_mirror_topics(
    std::string mirror, std::vector<std::string> names, std::vector<std::string> patterns) {
  return mirror_topics_call<protocol::PauseMirrorTopicsRequest>(std::move(mirror), std::move(names),
                                                                std::move(patterns));
}

asio::awaitable<Result<std::vector<MirrorTopicResult>>> Client::resume_mirror_topics(
    std::string mirror, std::vector<std::string> names, std::vector<std::string> patterns) {
  return mirror_topics_call<protocol::ResumeMirrorTopicsRequest>(
      std::move(mirror), std::move(names), std::move(patterns));
}

asio::awaitable<Result<std::vector<int64_t>>> Client::last_mirrored_offsets(
    std::string requester_cluster_id, Uuid topic, std::vector<int32_t> partitions) {
  protocol::LastMirroredOffsetsRequest req;
  req.source_cluster_id = requester_cluster_id;
  auto& t = req.topics.emplace_back();
  t.topic_id = topic;
  t.partitions = partitions;
  auto reply =
      co_await send_admin(req, true, not_controller<protocol::LastMirroredOffsetsResponse>);
  if (!reply.ok()) co_return reply.status();
  const auto& r = reply->body;
  if (Status s = status_from(r.error_code, std::nullopt, "last mirrored offsets"); !s.ok()) {
    co_return s;
  }
  std::vector<int64_t> out(partitions.size(), -1);
  for (const auto& rt : r.topics) {
    if (rt.topic_id != topic) continue;
    for (const auto& p : rt.partitions) {
      for (size_t i = 0; i < partitions.size(); ++i) {
        if (partitions[i] == p.partition_index && p.error_code == 0) {
          out[i] = p.last_mirrored_offset;
        }
      }
    }
  }
  co_return out;
}

std::vector<MirrorDescription> mirror_descriptions(const protocol::DescribeMirrorsResponse& r) {
  std::vector<MirrorDescription> out;
  for (const auto& m : r.mirrors) {
    MirrorDescription& d = out.emplace_back();
    d.name = m.name;
    d.status = status_from(m.error_code, m.error_message, "mirror " + m.name);
    d.source_bootstrap_servers = m.source_bootstrap_servers;
    d.source_cluster_id = m.source_cluster_id;
    for (const auto& t : m.topics) {
      MirrorTopicDescription& td = d.topics.emplace_back();
      td.name = t.name;
      td.id = t.topic_id;
      for (const auto& p : t.partitions) {
        td.partitions.push_back(
            {p.partition_index, p.state, p.source_log_start_offset, p.source_high_watermark,
             p.destination_log_end_offset, p.lag, p.last_mirrored_offset, p.retry_count,
             status_from(p.last_error_code, p.last_error,
                         "partition " + std::to_string(p.partition_index)),
             p.lag_ms, p.bytes_per_second, p.records_per_second, p.fetch_latency_ms});
      }
    }
    for (const auto& k : m.sync_kinds) {
      d.sync_kinds.push_back({k.kind, k.runs, k.failures, k.last_run_ms, k.last_success_ms,
                              k.last_error_ms, k.last_duration_us, k.looked_at, k.changed,
                              k.changed_total, sync_status(k.last_error_code, k.last_error)});
    }
    for (const auto& g : m.sync_groups) {
      d.sync_groups.push_back({g.group_id, sync_status(g.error_code, g.error_message),
                               g.active_on_destination, g.last_synced_ms, g.offsets_committed,
                               g.kind});
    }
    d.throttled_rate = m.throttled_rate;
    d.destination_throttled_ms = m.destination_throttled_ms;
    d.source_throttled_ms = m.source_throttled_ms;
  }
  return out;
}

asio::awaitable<Result<std::vector<MirrorDescription>>> Client::describe_mirrors(
    std::optional<std::vector<std::string>> names) {
  protocol::DescribeMirrorsRequest req;
  req.mirror_names = std::move(names);
  auto reply = co_await send_admin(req, true, not_controller<protocol::DescribeMirrorsResponse>);
  if (!reply.ok()) co_return reply.status();
  const auto& r = reply->body;
  if (Status s = status_from(r.error_code, std::nullopt, "describe mirrors"); !s.ok()) co_return s;
  co_return mirror_descriptions(r);
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
