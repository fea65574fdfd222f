// Loading groups from __consumer_offsets at start-up: each partition is read back in log
// order (later records win, tombstones delete), then its groups become available.
#include <fmt/format.h>

#include "base/log.h"
#include "groups/group_coordinator.h"

namespace mirra::groups {
namespace {

constexpr const char* kMirraLogComponent = "groups";

void apply_offset(Group& g, const OffsetKey& key, const std::optional<Bytes>& value, Status& st) {
  TopicPartition tp{key.topic, key.partition};
  if (!value) {
    g.offsets.erase(tp);
    return;
  }
  auto v = decode_offset_value(*value);
  if (!v.ok()) {
    st = v.status();
    return;
  }
  g.offsets[tp] = CommittedOffset{v->offset, v->leader_epoch, v->metadata, v->commit_timestamp,
                                  v->expire_timestamp};
}

void apply_membership(Group& g, const GroupValue& v) {
  g.protocol_type = v.protocol_type.empty() ? std::nullopt
                                            : std::optional<std::string>(v.protocol_type);
  g.generation = v.generation;
  g.protocol = v.protocol;
  g.leader = v.leader;
  g.state_timestamp_ms = v.current_state_timestamp;
  g.members.clear();
  g.static_members.clear();
  for (const GroupMemberValue& mv : v.members) {
    Member& m = g.members[mv.member_id];
    m.id = mv.member_id;
    m.instance_id = mv.group_instance_id;
    m.client_id = mv.client_id;
    m.client_host = mv.client_host;
    m.session_timeout_ms = mv.session_timeout_ms;
    m.rebalance_timeout_ms = mv.rebalance_timeout_ms < 0 ? mv.session_timeout_ms
                                                         : mv.rebalance_timeout_ms;
    m.protocol_type = v.protocol_type;
    if (v.protocol) m.protocols = {JoinProtocol{*v.protocol, mv.subscription}};
    m.assignment = mv.assignment;
    m.join_order = g.next_join_order++;
    m.synced = true;
    if (m.instance_id) g.static_members[*m.instance_id] = m.id;
  }
}

}  // namespace

Status GroupCoordinator::replay(const OffsetsEntry& e) {
  auto key = decode_key(e.key);
  if (!key.ok()) {
    // Record types of other group kinds (later Kafka versions) are not Mirra's to read.
    if (key.status().code() == ErrorCode::UNSUPPORTED_VERSION) return Status::OK();
    return key.status();
  }
  Status st;
  if (const auto* ok = std::get_if<OffsetKey>(&key.value())) {
    apply_offset(get_or_create(ok->group), *ok, e.value, st);
    return st;
  }
  const auto& gk = std::get<GroupKey>(key.value());
  if (!e.value) {
    groups_.erase(gk.group);
    return st;
  }
  auto v = decode_group_value(*e.value);
  if (!v.ok()) return v.status();
  apply_membership(get_or_create(gk.group), v.value());
  return st;
}

void GroupCoordinator::finish_loading(Group& g) const {
  // Members are alive until their session timeout passes without a heartbeat, counted from now.
  for (auto& [id, m] : g.members) touch(m);
  g.state = g.members.empty() ? GroupState::empty : GroupState::stable;
}

asio::awaitable<void> GroupCoordinator::load_all() {
  const std::set<int32_t> partitions = loading_;
  for (int32_t p : partitions) {
    auto entries = co_await topic_.read_all(p);
    if (!entries.ok()) {
      // The partition's groups stay unavailable (COORDINATOR_LOAD_IN_PROGRESS) rather than
      // start over without their offsets.
      MIRRA_LOG_ERROR("cannot load {}-{}: {}", kOffsetsTopic, p, entries.status().to_string());
      continue;
    }
    size_t bad = 0;
    auto replay_logged = [&](const OffsetsEntry& e) {
      if (Status st = replay(e); !st) {
        if (bad++ == 0) {
          MIRRA_LOG_WARN("{}-{}: skipping a record that does not decode: {}", kOffsetsTopic, p,
                         st.to_string());
        }
      }
    };
    // Transactional offset commits count once their marker commits them.
    std::map<int64_t, std::vector<const OffsetsEntry*>> in_txn;
    for (const cluster::InternalEntry& e : entries.value()) {
      const int64_t pid = e.producer.producer_id;
      if (e.marker_commit) {
        auto it = in_txn.find(pid);
        if (it == in_txn.end()) continue;
        if (*e.marker_commit) {
          for (const OffsetsEntry* r : it->second) replay_logged(*r);
        }
        in_txn.erase(it);
      } else if (e.producer.transactional) {
        in_txn[pid].push_back(&e.record);
      } else {
        replay_logged(e.record);
      }
    }
    for (const auto& [pid, records] : in_txn) restore_txn_offsets(pid, records);
    size_t groups = 0;
    for (auto& [gid, g] : groups_) {
      if (topic_.partition_of(gid) != p) continue;
      finish_loading(g);
      ++groups;
    }
    loading_.erase(p);
    if (groups > 0 || bad > 0) {
      MIRRA_LOG_INFO("loaded {} group(s) from {}-{} ({} record(s){})", groups, kOffsetsTopic, p,
                     entries->size(), bad > 0 ? fmt::format(", {} skipped", bad) : "");
    }
  }
  loaded_ = true;
}

}  // namespace mirra::groups
