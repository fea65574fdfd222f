// The transaction coordinator's work outside single requests: writing markers and completing
// prepared transactions, aborting those past their timeout, expiring idle transactional ids,
// and loading __transaction_state at start-up.
#include <fmt/format.h>

#include "base/log.h"
#include "cluster/partition_manager.h"
#include "txn/markers.h"
#include "txn/txn_coordinator.h"

namespace mirra::txn {
namespace {

constexpr const char* kMirraLogComponent = "txn";
constexpr const char* kOffsetsTopic = "__consumer_offsets";
constexpr int16_t kMaxEpoch = 32767;
// One coordinator that never moves: its epoch (the markers' coordinator epoch) stays 0.
constexpr int32_t kCoordinatorEpoch = 0;
// How long abort_transactions_on() waits for requests working on the transactions it ends, and
// how often it looks again.
constexpr auto kBusyWait = std::chrono::seconds(30);
constexpr auto kBusyPoll = std::chrono::milliseconds(10);

// A marker that has nothing to decide: the partition was deleted, or it is a mirror topic now
// (cluster/log_writer.h), whose log is its source's and holds none of this producer's records
// (clients cannot write there, and a failback ends open transactions before it truncates).
bool nothing_to_mark(ErrorCode e) {
  return e == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION || e == ErrorCode::READ_ONLY_TOPIC;
}

}  // namespace

asio::awaitable<Status> TxnCoordinator::write_markers(const TxnMetadata& m, bool commit) {
  struct Job {
    std::string topic;
    int32_t partition;
    MarkerJob job;
  };
  std::vector<Job> jobs;
  // Posted together, so the partitions' shards write them in parallel.
  for (const auto& [topic, parts] : m.partitions) {
    for (int32_t p : parts) {
      auto part = partitions_.find(topic, p);
      if (part == nullptr) continue;  // deleted since: nothing left to decide there
      jobs.push_back({topic, p,
                      start_marker(partitions_, part, m.producer_id, m.producer_epoch,
                                   kCoordinatorEpoch, commit)});
    }
  }
  Status first_error;
  for (Job& j : jobs) {
    auto r = co_await j.job->wait();
    if (!r.ok() && !nothing_to_mark(r.status().code())) {
      if (first_error.ok()) {
        first_error = Status(r.status().code(), fmt::format("marker for {}-{}: {}", j.topic,
                                                            j.partition, r.status().message()));
      }
      continue;
    }
    if (j.topic == kOffsetsTopic && on_offsets_marker_) {
      on_offsets_marker_(m.producer_id, j.partition, commit);
    }
  }
  co_return first_error;
}

asio::awaitable<Status> TxnCoordinator::complete(TxnMetadata& m) {
  const bool commit = m.state == TxnState::prepare_commit;
  if (Status st = co_await write_markers(m, commit); !st) co_return st;
  TxnMetadata next = m;
  next.state = commit ? TxnState::complete_commit : TxnState::complete_abort;
  next.partitions.clear();
  co_return co_await persist(m, std::move(next));
}

asio::awaitable<Status> TxnCoordinator::fence_and_abort(TxnMetadata& m, std::string why) {
  TxnMetadata next = m;
  // The new epoch goes into the abort markers, so the partitions refuse the old producer too.
  if (m.producer_epoch < kMaxEpoch - 1)
    next.producer_epoch = static_cast<int16_t>(m.producer_epoch + 1);
  next.state = TxnState::prepare_abort;
  if (Status st = co_await persist(m, std::move(next)); !st) co_return st;
  MIRRA_LOG_INFO("transactional id {}: aborting the open transaction of producer id {} ({})",
                 m.transactional_id, m.producer_id, why);
  co_return co_await complete(m);
}

std::vector<std::string> TxnCoordinator::open_on(const std::string& topic,
                                                 const std::vector<int32_t>& partitions) const {
  std::vector<std::string> out;
  for (const auto& [id, m] : txns_) {
    if (m.state != TxnState::ongoing) continue;
    auto it = m.partitions.find(topic);
    if (it == m.partitions.end()) continue;
    for (int32_t p : partitions) {
      if (it->second.count(p) != 0) {
        out.push_back(id);
        break;
      }
    }
  }
  return out;
}

asio::awaitable<Status> TxnCoordinator::abort_transactions_on(
    const std::string& topic, const std::vector<int32_t>& partitions, const std::string& why) {
  MIRRA_ASSERT_OWNER(owner_);
  if (!loaded_) {
    co_return Status(ErrorCode::COORDINATOR_LOAD_IN_PROGRESS,
                     "the transaction coordinator is still loading");
  }
  const auto deadline = std::chrono::steady_clock::now() + kBusyWait;
  asio::steady_timer poll(core_);
  for (;;) {
    bool waiting = false;
    for (const std::string& id : open_on(topic, partitions)) {
      auto it = txns_.find(id);
      if (it == txns_.end()) continue;
      TxnMetadata& m = it->second;
      if (m.busy) {
        waiting = true;
        continue;
      }
      m.busy = true;
      Status st = co_await fence_and_abort(m, why);
      m.busy = false;
      // Fenced once the abort is decided; its markers are retried by the sweep if need be.
      if (m.state == TxnState::ongoing) {
        co_return Status(ErrorCode::COORDINATOR_NOT_AVAILABLE,
                         fmt::format("transactional id {}: {}", id, st.to_string()));
      }
    }
    if (!waiting) co_return Status::OK();
    if (std::chrono::steady_clock::now() >= deadline) {
      co_return Status(
          ErrorCode::CONCURRENT_TRANSACTIONS,
          fmt::format("transactions on {} stayed busy for {} s", topic,
                      std::chrono::duration_cast<std::chrono::seconds>(kBusyWait).count()));
    }
    poll.expires_after(kBusyPoll);
    asio::error_code ec;
    co_await poll.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

asio::awaitable<void> TxnCoordinator::sweep(int64_t now) {
  MIRRA_ASSERT_OWNER(owner_);
  std::vector<std::string> ids;
  for (const auto& [id, m] : txns_) ids.push_back(id);
  for (const std::string& id : ids) {
    auto it = txns_.find(id);
    if (it == txns_.end() || it->second.busy) continue;
    TxnMetadata& m = it->second;
    m.busy = true;
    Status st;
    if (m.state == TxnState::ongoing && m.start_ms >= 0 && now > m.start_ms + m.timeout_ms) {
      const std::string why = fmt::format("timed out after {} ms", m.timeout_ms);
      st = co_await fence_and_abort(m, why);
    } else if (m.state == TxnState::prepare_commit || m.state == TxnState::prepare_abort) {
      st = co_await complete(m);
    } else if (now >= next_expiry_check_ms_ && m.state != TxnState::ongoing &&
               m.last_update_ms >= 0 && now > m.last_update_ms + config_.id_expiration_ms) {
      std::vector<cluster::InternalRecord> tombstone{{encode_txn_key(id), std::nullopt}};
      st = co_await topic_.append(partition_of(id), std::move(tombstone));
      if (st) {
        MIRRA_LOG_INFO("transactional id {}: expired after {} ms without use", id,
                       config_.id_expiration_ms);
        txns_.erase(id);
        continue;
      }
    }
    m.busy = false;
    if (!st) MIRRA_LOG_WARN("transactional id {}: {} (retried later)", id, st.to_string());
  }
  if (now >= next_expiry_check_ms_)
    next_expiry_check_ms_ = now + config_.remove_expired_interval_ms;
}

asio::awaitable<void> TxnCoordinator::sweep_loop() {
  while (!stopped_) {
    sweep_timer_.expires_after(std::chrono::milliseconds(config_.abort_timed_out_interval_ms));
    asio::error_code ec;
    co_await sweep_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (stopped_) break;
    if (loaded_) co_await sweep(now_ms());
  }
}

void TxnCoordinator::start() {
  MIRRA_ASSERT_OWNER(owner_);
  if (topic_.exists()) {
    for (int32_t p = 0; p < topic_.partition_count(); ++p) loading_.insert(p);
  }
  asio::co_spawn(core_, load_all(), asio::detached);
  asio::co_spawn(core_, sweep_loop(), asio::detached);
}

void TxnCoordinator::stop() {
  MIRRA_ASSERT_OWNER(owner_);
  stopped_ = true;
  sweep_timer_.cancel();
}

asio::awaitable<void> TxnCoordinator::load_all() {
  const std::set<int32_t> partitions = loading_;
  size_t loaded = 0;
  for (int32_t p : partitions) {
    auto entries = co_await topic_.read_all(p);
    if (!entries.ok()) {
      // Its transactional ids stay unavailable rather than start over without their state.
      MIRRA_LOG_ERROR("cannot load {}-{}: {}", topic_.name(), p, entries.status().to_string());
      continue;
    }
    size_t bad = 0;
    for (const cluster::InternalEntry& e : entries.value()) {
      if (e.marker_commit) continue;
      auto id = decode_txn_key(e.record.key);
      if (!id.ok()) {
        ++bad;
        continue;
      }
      if (!e.record.value) {
        txns_.erase(id.value());
        continue;
      }
      auto v = decode_txn_value(*e.record.value);
      if (!v.ok()) {
        ++bad;
        continue;
      }
      TxnMetadata& m = get_or_create(id.value());
      m.producer_id = v->producer_id;
      m.producer_epoch = v->producer_epoch;
      m.timeout_ms = v->timeout_ms;
      m.state = v->state;
      m.partitions = v->partitions;
      m.last_update_ms = v->last_update_ms;
      m.start_ms = v->start_ms;
    }
    if (bad > 0)
      MIRRA_LOG_WARN("{}-{}: skipped {} record(s) that do not decode", topic_.name(), p, bad);
    loading_.erase(p);
  }
  loaded_ = true;
  for (const auto& [id, m] : txns_) loaded += m.state == TxnState::ongoing ? 1 : 0;
  if (!txns_.empty()) {
    MIRRA_LOG_INFO("loaded {} transactional id(s), {} with an open transaction", txns_.size(),
                   loaded);
  }
  // Transactions decided before a crash get their markers now, not at the first sweep.
  co_await sweep(now_ms());
}

}  // namespace mirra::txn
