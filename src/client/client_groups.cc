// Client's consumer-group calls. Group requests go to the group's coordinator (FindCoordinator,
// cached per group); route_to_coordinators() retries the groups whose coordinator moved, is
// loading or could not be reached, with a fresh lookup and a growing backoff. ListGroups is the
// exception: every broker coordinates some groups, so every broker is asked.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "client/client.h"
#include "client/client_group_calls.h"

namespace mirra::client {

using group_calls::by_topic;
using group_calls::group_status_of;
using group_calls::no_answer;

asio::awaitable<Result<std::shared_ptr<BrokerConnection>>> Client::coordinator_connection(
    const Coordinator& c) {
  auto it = connections_.find(c.node_id);
  if (it != connections_.end() && it->second->is_open()) co_return it->second;
  co_return co_await open(c.node_id, c.host, static_cast<uint16_t>(c.port));
}

asio::awaitable<Result<std::vector<Coordinator>>> Client::lookup_coordinators(
    std::vector<std::string> keys, CoordinatorType type) {
  auto conn = co_await any_connection();
  if (!conn.ok()) co_return conn.status();
  BrokerConnection& c = *conn.value();
  auto version = c.version_for(protocol::FindCoordinatorRequest::kApiKey);
  if (!version.ok()) co_return version.status();
  if (type != CoordinatorType::group && version.value() < 1) {
    co_return Status(ErrorCode::UNSUPPORTED_VERSION,
                     fmt::format("broker {} cannot find transaction coordinators "
                                 "(FindCoordinator v0)",
                                 c.address()));
  }
  const std::string_view kind = type == CoordinatorType::group ? "group " : "transactional id ";
  std::vector<Coordinator> out;
  for (const std::string& k : keys) out.push_back({k, Status::OK(), -1, "", 0});
  protocol::FindCoordinatorRequest req;
  req.key_type = static_cast<int8_t>(type);
  if (version.value() >= 4) {
    // KIP-699: one request for every key.
    req.coordinator_keys = keys;
    auto reply = co_await c.send(req);
    for (Coordinator& o : out) {
      o.status = reply.ok() ? no_answer("FindCoordinator", std::string(kind) + o.key, c)
                            : reply.status();
    }
    if (!reply.ok()) co_return out;
    for (const auto& r : reply->body.coordinators) {
      for (Coordinator& o : out) {
        if (o.key != r.key) continue;
        o = {r.key,
             status_from(r.error_code, r.error_message,
                         fmt::format("coordinator of {}{}", kind, r.key)),
             r.node_id, r.host, r.port};
      }
    }
    co_return out;
  }
  for (Coordinator& o : out) {
    req.key = o.key;
    auto reply = co_await c.send(req);
    if (!reply.ok()) {
      o.status = reply.status();
      continue;
    }
    const auto& r = reply->body;
    o.status =
        status_from(r.error_code, r.error_message, fmt::format("coordinator of {}{}", kind, o.key));
    o.node_id = r.node_id;
    o.host = r.host;
    o.port = r.port;
  }
  co_return out;
}

asio::awaitable<Result<std::vector<Coordinator>>> Client::find_coordinators(
    std::vector<std::string> groups) {
  std::vector<Coordinator> results(groups.size());
  auto send_group = [](const Coordinator& c, const std::vector<size_t>& indexes,
                       std::vector<Coordinator>& out) -> asio::awaitable<Status> {
    for (size_t i : indexes) out[i] = c;  // the lookup was the answer
    co_return Status::OK();
  };
  if (Status s = co_await route_to_coordinators(groups, results, send_group); !s.ok()) {
    co_return s;
  }
  for (size_t i = 0; i < groups.size(); ++i) results[i].key = groups[i];
  co_return results;
}

asio::awaitable<Result<Coordinator>> Client::find_coordinator(std::string group) {
  auto found = co_await find_coordinators(std::vector<std::string>(1, group));
  if (!found.ok()) co_return found.status();
  if (!found->front().status.ok()) co_return found->front().status;
  co_return found->front();
}

// ---- ListGroups -------------------------------------------------------------------------------

namespace {

// Whether a broker that cannot filter by type (ListGroups before v5) listed a group of one of
// `types`: its protocol type says it ("share" for share groups, "consumer" for consumer groups).
bool of_types(const GroupListing& g, const std::vector<std::string>& types) {
  return types.empty() || std::find(types.begin(), types.end(), g.protocol_type) != types.end();
}

// One broker's groups, or why it could not say.
asio::awaitable<Result<std::vector<GroupListing>>> list_groups_of(
    BrokerConnection& c, const std::vector<std::string>& states,
    const std::vector<std::string>& types) {
  auto version = c.version_for(protocol::ListGroupsRequest::kApiKey);
  if (!version.ok()) co_return version.status();
  if (!states.empty() && version.value() < 4) {
    co_return Status(ErrorCode::UNSUPPORTED_VERSION,
                     fmt::format("broker {} cannot filter groups by state (ListGroups v{}, "
                                 "filters need v4)",
                                 c.address(), version.value()));
  }
  protocol::ListGroupsRequest req;
  req.states_filter = states;
  if (version.value() >= 5) req.types_filter = types;
  auto reply = co_await c.send(req);
  if (!reply.ok()) co_return reply.status();
  Status s = status_from(reply->body.error_code, std::nullopt, "list groups of " + c.address());
  if (!s.ok()) co_return s;
  std::vector<GroupListing> out;
  for (const auto& g : reply->body.groups) {
    GroupListing listing{g.group_id, g.protocol_type, g.group_state, g.group_type};
    if (reply->version >= 5 || of_types(listing, types)) out.push_back(std::move(listing));
  }
  co_return out;
}

}  // namespace

asio::awaitable<Result<GroupListings>> Client::list_groups(std::vector<std::string> states,
                                                           std::vector<std::string> types) {
  auto md = co_await metadata(std::vector<std::string>{});  // the brokers
  if (!md.ok()) co_return md.status();
  std::map<std::string, GroupListing> seen;  // a group moving between brokers is listed once
  GroupListings out;
  for (const BrokerInfo& b : md->brokers) {
    auto listed = co_await ask_broker<std::vector<GroupListing>>(
        b.node_id,
        [&states, &types](BrokerConnection& c) { return list_groups_of(c, states, types); });
    if (!listed.ok()) {
      out.errors.push_back(listed.status());
      continue;
    }
    for (GroupListing& g : listed.value()) seen.emplace(g.group_id, std::move(g));
  }
  for (auto& entry : seen) out.groups.push_back(std::move(entry.second));
  co_return out;
}

// ---- DescribeGroups, DeleteGroups -------------------------------------------------------------

asio::awaitable<Result<std::vector<GroupDescription>>> Client::describe_groups(
    std::vector<std::string> groups) {
  std::vector<GroupDescription> results(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) results[i].group_id = groups[i];
  auto send_group = [](BrokerConnection& conn, const Coordinator& c,
                       const std::vector<size_t>& indexes,
                       std::vector<GroupDescription>& out) -> asio::awaitable<Status> {
    protocol::DescribeGroupsRequest req;
    for (size_t i : indexes) req.groups.push_back(out[i].group_id);
    auto reply = co_await conn.send(req);
    if (!reply.ok()) co_return reply.status();
    for (size_t i : indexes) {
      GroupDescription& d = out[i];
      d.status = no_answer("DescribeGroups", "group " + d.group_id, conn);
      for (const auto& g : reply->body.groups) {
        if (g.group_id != d.group_id) continue;
        d.status = status_from(g.error_code, std::nullopt, "group " + d.group_id);
        d.state = g.group_state;
        d.protocol_type = g.protocol_type;
        d.protocol = g.protocol_data;
        d.coordinator = c;
        d.members.clear();
        for (const auto& m : g.members) {
          d.members.push_back({m.member_id, m.group_instance_id, m.client_id, m.client_host,
                               m.member_metadata, m.member_assignment});
        }
      }
    }
    co_return Status::OK();
  };
  if (Status s = co_await route_to_coordinators(groups, results, send_group); !s.ok()) {
    co_return s;
  }
  co_return results;
}

asio::awaitable<Result<std::vector<GroupResult>>> Client::delete_groups(
    std::vector<std::string> groups) {
  std::vector<GroupResult> results(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) results[i].group_id = groups[i];
  auto send_group = [](BrokerConnection& conn, const Coordinator&,
                       const std::vector<size_t>& indexes,
                       std::vector<GroupResult>& out) -> asio::awaitable<Status> {
    protocol::DeleteGroupsRequest req;
    for (size_t i : indexes) req.groups_names.push_back(out[i].group_id);
    auto reply = co_await conn.send(req);
    if (!reply.ok()) co_return reply.status();
    for (size_t i : indexes) {
      GroupResult& r = out[i];
      r.status = no_answer("DeleteGroups", "group " + r.group_id, conn);
      for (const auto& g : reply->body.results) {
        if (g.group_id == r.group_id) {
          r.status = status_from(g.error_code, std::nullopt, "group " + r.group_id);
        }
      }
    }
    co_return Status::OK();
  };
  if (Status s = co_await route_to_coordinators(groups, results, send_group); !s.ok()) {
    co_return s;
  }
  co_return results;
}

// ---- OffsetFetch ------------------------------------------------------------------------------

namespace {

protocol::OffsetFetchRequest offset_fetch_request(
    const std::string& group, const std::optional<std::vector<TopicPartition>>& partitions) {
  using Req = protocol::OffsetFetchRequest;
  Req req;
  req.group_id = group;                                         // v1-7
  Req::OffsetFetchRequestGroup& g = req.groups.emplace_back();  // v8+
  g.group_id = group;
  if (!partitions) {
    req.topics = std::nullopt;  // null: every partition with an offset
    g.topics = std::nullopt;
    return req;
  }
  for (auto& [topic, indexes] : by_topic(*partitions)) {
    req.topics->push_back({topic, indexes, {}});
    g.topics->push_back({topic, indexes, {}});
  }
  return req;
}

// v8+ only (KIP-709): several groups, each asking for the same partitions.
protocol::OffsetFetchRequest multi_group_request(
    const std::vector<std::string>& groups,
    const std::optional<std::vector<TopicPartition>>& partitions) {
  using Req = protocol::OffsetFetchRequest;
  std::optional<std::vector<Req::OffsetFetchRequestTopics>> topics;
  if (partitions) {
    topics.emplace();
    for (auto& [topic, indexes] : by_topic(*partitions)) topics->push_back({topic, indexes, {}});
  }
  Req req;
  for (const std::string& group : groups) {
    Req::OffsetFetchRequestGroup& g = req.groups.emplace_back();
    g.group_id = group;
    g.topics = topics;
  }
  return req;
}

// The group's offsets out of a response of either layout (v8+: per group).
Status read_offsets(const protocol::OffsetFetchResponse& r, int16_t version,
                    const std::string& group, const BrokerConnection& conn,
                    std::vector<CommittedOffset>& out) {
  auto add = [&out](const std::string& topic, const auto& p) {
    out.push_back({{topic, p.partition_index},
                   status_from(p.error_code, std::nullopt,
                               "offset of " + topic + "-" + std::to_string(p.partition_index)),
                   p.committed_offset,
                   p.committed_leader_epoch,
                   p.metadata});
  };
  if (version < 8) {
    for (const auto& t : r.topics) {
      for (const auto& p : t.partitions) add(t.name, p);
    }
    return status_from(r.error_code, std::nullopt, "offsets of group " + group);
  }
  for (const auto& g : r.groups) {
    if (g.group_id != group) continue;
    for (const auto& t : g.topics) {
      for (const auto& p : t.partitions) add(t.name, p);
    }
    return status_from(g.error_code, std::nullopt, "offsets of group " + group);
  }
  return no_answer("OffsetFetch", "group " + group, conn);
}

// One group's answer read into `out`: its status is the group-level error, or a coordinator
// error its partitions carry (so that the routing retries it).
void read_group(const protocol::OffsetFetchResponse& r, int16_t version,
                const BrokerConnection& conn, GroupOffsets& out) {
  out.offsets.clear();
  out.status = read_offsets(r, version, out.group_id, conn, out.offsets);
  if (out.status.ok()) out.status = group_status_of(out.offsets);
}

// The offsets sorted, then (when partitions were named) in the caller's order, a partition the
// broker left out having no committed offset.
std::vector<CommittedOffset> in_caller_order(
    std::vector<CommittedOffset> got, const std::optional<std::vector<TopicPartition>>& asked) {
  return group_calls::in_caller_order(std::move(got), asked, [](const TopicPartition& tp) {
    return CommittedOffset{tp, Status::OK(), -1, -1, std::nullopt};
  });
}

// The groups at `indexes`, all coordinated by the broker of `conn`: one request per group
// before v8, one per kGroupsPerOffsetFetch groups from v8.
asio::awaitable<Status> fetch_group_offsets(
    BrokerConnection& conn, const std::vector<size_t>& indexes,
    const std::optional<std::vector<TopicPartition>>& partitions, std::vector<GroupOffsets>& out) {
  auto version = conn.version_for(protocol::OffsetFetchRequest::kApiKey);
  if (!version.ok()) co_return version.status();
  if (version.value() < 8) {
    for (size_t i : indexes) {
      auto reply = co_await conn.send(offset_fetch_request(out[i].group_id, partitions));
      if (!reply.ok()) co_return reply.status();
      read_group(reply->body, reply->version, conn, out[i]);
    }
    co_return Status::OK();
  }
  for (size_t from = 0; from < indexes.size(); from += Client::kGroupsPerOffsetFetch) {
    const size_t to = std::min(indexes.size(), from + Client::kGroupsPerOffsetFetch);
    std::vector<std::string> names;
    for (size_t k = from; k < to; ++k) names.push_back(out[indexes[k]].group_id);
    auto reply = co_await conn.send(multi_group_request(names, partitions));
    if (!reply.ok()) co_return reply.status();
    for (size_t k = from; k < to; ++k) {
      read_group(reply->body, reply->version, conn, out[indexes[k]]);
    }
  }
  co_return Status::OK();
}

}  // namespace

asio::awaitable<Result<std::vector<CommittedOffset>>> Client::offset_fetch(
    std::string group, std::optional<std::vector<TopicPartition>> partitions) {
  using Outcome = group_calls::GroupOutcome<std::vector<CommittedOffset>>;
  auto ask = [&group, &partitions](BrokerConnection& conn,
                                   Outcome& out) -> asio::awaitable<Status> {
    auto reply = co_await conn.send(offset_fetch_request(group, partitions));
    if (!reply.ok()) co_return reply.status();
    out.value.clear();
    out.status = read_offsets(reply->body, reply->version, group, conn, out.value);
    if (out.status.ok()) out.status = group_status_of(out.value);
    co_return Status::OK();
  };
  auto fetched = co_await call_group_coordinator<std::vector<CommittedOffset>>(group, ask);
  if (!fetched.ok()) co_return fetched.status();
  co_return in_caller_order(std::move(fetched.value()), partitions);
}

asio::awaitable<Result<std::vector<GroupOffsets>>> Client::offset_fetch_groups(
    std::vector<std::string> groups, std::optional<std::vector<TopicPartition>> partitions) {
  std::vector<GroupOffsets> results(groups.size());
  for (size_t i = 0; i < groups.size(); ++i) results[i].group_id = groups[i];
  auto send_group = [&partitions](BrokerConnection& conn, const Coordinator&,
                                  const std::vector<size_t>& indexes,
                                  std::vector<GroupOffsets>& out) -> asio::awaitable<Status> {
    co_return co_await fetch_group_offsets(conn, indexes, partitions, out);
  };
  if (Status s = co_await route_to_coordinators(groups, results, send_group); !s.ok()) {
    co_return s;
  }
  for (GroupOffsets& g : results) {
    if (g.status.ok()) g.offsets = in_caller_order(std::move(g.offsets), partitions);
  }
  co_return results;
}

// ---- OffsetCommit, OffsetDelete ---------------------------------------------------------------

namespace {

using group_calls::partition_outcomes;

protocol::OffsetCommitRequest offset_commit_request(const std::string& group,
                                                    const std::vector<OffsetToCommit>& offsets) {
  using Req = protocol::OffsetCommitRequest;
  Req req;
  req.group_id = group;
  req.generation_id_or_member_epoch = -1;  // an admin commit: no generation, no member
  req.member_id = "";
  req.retention_time_ms = -1;  // the broker's offsets.retention.minutes
  std::map<std::string, std::vector<Req::OffsetCommitRequestPartition>> topics;
  for (const OffsetToCommit& o : offsets) {
    Req::OffsetCommitRequestPartition p;
    p.partition_index = o.tp.partition;
    p.committed_offset = o.offset;
    p.committed_leader_epoch = o.leader_epoch;
    p.committed_metadata = o.metadata.value_or("");
    topics[o.tp.topic].push_back(std::move(p));
  }
  for (auto& entry : topics) {
    Req::OffsetCommitRequestTopic& t = req.topics.emplace_back();
    t.name = entry.first;
    t.partitions = std::move(entry.second);
  }
  return req;
}

}  // namespace

asio::awaitable<Result<std::vector<PartitionStatus>>> Client::offset_commit(
    std::string group, std::vector<OffsetToCommit> offsets) {
  using Outcome = group_calls::GroupOutcome<std::vector<PartitionStatus>>;
  std::vector<TopicPartition> asked;
  for (const OffsetToCommit& o : offsets) asked.push_back(o.tp);
  auto ask = [&](BrokerConnection& conn, Outcome& out) -> asio::awaitable<Status> {
    auto reply = co_await conn.send(offset_commit_request(group, offsets));
    if (!reply.ok()) co_return reply.status();
    out.value = partition_outcomes(asked, reply->body.topics, "OffsetCommit", conn);
    // Coordinator errors come per partition; committing everything again is harmless.
    out.status = group_status_of(out.value);
    co_return Status::OK();
  };
  co_return co_await call_group_coordinator<std::vector<PartitionStatus>>(group, ask);
}

asio::awaitable<Result<std::vector<PartitionStatus>>> Client::offset_delete(
    std::string group, std::vector<TopicPartition> partitions) {
  using Outcome = group_calls::GroupOutcome<std::vector<PartitionStatus>>;
  auto ask = [&](BrokerConnection& conn, Outcome& out) -> asio::awaitable<Status> {
    protocol::OffsetDeleteRequest req;
    req.group_id = group;
    for (auto& [topic, indexes] : by_topic(partitions)) {
      auto& t = req.topics.emplace_back();
      t.name = topic;
      for (int32_t p : indexes) t.partitions.push_back({p, {}});
    }
    auto reply = co_await conn.send(req);
    if (!reply.ok()) co_return reply.status();
    out.status = status_from(reply->body.error_code, std::nullopt, "group " + group);
    if (out.status.ok()) {
      out.value = partition_outcomes(partitions, reply->body.topics, "OffsetDelete", conn);
    }
    co_return Status::OK();
  };
  co_return co_await call_group_coordinator<std::vector<PartitionStatus>>(group, ask);
}

}  // namespace mirra::client
