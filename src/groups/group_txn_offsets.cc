// Offsets committed inside a transaction (TxnOffsetCommit, KIP-98): written to the group's
// __consumer_offsets partition as the producer's transactional records, held aside until the
// transaction coordinator writes the marker, then applied (commit) or dropped (abort). A
// restart rebuilds the same state from the log (group_load.cc).
#include <fmt/format.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/log_limit.h"
#include "groups/commit_response.h"
#include "groups/group_coordinator.h"

namespace mirra::groups {
namespace {

constexpr const char* kMirraLogComponent = "groups";

using protocol::TxnOffsetCommitRequest;
using protocol::TxnOffsetCommitResponse;

// Kafka's checks of a transactional commit against the group: a producer that sends group
// metadata (KIP-447: a generation, a member id or a group.instance.id) must be the member it
// names (Group::check_member) in the current generation; one that sends none is accepted.
ErrorCode check_txn_committer(const Group* g, const TxnOffsetCommitRequest& req) {
  if (g == nullptr) return req.generation_id < 0 ? ErrorCode::NONE : ErrorCode::ILLEGAL_GENERATION;
  if (g->is(GroupState::dead)) return ErrorCode::COORDINATOR_NOT_AVAILABLE;
  if (req.generation_id < 0 && g->is(GroupState::empty)) return ErrorCode::NONE;
  if (req.generation_id < 0 && req.member_id.empty() && !req.group_instance_id) {
    return ErrorCode::NONE;
  }
  if (ErrorCode e = g->check_member(req.member_id, req.group_instance_id); e != ErrorCode::NONE) {
    return e;
  }
  if (req.generation_id != g->generation) return ErrorCode::ILLEGAL_GENERATION;
  return ErrorCode::NONE;
}

}  // namespace

asio::awaitable<TxnOffsetCommitResponse> GroupCoordinator::txn_commit(
    const TxnOffsetCommitRequest& req) {
  MIRRA_ASSERT_OWNER(owner_);
  TxnOffsetCommitResponse r = commit_response<TxnOffsetCommitResponse>(req);
  if (Status st = check_available(req.group_id); !st) {
    fail_all(r, st.code());
    co_return r;
  }
  if (Status st = co_await topic_.ensure_created(); !st) {
    fail_all(r, ErrorCode::COORDINATOR_NOT_AVAILABLE);
    co_return r;
  }
  const Group* g = find(req.group_id);
  // A share group has no offsets to commit (Kafka: "Group X is not a consumer group.").
  if (ErrorCode refusal = is_share_group(req.group_id) ? ErrorCode::GROUP_ID_NOT_FOUND
                                                       : check_txn_committer(g, req);
      refusal != ErrorCode::NONE) {
    fail_all(r, refusal);
    co_return r;
  }
  const int64_t now = now_ms();
  std::vector<OffsetsEntry> entries;
  std::vector<std::pair<TopicPartition, CommittedOffset>> accepted;
  add_offsets(req, r, now, -1, entries, accepted);
  if (entries.empty()) co_return r;
  const cluster::InternalProducer producer{req.producer_id, req.producer_epoch, true};
  Status written = co_await topic_.append(req.group_id, std::move(entries), producer);
  if (!written) {
    static log::Limiter limiter("transactional offset commit not stored");
    MIRRA_LOG_WARN_LIMITED(limiter, "group {}: transactional offset commit of {} not stored: {}",
                           req.group_id, req.transactional_id, written.to_string());
    fail_all(r, written.code() == ErrorCode::INVALID_PRODUCER_EPOCH
                    ? ErrorCode::PRODUCER_FENCED
                    : ErrorCode::COORDINATOR_NOT_AVAILABLE);
    co_return r;
  }
  get_or_create(req.group_id);  // the group exists from its first commit, as in Kafka
  auto& held = txn_offsets_[req.producer_id][req.group_id];
  for (auto& [tp, c] : accepted) held[tp] = std::move(c);
  co_return r;
}

void GroupCoordinator::complete_txn(int64_t producer_id, int32_t group_partition, bool commit) {
  MIRRA_ASSERT_OWNER(owner_);
  auto it = txn_offsets_.find(producer_id);
  if (it == txn_offsets_.end()) return;
  auto& by_group = it->second;
  for (auto g = by_group.begin(); g != by_group.end();) {
    if (topic_.partition_of(g->first) != group_partition) {
      ++g;
      continue;
    }
    if (commit) {
      Group& group = get_or_create(g->first);
      for (auto& [tp, c] : g->second) group.offsets[tp] = std::move(c);
    }
    g = by_group.erase(g);
  }
  if (by_group.empty()) txn_offsets_.erase(it);
}

bool GroupCoordinator::has_pending_txn_offset(const std::string& group_id,
                                              const TopicPartition& tp) const {
  for (const auto& [pid, by_group] : txn_offsets_) {
    auto g = by_group.find(group_id);
    if (g != by_group.end() && g->second.count(tp) != 0) return true;
  }
  return false;
}

void GroupCoordinator::restore_txn_offsets(int64_t producer_id,
                                           const std::vector<const OffsetsEntry*>& records) {
  for (const OffsetsEntry* e : records) {
    auto key = decode_key(e->key);
    if (!key.ok()) continue;
    const auto* ok = std::get_if<OffsetKey>(&key.value());
    if (ok == nullptr || !e->value) continue;
    auto v = decode_offset_value(*e->value);
    if (!v.ok()) continue;
    txn_offsets_[producer_id][ok->group][{ok->topic, ok->partition}] = CommittedOffset{
        v->offset, v->leader_epoch, v->metadata, v->commit_timestamp, v->expire_timestamp};
  }
}

}  // namespace mirra::groups
