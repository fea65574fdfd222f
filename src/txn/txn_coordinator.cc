// The requests of the transaction coordinator: InitProducerId, AddPartitionsToTxn /
// AddOffsetsToTxn and EndTxn, with Kafka's checks and errors. Marker writing, completion,
// timeouts and loading are in txn_lifecycle.cc.
#include "txn/txn_coordinator.h"

#include <fmt/format.h>

#include "base/java_hash.h"
#include "base/log.h"
#include "base/log_limit.h"
#include "cluster/partition_manager.h"

namespace mirra::txn {
namespace {

constexpr const char* kMirraLogComponent = "txn";

// Kafka bumps to a new producer id when the epoch would reach Short.MAX_VALUE.
constexpr int16_t kMaxEpoch = 32767;
constexpr size_t kMaxIdLength = 32767;
constexpr const char* kOffsetsTopic = "__consumer_offsets";

bool prepared(TxnState s) {
  return s == TxnState::prepare_commit || s == TxnState::prepare_abort ||
         s == TxnState::prepare_epoch_fence;
}

// Marks the transactional id busy for the lifetime of the guard.
class BusyGuard {
 public:
  explicit BusyGuard(TxnMetadata& m) : m_(m) { m_.busy = true; }
  ~BusyGuard() { m_.busy = false; }
  BusyGuard(const BusyGuard&) = delete;
  BusyGuard& operator=(const BusyGuard&) = delete;

 private:
  TxnMetadata& m_;
};

}  // namespace

cluster::InternalTopicSpec state_topic_spec(const TxnConfig& config) {
  cluster::InternalTopicSpec spec;
  spec.name = kTransactionStateTopic;
  spec.partitions = config.state_log_partitions;
  spec.configs = {{"cleanup.policy", "compact"},
                  {"compression.type", "uncompressed"},
                  {"segment.bytes", std::to_string(config.state_log_segment_bytes)}};
  return spec;
}

TxnCoordinator::TxnCoordinator(asio::any_io_executor core, cluster::InternalTopic& topic,
                               cluster::PartitionManager& partitions, ProducerIdManager& ids,
                               const TxnConfig& config, OffsetsMarkerHook on_offsets_marker)
    : core_(core),
      topic_(topic),
      partitions_(partitions),
      ids_(ids),
      config_(config),
      on_offsets_marker_(std::move(on_offsets_marker)),
      sweep_timer_(core) {}

const TxnMetadata* TxnCoordinator::find(const std::string& transactional_id) const {
  MIRRA_ASSERT_OWNER(owner_);
  auto it = txns_.find(transactional_id);
  return it == txns_.end() ? nullptr : &it->second;
}

std::vector<const TxnMetadata*> TxnCoordinator::list() const {
  MIRRA_ASSERT_OWNER(owner_);
  std::vector<const TxnMetadata*> out;
  for (const auto& [id, m] : txns_) out.push_back(&m);
  return out;
}

TxnMetadata& TxnCoordinator::get_or_create(const std::string& transactional_id) {
  MIRRA_ASSERT_OWNER(owner_);
  auto [it, created] = txns_.try_emplace(transactional_id);
  if (created) it->second.transactional_id = transactional_id;
  return it->second;
}

int32_t TxnCoordinator::partition_of(const std::string& transactional_id) const {
  return java_hash_partition(transactional_id, topic_.partition_count());
}

Status TxnCoordinator::check_available(const std::string& transactional_id) const {
  if (transactional_id.empty()) {
    return Status(ErrorCode::INVALID_REQUEST, "the transactional id is empty");
  }
  if (transactional_id.size() > kMaxIdLength) {
    return Status(ErrorCode::INVALID_REQUEST, "the transactional id is longer than 32767 bytes");
  }
  if (stopped_) return Status(ErrorCode::COORDINATOR_NOT_AVAILABLE, "the broker is stopping");
  if (!loaded_ || loading_.count(partition_of(transactional_id)) != 0) {
    return Status(ErrorCode::COORDINATOR_LOAD_IN_PROGRESS,
                  fmt::format("transactional id {} is still loading", transactional_id));
  }
  return Status::OK();
}

asio::awaitable<Status> TxnCoordinator::ready_for(const std::string& transactional_id) {
  MIRRA_ASSERT_OWNER(owner_);
  if (transactional_id.empty()) {
    co_return Status(ErrorCode::INVALID_REQUEST, "the transactional id is empty");
  }
  if (stopped_) co_return Status(ErrorCode::COORDINATOR_NOT_AVAILABLE, "the broker is stopping");
  co_return co_await topic_.ensure_created();
}

ErrorCode TxnCoordinator::check_producer(const TxnMetadata* m, int64_t producer_id,
                                         int16_t producer_epoch) const {
  if (m == nullptr || m->producer_id != producer_id) return ErrorCode::INVALID_PRODUCER_ID_MAPPING;
  if (producer_epoch != m->producer_epoch) return ErrorCode::PRODUCER_FENCED;
  return ErrorCode::NONE;
}

asio::awaitable<Status> TxnCoordinator::persist(TxnMetadata& m, TxnMetadata next) {
  next.last_update_ms = now_ms();
  TxnLogValue v{next.producer_id, next.producer_epoch, next.timeout_ms, next.state,
                next.partitions,  next.last_update_ms, next.start_ms};
  std::vector<cluster::InternalRecord> records;
  records.push_back({encode_txn_key(m.transactional_id), encode_txn_value(v)});
  Status st = co_await topic_.append(partition_of(m.transactional_id), std::move(records));
  if (!st) {
    static log::Limiter limiter("transaction state not stored");
    MIRRA_LOG_WARN_LIMITED(limiter, "transactional id {}: state {} not stored: {}",
                           m.transactional_id, state_name(next.state), st.to_string());
    co_return Status(ErrorCode::COORDINATOR_NOT_AVAILABLE, st.message());
  }
  next.busy = m.busy;
  m = std::move(next);
  co_return Status::OK();
}

asio::awaitable<InitResult> TxnCoordinator::init_producer_id(
    const std::optional<std::string>& transactional_id, int32_t timeout_ms, int64_t producer_id,
    int16_t producer_epoch) {
  MIRRA_ASSERT_OWNER(owner_);
  InitResult r;
  if (!transactional_id) {
    // An idempotent producer: always a fresh id (Kafka ignores an id it sends along).
    auto id = co_await ids_.next();
    if (!id.ok()) {
      r.error = ErrorCode::UNKNOWN_SERVER_ERROR;
      co_return r;
    }
    r.producer_id = id.value();
    r.producer_epoch = 0;
    co_return r;
  }
  if (Status st = check_available(*transactional_id); !st) {
    r.error = st.code();
    co_return r;
  }
  if (timeout_ms <= 0 || timeout_ms > config_.max_timeout_ms) {
    r.error = ErrorCode::INVALID_TRANSACTION_TIMEOUT;
    co_return r;
  }
  if (Status st = co_await topic_.ensure_created(); !st) {
    r.error = ErrorCode::COORDINATOR_NOT_AVAILABLE;
    co_return r;
  }
  TxnMetadata& m = get_or_create(*transactional_id);
  if (m.busy || prepared(m.state)) {
    r.error = ErrorCode::CONCURRENT_TRANSACTIONS;
    co_return r;
  }
  if (producer_id != -1) {
    // KIP-360: a producer that knows its id asks for a bump of exactly that id and epoch, or
    // retries one whose answer it lost (then it gets the current id and epoch again).
    const bool current = producer_id == m.producer_id && producer_epoch == m.producer_epoch;
    const bool retried = producer_id == m.last_producer_id &&
                         producer_epoch == m.last_producer_epoch;
    if (retried && m.state == TxnState::empty) {
      co_return InitResult{ErrorCode::NONE, m.producer_id, m.producer_epoch};
    }
    if (!current) {
      r.error = ErrorCode::PRODUCER_FENCED;
      co_return r;
    }
  }
  BusyGuard busy(m);
  if (m.state == TxnState::ongoing) {
    // A new instance of the producer: its predecessor's transaction cannot finish any more.
    Status st = co_await fence_and_abort(m, "a new producer instance initialised");
    if (!st) {
      r.error = ErrorCode::COORDINATOR_NOT_AVAILABLE;  // retried; the sweep finishes the abort
      co_return r;
    }
  }
  co_return co_await bump(m, timeout_ms);
}

asio::awaitable<InitResult> TxnCoordinator::bump(TxnMetadata& m, int32_t timeout_ms) {
  TxnMetadata next = m;
  next.last_producer_id = m.producer_id;
  next.last_producer_epoch = m.producer_epoch;
  if (m.producer_id < 0 || m.producer_epoch >= kMaxEpoch - 1) {
    auto id = co_await ids_.next();
    if (!id.ok()) co_return InitResult{ErrorCode::UNKNOWN_SERVER_ERROR, -1, -1};
    next.producer_id = id.value();
    next.producer_epoch = 0;
  } else {
    next.producer_epoch = static_cast<int16_t>(m.producer_epoch + 1);
  }
  next.timeout_ms = timeout_ms;
  next.state = TxnState::empty;
  next.partitions.clear();
  next.start_ms = -1;
  if (Status st = co_await persist(m, std::move(next)); !st) {
    co_return InitResult{ErrorCode::COORDINATOR_NOT_AVAILABLE, -1, -1};
  }
  MIRRA_LOG_INFO("transactional id {}: producer id {} epoch {}", m.transactional_id, m.producer_id,
                 m.producer_epoch);
  co_return InitResult{ErrorCode::NONE, m.producer_id, m.producer_epoch};
}

asio::awaitable<std::map<std::pair<std::string, int32_t>, ErrorCode>>
TxnCoordinator::add_partitions(const std::string& transactional_id, int64_t producer_id,
                               int16_t producer_epoch, const TxnPartitions& partitions) {
  MIRRA_ASSERT_OWNER(owner_);
  std::map<std::pair<std::string, int32_t>, ErrorCode> out;
  auto fail_all = [&](ErrorCode e) {
    for (const auto& [topic, parts] : partitions) {
      for (int32_t p : parts) out[{topic, p}] = e;
    }
    return out;
  };
  if (Status st = check_available(transactional_id); !st) co_return fail_all(st.code());
  auto it = txns_.find(transactional_id);
  TxnMetadata* m = it == txns_.end() ? nullptr : &it->second;
  if (ErrorCode e = check_producer(m, producer_id, producer_epoch); e != ErrorCode::NONE) {
    co_return fail_all(e);
  }
  if (m->busy || prepared(m->state)) co_return fail_all(ErrorCode::CONCURRENT_TRANSACTIONS);
  // Partitions that do not exist fail the request; the others are not attempted.
  bool unknown = false;
  for (const auto& [topic, parts] : partitions) {
    for (int32_t p : parts) {
      const bool exists = partitions_.find(topic, p) != nullptr;
      out[{topic, p}] = exists ? ErrorCode::NONE : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
      unknown = unknown || !exists;
    }
  }
  if (unknown) {
    for (auto& [tp, e] : out) {
      if (e == ErrorCode::NONE) e = ErrorCode::OPERATION_NOT_ATTEMPTED;
    }
    co_return out;
  }
  TxnMetadata next = *m;
  bool added = false;
  for (const auto& [topic, parts] : partitions) {
    for (int32_t p : parts) added = next.partitions[topic].insert(p).second || added;
  }
  if (m->state == TxnState::ongoing && !added) co_return out;
  if (m->state != TxnState::ongoing) next.start_ms = now_ms();
  next.state = TxnState::ongoing;
  BusyGuard busy(*m);
  if (Status st = co_await persist(*m, std::move(next)); !st) {
    co_return fail_all(ErrorCode::COORDINATOR_NOT_AVAILABLE);
  }
  co_return out;
}

ErrorCode TxnCoordinator::check_txn_offset_commit(const std::string& transactional_id,
                                                  int64_t producer_id, int16_t producer_epoch,
                                                  int32_t offsets_partition) const {
  MIRRA_ASSERT_OWNER(owner_);
  if (Status st = check_available(transactional_id); !st) return st.code();
  const TxnMetadata* m = find(transactional_id);
  if (ErrorCode e = check_producer(m, producer_id, producer_epoch); e != ErrorCode::NONE) return e;
  if (m->state != TxnState::ongoing) return ErrorCode::INVALID_TXN_STATE;
  // Without AddOffsetsToTxn no marker reaches the group's partition: the offsets would stay
  // held (and that partition's LSO stuck) until some later transaction happened to end there.
  auto offsets = m->partitions.find(kOffsetsTopic);
  if (offsets == m->partitions.end() || offsets->second.count(offsets_partition) == 0) {
    return ErrorCode::INVALID_TXN_STATE;
  }
  return ErrorCode::NONE;
}

asio::awaitable<ErrorCode> TxnCoordinator::end_txn(const std::string& transactional_id,
                                                   int64_t producer_id, int16_t producer_epoch,
                                                   bool commit) {
  MIRRA_ASSERT_OWNER(owner_);
  if (Status st = check_available(transactional_id); !st) co_return st.code();
  auto it = txns_.find(transactional_id);
  TxnMetadata* m = it == txns_.end() ? nullptr : &it->second;
  if (ErrorCode e = check_producer(m, producer_id, producer_epoch); e != ErrorCode::NONE) {
    co_return e;
  }
  if (m->busy) co_return ErrorCode::CONCURRENT_TRANSACTIONS;
  switch (m->state) {
    case TxnState::ongoing:
      break;
    // A retry of an EndTxn whose answer was lost.
    case TxnState::complete_commit:
      co_return commit ? ErrorCode::NONE : ErrorCode::INVALID_TXN_STATE;
    case TxnState::complete_abort:
      co_return commit ? ErrorCode::INVALID_TXN_STATE : ErrorCode::NONE;
    case TxnState::prepare_commit:
      co_return commit ? ErrorCode::CONCURRENT_TRANSACTIONS : ErrorCode::INVALID_TXN_STATE;
    case TxnState::prepare_abort:
      co_return commit ? ErrorCode::INVALID_TXN_STATE : ErrorCode::CONCURRENT_TRANSACTIONS;
    default:
      co_return ErrorCode::INVALID_TXN_STATE;
  }
  BusyGuard busy(*m);
  TxnMetadata next = *m;
  next.state = commit ? TxnState::prepare_commit : TxnState::prepare_abort;
  if (Status st = co_await persist(*m, std::move(next)); !st) {
    co_return ErrorCode::COORDINATOR_NOT_AVAILABLE;
  }
  // The decision is durable: a failure from here on is retried by the sweep (and after a
  // restart), never reported to the producer as a failed commit.
  if (Status st = co_await complete(*m); !st) {
    MIRRA_LOG_WARN("transactional id {}: {} decided, markers pending: {}", transactional_id,
                   commit ? "commit" : "abort", st.to_string());
  }
  co_return ErrorCode::NONE;
}

}  // namespace mirra::txn
