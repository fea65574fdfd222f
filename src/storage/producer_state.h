// Producer state of one partition: for every producer id seen in the log, its epoch, the last
// five batches (duplicate detection and sequence checks), and its open transaction, if any.
//
// Every producer id except -1 is real, negative ones included: mirroring rewrites source ids to
// -(p + 2) (docs/mirroring-design.md §2); those open, commit and abort transactions like others.
//
// Owned by the PartitionLog that holds it; not thread-safe. The log calls check_client_batch()
// before assigning offsets to a client batch and on_batch_appended() after every batch that
// reached the log (client, coordinator markers, mirror/replication, and recovery replay).
// Snapshot file format: docs/formats/producer-snapshot.md.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "base/status.h"
#include "protocol/records/record_batch.h"

namespace mirra::storage {

inline constexpr int64_t kNoProducerId = -1;
inline constexpr size_t kCachedBatchesPerProducer = 5;

// Where a batch comes from decides what is checked (Kafka's AppendOrigin).
enum class AppendOrigin {
  client,       // Produce: epoch and sequence checked, duplicates detected
  coordinator,  // transaction markers written by the broker's own coordinator
  replication,  // mirror appends and recovery replay: state updated, nothing refused
};

struct BatchMetadata {
  int32_t first_seq = -1;
  int32_t last_seq = -1;
  int64_t first_offset = -1;
  int64_t last_offset = -1;
  int64_t max_timestamp = -1;
};

struct ProducerEntry {
  int64_t producer_id = kNoProducerId;
  int16_t epoch = -1;
  int32_t coordinator_epoch = -1;
  int64_t last_timestamp = -1;  // newest batch max timestamp (for expiry)
  int64_t last_update_ms = -1;  // wall clock of the last append (for expiry)
  std::optional<int64_t> current_txn_first_offset;
  std::deque<BatchMetadata> batches;  // oldest first, at most 5
};

// A transaction that an appended control batch closed.
struct CompletedTxn {
  int64_t producer_id = kNoProducerId;
  int64_t first_offset = -1;  // first offset of the transaction's data in this partition
  int64_t last_offset = -1;   // offset of the marker
  bool aborted = false;
  bool operator==(const CompletedTxn&) const = default;
};

class ProducerStateManager {
 public:
  // `dir` is the partition directory (snapshots are "<20-digit offset>.snapshot" there).
  ProducerStateManager(std::filesystem::path dir, int64_t producer_id_expiration_ms);

  // For a client batch before it gets offsets (Kafka's ProducerAppendInfo with origin CLIENT,
  // plus UnifiedLog's duplicate check). Returns:
  //  - nullopt: a new batch, go ahead;
  //  - BatchMetadata: a retry of one of the last five batches of the producer's current epoch
  //    (same first and last sequence): answer with its offsets, do not append again;
  //  - an error Status with Kafka's code: INVALID_PRODUCER_EPOCH (epoch below the producer's),
  //    OUT_OF_ORDER_SEQUENCE_NUMBER (a gap, or a new epoch not starting at sequence 0),
  //    INVALID_TXN_STATE (a non-transactional batch while the producer's transaction is open),
  //    INVALID_RECORD (a control batch, or a producer id with a negative sequence).
  // A producer with no state may start at any sequence and UNKNOWN_PRODUCER_ID is never
  // returned: that is Kafka's behaviour since KIP-360 (2.5), because state legitimately
  // disappears (retention, DeleteRecords, producer.id.expiration.ms) while the producer lives
  // on, and librdkafka treats UNKNOWN_PRODUCER_ID with unacked data as fatal.
  // Batches with producer id -1 always return nullopt.
  Result<std::optional<BatchMetadata>> check_client_batch(const records::BatchView& batch) const;

  // Checks a transaction marker before it is written (origin coordinator): an epoch below the
  // producer's is INVALID_PRODUCER_EPOCH, a coordinator epoch below the last one seen is
  // TRANSACTION_COORDINATOR_FENCED, an unreadable marker CORRUPT_MESSAGE. No side effects.
  // Call it before appending a coordinator marker: on_batch_appended() refuses the same way,
  // but by then the bytes are already in the log.
  Status check_marker(const records::BatchView& batch) const;

  // Records a batch that is now in the log (its base offset is final) and advances
  // map_end_offset to the batch's next offset. A data batch updates epoch and cached batches
  // and, when transactional with no open transaction, opens one at its base offset. A control
  // batch (ABORT/COMMIT marker) closes the open transaction and returns it; a marker with no
  // open transaction returns nullopt, as in Kafka (nothing to index, no effect on the LSO).
  // Origin coordinator: check_marker() failures are returned and nothing changes. Origin
  // client or replication: nothing is refused (client batches were checked before the append).
  Result<std::optional<CompletedTxn>> on_batch_appended(const records::BatchView& batch,
                                                        AppendOrigin origin, int64_t now_ms);

  // The first offset of the oldest open transaction, or nullopt. The log's LSO is
  // min(this, high watermark).
  std::optional<int64_t> first_unstable_offset() const;

  const ProducerEntry* find(int64_t producer_id) const;
  const std::map<int64_t, ProducerEntry>& producers() const { return producers_; }

  // The offset up to which the state reflects the log (exclusive): the next offset to replay.
  int64_t map_end_offset() const { return map_end_offset_; }
  void set_map_end_offset(int64_t offset) { map_end_offset_ = offset; }

  // Snapshots: "<offset>.snapshot" holds the state as of map_end_offset == offset. Written
  // atomically (an existing snapshot at that offset is replaced).
  Status take_snapshot();
  // Clears the state, then loads the newest usable snapshot in [log_start, offset] (none: empty
  // state at `log_start`). Returns the offset the caller must replay the log from, which is
  // also the new map_end_offset. A corrupt snapshot is logged, deleted and skipped in favour of
  // the next older one; only an I/O error reading a snapshot fails the call.
  Result<int64_t> reload_from_snapshot(int64_t offset, int64_t log_start);
  void delete_snapshots_above(int64_t offset);  // truncation: snapshots > offset are stale
  void delete_snapshots_below(int64_t offset);  // log start moved: older ones are useless
  std::vector<int64_t> snapshot_offsets() const;

  // Drops producers idle for producer.id.expiration.ms or longer that have no open transaction.
  // Idle time is measured from last_update_ms (the broker's clock at the last append), falling
  // back to last_timestamp when unknown: record timestamps come from client clocks and could
  // expire a live producer early (breaking idempotence) or pin a dead one forever.
  void remove_expired(int64_t now_ms);
  // Forgets every producer; snapshot files and map_end_offset stay as they are.
  void clear();

 private:
  Result<std::optional<CompletedTxn>> append_marker(const records::BatchView& batch,
                                                    AppendOrigin origin, int64_t now_ms);
  void append_data(const records::BatchView& batch, int64_t now_ms);
  void set_open_txn(ProducerEntry& entry, std::optional<int64_t> first_offset);
  Status load_snapshot(int64_t offset);

  std::filesystem::path dir_;
  int64_t expiration_ms_;
  std::map<int64_t, ProducerEntry> producers_;
  // Open transactions as (first offset, producer id), so the LSO is a lookup, not a scan.
  std::set<std::pair<int64_t, int64_t>> ongoing_txns_;
  int64_t map_end_offset_ = 0;
};

}  // namespace mirra::storage
