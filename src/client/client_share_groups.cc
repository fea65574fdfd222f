// Client's share-group calls (KIP-932; docs/share-groups-design.md "What clients see"). They go
// to the group's coordinator exactly as the consumer-group calls do (FindCoordinator key type 0,
// route_to_coordinators() and call_group_coordinator() of client_group_calls.h), since one group
// namespace holds groups of every type. Listing share groups is list_groups() with the type
// filter (client_groups.cc).
#include <fmt/format.h>

#include "client/client.h"
#include "client/client_group_calls.h"

namespace mirra::client {

using group_calls::group_status_of;
using group_calls::no_answer;

namespace {

// ---- DescribeShareGroupOffsets ----------------------------------------------------------------

protocol::DescribeShareGroupOffsetsRequest describe_offsets_request(
    const std::vector<size_t>& indexes, const std::vector<ShareGroupOffsets>& groups,
    const std::optional<std::vector<TopicPartition>>& partitions) {
  using Req = protocol::DescribeShareGroupOffsetsRequest;
  std::optional<std::vector<Req::DescribeShareGroupOffsetsRequestTopic>> topics;  // null: all
  if (partitions) {
    topics.emplace();
    for (auto& [topic, indexes_of] : group_calls::by_topic(*partitions)) {
      topics->push_back({topic, indexes_of, {}});
    }
  }
  Req req;
  for (size_t i : indexes) req.groups.push_back({groups[i].group_id, topics, {}});
  return req;
}

// One group's answer read into `out`: its status is the group-level error, or a coordinator
// error its partitions carry (so that the routing retries it).
void read_share_offsets(const protocol::DescribeShareGroupOffsetsResponse& r,
                        const BrokerConnection& conn, ShareGroupOffsets& out) {
  out.offsets.clear();
  out.status = no_answer("DescribeShareGroupOffsets", "group " + out.group_id, conn);
  for (const auto& g : r.groups) {
    if (g.group_id != out.group_id) continue;
    out.status = status_from(g.error_code, g.error_message, "share group " + out.group_id);
    for (const auto& t : g.topics) {
      for (const auto& p : t.partitions) {
        const TopicPartition tp{t.topic_name, p.partition_index};
        out.offsets.push_back(
            {tp, status_from(p.error_code, p.error_message, "start offset of " + to_string(tp)),
             p.start_offset, p.leader_epoch, p.lag});
      }
    }
  }
  if (out.status.ok()) out.status = group_status_of(out.offsets);
}

}  // namespace

asio::awaitable<Result<std::vector<ShareGroupOffsets>>> Client::share_group_offsets(
    std::vector<std::string> groups, std::optional<std::vector<TopicPartition>> partitions) {
  std::vector<ShareGroupOffsets> results(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) results[i].group_id = groups[i];
  // One request per coordinator for every group it has (the API takes many groups).
  auto send_group = [&partitions](BrokerConnection& conn, const Coordinator&,
                                  const std::vector<size_t>& indexes,
                                  std::vector<ShareGroupOffsets>& out) -> asio::awaitable<Status> {
    auto reply = co_await conn.send(describe_offsets_request(indexes, out, partitions));
    if (!reply.ok()) co_return reply.status();
    for (size_t i : indexes) read_share_offsets(reply->body, conn, out[i]);
    co_return Status::OK();
  };
  if (Status s = co_await route_to_coordinators(groups, results, send_group); !s.ok()) {
    co_return s;
  }
  for (ShareGroupOffsets& g : results) {
    if (!g.status.ok()) continue;
    // A partition the group holds no state for: start offset -1, as ShareGroupOffset says.
    g.offsets = group_calls::in_caller_order(
        std::move(g.offsets), partitions, [](const TopicPartition& tp) {
          return ShareGroupOffset{tp, Status::OK(), -1, -1, -1};
        });
  }
  co_return results;
}

// ---- AlterShareGroupOffsets, DeleteShareGroupOffsets ------------------------------------------

asio::awaitable<Result<std::vector<PartitionStatus>>> Client::alter_share_group_offsets(
    std::string group, std::vector<ShareGroupOffset> offsets) {
  using Outcome = group_calls::GroupOutcome<std::vector<PartitionStatus>>;
  std::vector<TopicPartition> asked;
  for (const ShareGroupOffset& o : offsets) asked.push_back(o.tp);
  protocol::AlterShareGroupOffsetsRequest req;
  req.group_id = group;
  for (auto& [topic, indexes] : group_calls::by_topic(asked)) {
    req.topics.push_back({topic, {}, {}});
  }
  for (const ShareGroupOffset& o : offsets) {
    for (auto& t : req.topics) {
      if (t.topic_name == o.tp.topic) t.partitions.push_back({o.tp.partition, o.start_offset, {}});
    }
  }
  auto ask = [&](BrokerConnection& conn, Outcome& out) -> asio::awaitable<Status> {
    auto reply = co_await conn.send(req);
    if (!reply.ok()) co_return reply.status();
    const auto& r = reply->body;
    out.status = status_from(r.error_code, r.error_message, "share group " + group);
    if (!out.status.ok()) co_return Status::OK();
    out.value = group_calls::partition_outcomes(asked, r.responses, "AlterShareGroupOffsets", conn);
    out.status = group_status_of(out.value);
    co_return Status::OK();
  };
  co_return co_await call_group_coordinator<std::vector<PartitionStatus>>(group, ask);
}

asio::awaitable<Result<std::vector<TopicResult>>> Client::delete_share_group_offsets(
    std::string group, std::vector<std::string> topics) {
  using Outcome = group_calls::GroupOutcome<std::vector<TopicResult>>;
  protocol::DeleteShareGroupOffsetsRequest req;
  req.group_id = group;
  for (const std::string& t : topics) req.topics.push_back({t, {}});
  auto ask = [&](BrokerConnection& conn, Outcome& out) -> asio::awaitable<Status> {
    auto reply = co_await conn.send(req);
    if (!reply.ok()) co_return reply.status();
    const auto& r = reply->body;
    out.status = status_from(r.error_code, r.error_message, "share group " + group);
    if (!out.status.ok()) co_return Status::OK();
    out.value.clear();
    for (const std::string& topic : topics) {
      TopicResult& result = out.value.emplace_back();
      result.name = topic;
      result.status = no_answer("DeleteShareGroupOffsets", "topic " + topic, conn);
      for (const auto& t : r.responses) {
        if (t.topic_name != topic) continue;
        result.status = status_from(t.error_code, t.error_message, "topic " + topic);
        result.id = t.topic_id;
      }
    }
    out.status = group_status_of(out.value);
    co_return Status::OK();
  };
  co_return co_await call_group_coordinator<std::vector<TopicResult>>(group, ask);
}

// ---- ShareGroupDescribe -----------------------------------------------------------------------

namespace {

ShareGroupMember member_of(const protocol::ShareGroupDescribeResponse::Member& m) {
  ShareGroupMember out{m.member_id, m.rack_id,     m.member_epoch,
                       m.client_id, m.client_host, m.subscribed_topic_names,
                       {}};
  for (const auto& t : m.assignment.topic_partitions) {
    for (int32_t p : t.partitions) out.assignment.push_back({t.topic_name, p});
  }
  std::sort(out.assignment.begin(), out.assignment.end());
  return out;
}

void read_description(const protocol::ShareGroupDescribeResponse& r, const Coordinator& c,
                      const BrokerConnection& conn, ShareGroupDescription& d) {
  d.status = no_answer("ShareGroupDescribe", "group " + d.group_id, conn);
  for (const auto& g : r.groups) {
    if (g.group_id != d.group_id) continue;
    d.status = status_from(g.error_code, g.error_message, "share group " + d.group_id);
    d.state = g.group_state;
    d.group_epoch = g.group_epoch;
    d.assignment_epoch = g.assignment_epoch;
    d.assignor = g.assignor_name;
    d.coordinator = c;
    d.members.clear();
    for (const auto& m : g.members) d.members.push_back(member_of(m));
  }
}

}  // namespace

asio::awaitable<Result<std::vector<ShareGroupDescription>>> Client::describe_share_groups(
    std::vector<std::string> groups) {
  std::vector<ShareGroupDescription> results(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) results[i].group_id = groups[i];
  auto send_group = [](BrokerConnection& conn, const Coordinator& c,
                       const std::vector<size_t>& indexes,
                       std::vector<ShareGroupDescription>& out) -> asio::awaitable<Status> {
    protocol::ShareGroupDescribeRequest req;
    for (size_t i : indexes) req.group_ids.push_back(out[i].group_id);
    auto reply = co_await conn.send(req);
    if (!reply.ok()) co_return reply.status();
    for (size_t i : indexes) read_description(reply->body, c, conn, out[i]);
    co_return Status::OK();
  };
  if (Status s = co_await route_to_coordinators(groups, results, send_group); !s.ok()) {
    co_return s;
  }
  co_return results;
}

}  // namespace mirra::client
