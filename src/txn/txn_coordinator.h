// TxnCoordinator: Kafka's transaction coordinator on one node (KIP-98). It owns every
// transactional id's state (producer id and epoch, the partitions of the open transaction, the
// state machine Empty -> Ongoing -> PrepareCommit/PrepareAbort -> CompleteCommit/CompleteAbort),
// persists each change to __transaction_state before answering, writes the commit and abort
// markers into the transaction's partitions, aborts transactions that outlive their timeout
// (fencing the producer with a new epoch), and resumes transactions a crash left between
// prepare and complete.
//
// Threading: core thread (checked: MIRRA_ASSERT_OWNER, base/assert.h); log work goes through
// the PartitionManager to the shards. A request that finds another one working on the same
// transactional id gets CONCURRENT_TRANSACTIONS, which clients retry, as Kafka answers while a
// state change is pending.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/assert.h"
#include "base/clock.h"
#include "base/status.h"
#include "cluster/internal_topic.h"
#include "txn/producer_id_manager.h"
#include "txn/txn_config.h"
#include "txn/txn_log_records.h"

namespace mirra::cluster {
class PartitionManager;
}

namespace mirra::txn {

inline constexpr const char* kTransactionStateTopic = "__transaction_state";

// The topic's settings, as Kafka creates it: compacted, uncompressed, smaller segments.
cluster::InternalTopicSpec state_topic_spec(const TxnConfig& config);

struct TxnMetadata {
  std::string transactional_id;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  // The id and epoch before the last bump, so a producer retrying InitProducerId after a lost
  // answer is recognised (KIP-360).
  int64_t last_producer_id = -1;
  int16_t last_producer_epoch = -1;
  int32_t timeout_ms = 0;
  TxnState state = TxnState::empty;
  TxnPartitions partitions;
  int64_t start_ms = -1;
  int64_t last_update_ms = -1;
  bool busy = false;  // a request or the sweep is changing it (core thread only)
};

struct InitResult {
  ErrorCode error = ErrorCode::NONE;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
};

class TxnCoordinator {
 public:
  // Called after a marker is written to a partition of __consumer_offsets, so the group
  // coordinator applies or drops the producer's transactional offsets there.
  using OffsetsMarkerHook =
      std::function<void(int64_t producer_id, int32_t partition, bool commit)>;

  TxnCoordinator(asio::any_io_executor core, cluster::InternalTopic& topic,
                 cluster::PartitionManager& partitions, ProducerIdManager& ids,
                 const TxnConfig& config, OffsetsMarkerHook on_offsets_marker);

  // Loads __transaction_state (in the background), then finishes transactions a crash left
  // prepared, and starts the sweep.
  void start();
  void stop();

  // FindCoordinator with key type 1: NONE once the state topic exists (created on first use).
  asio::awaitable<Status> ready_for(const std::string& transactional_id);

  // InitProducerId: a new producer id for an idempotent producer (no transactional id), or the
  // transactional id's producer with its epoch bumped (fencing older instances; an open
  // transaction is aborted first).
  asio::awaitable<InitResult> init_producer_id(const std::optional<std::string>& transactional_id,
                                               int32_t timeout_ms, int64_t producer_id,
                                               int16_t producer_epoch);
  // AddPartitionsToTxn / AddOffsetsToTxn (the group's __consumer_offsets partition): per
  // partition, NONE or the error.
  asio::awaitable<std::map<std::pair<std::string, int32_t>, ErrorCode>> add_partitions(
      const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
      const TxnPartitions& partitions);
  // EndTxn: commit or abort the open transaction; answered once the decision is durable and
  // the markers are written.
  asio::awaitable<ErrorCode> end_txn(const std::string& transactional_id, int64_t producer_id,
                                     int16_t producer_epoch, bool commit);
  // TxnOffsetCommit's producer check: NONE when `producer_id`/`producer_epoch` is the
  // transactional id's current producer with the group's partition of __consumer_offsets
  // (`offsets_partition`) in its transaction.
  ErrorCode check_txn_offset_commit(const std::string& transactional_id, int64_t producer_id,
                                    int16_t producer_epoch, int32_t offsets_partition) const;

  // Before a partition is truncated under its producers (a failback, docs/mirroring-design.md
  // §6): every transaction open on one of `partitions` of `topic` is aborted with its producer
  // fenced (epoch bumped), as a timed-out one is, so its producer's EndTxn gets PRODUCER_FENCED
  // instead of committing records the truncation drops. Waits for requests working on those
  // transactional ids; CONCURRENT_TRANSACTIONS if one is still busy after a while.
  asio::awaitable<Status> abort_transactions_on(const std::string& topic,
                                                const std::vector<int32_t>& partitions,
                                                const std::string& why);

  // ListTransactions / DescribeTransactions.
  std::vector<const TxnMetadata*> list() const;
  const TxnMetadata* find(const std::string& transactional_id) const;
  bool loading() const { return !loaded_; }

  // For tests: runs one sweep now (timeouts, retries, expiry) at the given wall clock.
  asio::awaitable<void> sweep(int64_t now);

 private:
  // Checks a request's producer against the transactional id: NONE, or Kafka's error.
  ErrorCode check_producer(const TxnMetadata* m, int64_t producer_id, int16_t producer_epoch) const;
  Status check_available(const std::string& transactional_id) const;
  int32_t partition_of(const std::string& transactional_id) const;
  // Writes `next` as the transactional id's state, then adopts it.
  asio::awaitable<Status> persist(TxnMetadata& m, TxnMetadata next);
  // From a prepared state: markers into every partition, then the complete state.
  asio::awaitable<Status> complete(TxnMetadata& m);
  asio::awaitable<Status> write_markers(const TxnMetadata& m, bool commit);
  // Aborts m's open transaction with a bumped epoch (timeout, or a new producer instance).
  asio::awaitable<Status> fence_and_abort(TxnMetadata& m, std::string why);
  asio::awaitable<InitResult> bump(TxnMetadata& m, int32_t timeout_ms);
  // The transactional ids with an open (Ongoing) transaction on one of the partitions.
  std::vector<std::string> open_on(const std::string& topic,
                                   const std::vector<int32_t>& partitions) const;
  asio::awaitable<void> load_all();
  asio::awaitable<void> sweep_loop();
  TxnMetadata& get_or_create(const std::string& transactional_id);

  asio::any_io_executor core_;
  cluster::InternalTopic& topic_;
  cluster::PartitionManager& partitions_;
  ProducerIdManager& ids_;
  const TxnConfig& config_;
  OffsetsMarkerHook on_offsets_marker_;
  std::map<std::string, TxnMetadata> txns_;
  std::set<int32_t> loading_;  // __transaction_state partitions not loaded yet
  bool loaded_ = false;
  asio::steady_timer sweep_timer_;
  int64_t next_expiry_check_ms_ = 0;
  bool stopped_ = false;
  ThreadOwner owner_;  // the core thread
};

}  // namespace mirra::txn
