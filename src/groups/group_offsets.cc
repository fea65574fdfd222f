// Committed offsets (OffsetCommit, OffsetFetch, OffsetDelete, expiry) and the group admin
// calls (ListGroups, DescribeGroups, DeleteGroups).
#include <fmt/format.h>

#include <set>

#include "base/clock.h"
#include "base/log.h"
#include "base/log_limit.h"
#include "base/text.h"
#include "groups/commit_response.h"
#include "groups/consumer_protocol.h"
#include "groups/group_coordinator.h"

namespace mirra::groups {
namespace {

constexpr const char* kMirraLogComponent = "groups";

using protocol::OffsetCommitRequest;
using protocol::OffsetCommitResponse;

// Kafka's mapping of a failed __consumer_offsets append to what the committer is told.
ErrorCode commit_error(const Status& st) {
  switch (st.code()) {
    case ErrorCode::UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode::KAFKA_STORAGE_ERROR:
    case ErrorCode::COORDINATOR_NOT_AVAILABLE:
      return ErrorCode::COORDINATOR_NOT_AVAILABLE;
    case ErrorCode::MESSAGE_TOO_LARGE:
    case ErrorCode::RECORD_LIST_TOO_LARGE:
      return ErrorCode::INVALID_COMMIT_OFFSET_SIZE;
    default:
      return ErrorCode::UNKNOWN_SERVER_ERROR;
  }
}

// Topics the members of a consumer group subscribe to (from their JoinGroup metadata).
std::set<std::string> subscribed_topics(const Group& g) {
  std::set<std::string> out;
  if (g.protocol_type != kConsumerProtocolType || !g.protocol) return out;
  for (const auto& [id, m] : g.members) {
    const Bytes* md = m.metadata_for(*g.protocol);
    if (md == nullptr) continue;
    auto sub = decode_subscription(*md);
    if (sub.ok()) out.insert(sub->topics.begin(), sub->topics.end());
  }
  return out;
}

}  // namespace

asio::awaitable<OffsetCommitResponse> GroupCoordinator::commit(const OffsetCommitRequest& req,
                                                               int16_t version) {
  MIRRA_ASSERT_OWNER(owner_);
  OffsetCommitResponse r = commit_response<OffsetCommitResponse>(req);
  const int32_t generation = req.generation_id_or_member_epoch;
  if (Status st = check_available(req.group_id); !st) {
    fail_all(r, st.code());
    co_return r;
  }
  if (Status st = co_await topic_.ensure_created(); !st) {
    fail_all(r, ErrorCode::COORDINATOR_NOT_AVAILABLE);
    co_return r;
  }
  Group* g = groups_.count(req.group_id) != 0 ? &groups_[req.group_id] : nullptr;
  ErrorCode refusal = ErrorCode::NONE;
  if (is_share_group(req.group_id)) {
    refusal = ErrorCode::GROUP_ID_NOT_FOUND;  // Kafka: "Group X is not a consumer group."
  } else if (g == nullptr) {
    // Only a commit outside any generation (admin tools, simple consumers) creates a group.
    // A generation names a group that must exist: from v9 Kafka says so, before it answered
    // ILLEGAL_GENERATION (kept for older clients).
    if (generation < 0) g = &get_or_create(req.group_id);
    else refusal = version >= 9 ? ErrorCode::GROUP_ID_NOT_FOUND : ErrorCode::ILLEGAL_GENERATION;
  } else if (g->is(GroupState::dead)) {
    refusal = ErrorCode::COORDINATOR_NOT_AVAILABLE;
  } else if (generation < 0 && g->is(GroupState::empty)) {
    // Accepted: nobody owns the partitions.
  } else if (ErrorCode e = g->check_member(req.member_id, req.group_instance_id);
             e != ErrorCode::NONE) {
    refusal = e;
  } else if (generation != g->generation) {
    refusal = ErrorCode::ILLEGAL_GENERATION;
  } else if (g->is(GroupState::completing_rebalance)) {
    refusal = ErrorCode::REBALANCE_IN_PROGRESS;
  } else {
    touch(g->members[req.member_id]);
  }
  if (refusal != ErrorCode::NONE) {
    fail_all(r, refusal);
    co_return r;
  }

  const int64_t now = now_ms();
  std::vector<OffsetsEntry> entries;
  std::vector<std::pair<TopicPartition, CommittedOffset>> accepted;
  const int64_t expire = version <= 4 && req.retention_time_ms >= 0 ? now + req.retention_time_ms
                                                                    : -1;
  add_offsets(req, r, now, expire, entries, accepted);
  if (entries.empty()) co_return r;
  Status written = co_await topic_.append(req.group_id, std::move(entries));
  if (!written) {
    // Per request: every consumer's commits fail alike while the log cannot take them.
    static log::Limiter limiter("offset commit not stored");
    MIRRA_LOG_WARN_LIMITED(limiter, "group {}: offset commit not stored: {}", req.group_id,
                           written.to_string());
    fail_all(r, commit_error(written));
    co_return r;
  }
  Group& after = get_or_create(req.group_id);  // still there unless deleted meanwhile
  for (auto& [tp, c] : accepted) after.offsets[tp] = std::move(c);
  co_return r;
}

ErrorCode GroupCoordinator::add_offset(
    const std::string& group_id, TopicPartition tp, CommittedOffset c,
    std::vector<OffsetsEntry>& entries,
    std::vector<std::pair<TopicPartition, CommittedOffset>>& accepted) const {
  if (!partition_exists_(tp)) return ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
  if (static_cast<int64_t>(c.metadata.size()) > config_.offset_metadata_max_bytes) {
    return ErrorCode::OFFSET_METADATA_TOO_LARGE;
  }
  entries.push_back({encode_key(OffsetKey{group_id, tp.topic, tp.partition}),
                     encode_value(OffsetValue{c.offset, c.leader_epoch, c.metadata,
                                              c.commit_timestamp, c.expire_timestamp})});
  accepted.emplace_back(std::move(tp), std::move(c));
  return ErrorCode::NONE;
}

protocol::OffsetFetchResponse::OffsetFetchResponseGroup GroupCoordinator::fetch_offsets(
    const std::string& group_id,
    const std::optional<std::vector<protocol::OffsetFetchRequest::OffsetFetchRequestTopics>>&
        topics,
    bool require_stable) {
  MIRRA_ASSERT_OWNER(owner_);
  protocol::OffsetFetchResponse::OffsetFetchResponseGroup out;
  out.group_id = group_id;
  if (Status st = check_available(group_id); !st) {
    out.error_code = error_number(st.code());
    return out;
  }
  if (is_share_group(group_id)) {  // Kafka: "Group X is not a consumer group."
    out.error_code = error_number(ErrorCode::GROUP_ID_NOT_FOUND);
    return out;
  }
  const Group* g = find(group_id);
  auto add = [&](const std::string& topic, int32_t partition, const CommittedOffset* c) {
    if (out.topics.empty() || out.topics.back().name != topic)
      out.topics.emplace_back().name = topic;
    auto& p = out.topics.back().partitions.emplace_back();
    p.partition_index = partition;
    p.committed_offset = c != nullptr ? c->offset : -1;
    p.committed_leader_epoch = c != nullptr ? c->leader_epoch : -1;
    p.metadata = c != nullptr ? c->metadata : "";
  };
  if (!topics) {
    if (g == nullptr) return out;
    for (const auto& [tp, c] : g->offsets) add(tp.topic, tp.partition, &c);
    return out;
  }
  for (const auto& t : *topics) {
    for (int32_t p : t.partition_indexes) {
      const CommittedOffset* c = nullptr;
      if (g != nullptr) {
        auto it = g->offsets.find(TopicPartition{t.name, p});
        if (it != g->offsets.end()) c = &it->second;
      }
      add(t.name, p, c);
      if (require_stable && has_pending_txn_offset(group_id, TopicPartition{t.name, p})) {
        out.topics.back().partitions.back().error_code =
            error_number(ErrorCode::UNSTABLE_OFFSET_COMMIT);
      }
    }
  }
  return out;
}

asio::awaitable<protocol::OffsetDeleteResponse> GroupCoordinator::delete_offsets(
    const protocol::OffsetDeleteRequest& req) {
  MIRRA_ASSERT_OWNER(owner_);
  protocol::OffsetDeleteResponse r;
  if (Status st = check_available(req.group_id); !st) {
    r.error_code = error_number(st.code());
    co_return r;
  }
  Group* g = groups_.count(req.group_id) != 0 ? &groups_[req.group_id] : nullptr;
  if (g == nullptr || g->is(GroupState::dead)) {
    r.error_code = error_number(ErrorCode::GROUP_ID_NOT_FOUND);
    co_return r;
  }
  if (!g->members.empty() && g->protocol_type != kConsumerProtocolType) {
    r.error_code = error_number(ErrorCode::NON_EMPTY_GROUP);
    co_return r;
  }
  const std::set<std::string> subscribed = subscribed_topics(*g);
  std::vector<OffsetsEntry> tombstones;
  std::vector<TopicPartition> removed;
  for (const auto& t : req.topics) {
    auto& tout = r.topics.emplace_back();
    tout.name = t.name;
    for (const auto& p : t.partitions) {
      auto& pout = tout.partitions.emplace_back();
      pout.partition_index = p.partition_index;
      TopicPartition tp{t.name, p.partition_index};
      if (subscribed.count(t.name) != 0) {
        pout.error_code = error_number(ErrorCode::GROUP_SUBSCRIBED_TO_TOPIC);
      } else if (!partition_exists_(tp)) {
        pout.error_code = error_number(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
      } else if (g->offsets.erase(tp) != 0) {
        tombstones.push_back({encode_key(OffsetKey{g->id, tp.topic, tp.partition}), std::nullopt});
      }
    }
  }
  if (!tombstones.empty()) {
    MIRRA_LOG_INFO("group {}: deleted {} committed offset(s)", req.group_id, tombstones.size());
    Status st = co_await topic_.append(req.group_id, std::move(tombstones));
    if (!st) r.error_code = error_number(commit_error(st));
  }
  co_return r;
}

protocol::ListGroupsResponse GroupCoordinator::list(const protocol::ListGroupsRequest& req,
                                                    int16_t version) {
  MIRRA_ASSERT_OWNER(owner_);
  (void)version;
  protocol::ListGroupsResponse r;
  if (!loading_.empty()) r.error_code = error_number(ErrorCode::COORDINATOR_LOAD_IN_PROGRESS);
  std::set<GroupState> states;
  for (const std::string& s : req.states_filter) {
    if (auto st = parse_state(s)) states.insert(*st);
    else states.insert(GroupState::dead);  // an unknown state matches nothing listed
  }
  // Group types (v5), case-insensitive as Kafka parses them; none given: every type.
  std::set<std::string> types;
  for (const std::string& t : req.types_filter) types.insert(to_lower(t));
  const bool classic_wanted = types.empty() || types.count("classic") != 0;
  std::set<std::string> share_states;  // lower case, as Kafka matches share group states
  for (const std::string& s : req.states_filter) share_states.insert(to_lower(s));
  list_share_groups(share_states, types.empty() || types.count(std::string(kShareProtocolType)), r);
  if (!classic_wanted) return r;
  for (const auto& [id, g] : groups_) {
    if (g.is(GroupState::dead)) continue;
    if (!states.empty() && states.count(g.state) == 0) continue;
    auto& out = r.groups.emplace_back();
    out.group_id = id;
    out.protocol_type = g.protocol_type.value_or("");
    out.group_state = std::string(state_name(g.state));
    out.group_type = "classic";
  }
  return r;
}

protocol::DescribeGroupsResponse::DescribedGroup GroupCoordinator::describe(
    const std::string& group_id, int16_t version) {
  MIRRA_ASSERT_OWNER(owner_);
  (void)version;
  protocol::DescribeGroupsResponse::DescribedGroup out;
  out.group_id = group_id;
  if (Status st = check_available(group_id); !st) {
    out.error_code = error_number(st.code());
    return out;
  }
  const Group* g = find(group_id);
  if (g == nullptr) {
    out.group_state = std::string(state_name(GroupState::dead));
    return out;
  }
  out.group_state = std::string(state_name(g->state));
  out.protocol_type = g->protocol_type.value_or("");
  // As Kafka: the protocol and each member's metadata and assignment only once Stable.
  const bool stable = g->is(GroupState::stable);
  out.protocol_data = stable ? g->protocol.value_or("") : "";
  for (const auto& [id, m] : g->members) {
    auto& mo = out.members.emplace_back();
    mo.member_id = id;
    mo.group_instance_id = m.instance_id;
    mo.client_id = m.client_id;
    mo.client_host = m.client_host;
    if (stable) {
      if (const Bytes* md = m.metadata_for(*g->protocol)) mo.member_metadata = *md;
      mo.member_assignment = m.assignment;
    }
  }
  return out;
}

asio::awaitable<protocol::DeleteGroupsResponse::DeletableGroupResult>
GroupCoordinator::delete_group(const std::string& group_id) {
  MIRRA_ASSERT_OWNER(owner_);
  protocol::DeleteGroupsResponse::DeletableGroupResult out;
  out.group_id = group_id;
  if (Status st = check_available(group_id); !st) {
    out.error_code = error_number(st.code());
    co_return out;
  }
  if (is_share_group(group_id)) co_return delete_share_group(group_id);
  Group* g = groups_.count(group_id) != 0 ? &groups_[group_id] : nullptr;
  if (g == nullptr || g->is(GroupState::dead)) {
    groups_.erase(group_id);
    out.error_code = error_number(ErrorCode::GROUP_ID_NOT_FOUND);
    co_return out;
  }
  if (!g->is(GroupState::empty)) {
    out.error_code = error_number(ErrorCode::NON_EMPTY_GROUP);
    co_return out;
  }
  std::vector<OffsetsEntry> tombstones;
  for (const auto& [tp, c] : g->offsets) {
    tombstones.push_back({encode_key(OffsetKey{group_id, tp.topic, tp.partition}), std::nullopt});
  }
  tombstones.push_back({encode_key(GroupKey{group_id}), std::nullopt});
  set_state(*g, GroupState::dead);  // no joins or commits while the tombstones are written
  Status st = co_await topic_.append(group_id, std::move(tombstones));
  groups_.erase(group_id);
  if (!st) {
    out.error_code = error_number(commit_error(st));
    co_return out;
  }
  MIRRA_LOG_INFO("group {}: deleted", group_id);
  co_return out;
}

void GroupCoordinator::expire_offsets() {
  const int64_t now = now_ms();
  std::vector<std::string> dead;
  for (auto& entry : groups_) {
    const std::string& gid = entry.first;
    Group& g = entry.second;  // named, not bound: lambdas below capture it
    const std::set<std::string> subscribed = subscribed_topics(g);
    const bool empty = g.is(GroupState::empty);
    std::vector<OffsetsEntry> tombstones;
    std::erase_if(g.offsets, [&](const auto& kv) {
      const auto& [tp, c] = kv;
      bool expired;
      if (c.expire_timestamp >= 0) {
        expired = now >= c.expire_timestamp;
      } else if (empty) {
        // Kafka 2.1+: an empty group's offsets live for the retention after it became empty.
        const int64_t base = g.protocol_type ? g.state_timestamp_ms : c.commit_timestamp;
        expired = now >= base + config_.offsets_retention_ms;
      } else {
        // Active consumer groups keep the offsets of the topics they subscribe to.
        expired = !subscribed.empty() && subscribed.count(tp.topic) == 0 &&
                  now >= c.commit_timestamp + config_.offsets_retention_ms;
      }
      if (expired)
        tombstones.push_back({encode_key(OffsetKey{gid, tp.topic, tp.partition}), std::nullopt});
      return expired;
    });
    if (!tombstones.empty()) {
      MIRRA_LOG_INFO("group {}: {} committed offset(s) expired", gid, tombstones.size());
    }
    if (empty && g.offsets.empty() && g.pending_members.empty()) {
      tombstones.push_back({encode_key(GroupKey{gid}), std::nullopt});
      dead.push_back(gid);
    }
    if (tombstones.empty()) continue;
    auto write = [](GroupCoordinator* self, std::string id,
                    std::vector<OffsetsEntry> entries) -> asio::awaitable<void> {
      Status st = co_await self->topic_.append(id, std::move(entries));
      if (!st) MIRRA_LOG_WARN("group {}: cannot store expired offsets: {}", id, st.to_string());
    };
    asio::co_spawn(core_, write(this, gid, std::move(tombstones)), asio::detached);
  }
  for (const std::string& gid : dead) groups_.erase(gid);
}

std::vector<GroupCoordinator::GroupSummary> GroupCoordinator::summaries() const {
  std::vector<GroupSummary> out;
  out.reserve(groups_.size());
  for (const auto& [id, g] : groups_) {
    GroupSummary& s = out.emplace_back();
    s.group_id = id;
    s.state = state_name(g.state);
    s.members = g.members.size();
    for (const auto& [tp, c] : g.offsets) s.offsets.emplace_back(tp, c.offset);
  }
  return out;
}

}  // namespace mirra::groups
