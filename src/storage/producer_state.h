// Producer state of one partition: for every producer id seen in the log, its epoch, the last
// five batches (duplicate detection and sequence checks), and its open transaction, if any.
//
// Every producer id except -1 is real, negative ones included: mirroring rewrites source ids to
// -(p + 2) (MIRRORING.md §2), and those must open, commit and abort transactions like any other.
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
  int64_t last_timestamp = -1;                    // newest batch max timestamp (for expiry)
  int64_t last_update_ms = -1;                    // wall clock of the last append (for expiry)
  std::optional<int64_t> current_txn_first_offset;
  std::deque<BatchMetadata> batches;              // oldest first, at most 5
};

// A transaction that an appended control batch closed.
struct CompletedTxn {
  int64_t producer_id = kNoProducerId;
  int64_t first_offset = -1;  // first offset of the transaction's data in this partition
  int64_t last_offset = -1;   // offset of the marker
  bool aborted = false;
};

class ProducerStateManager {
 public:
  // `dir` is the partition directory (snapshots are "<20-digit offset>.snapshot" there).
  ProducerStateManager(std::filesystem::path dir, int64_t producer_id_expiration_ms);

  // For a client batch before it gets offsets. Returns:
  //  - nullopt: a new batch, go ahead;
  //  - BatchMetadata: a retry of one of the last five batches: answer with its offsets, do not
  //    append again;
  //  - an error Status with Kafka's code: OUT_OF_ORDER_SEQUENCE_NUMBER, INVALID_PRODUCER_EPOCH
  //    (stale epoch), UNKNOWN_PRODUCER_ID (non-zero sequence from a producer with no state),
  //    INVALID_TXN_STATE (transactional flag inconsistent with the open transaction).
  // Batches with producer id -1 always return nullopt.
  Result<std::optional<BatchMetadata>> check_client_batch(const records::BatchView& batch) const;

  // Records a batch that is now in the log (its base offset is final). A control batch closes
  // the producer's open transaction and returns it; a data batch returns nullopt.
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

  // Snapshots: "<offset>.snapshot" holds the state as of map_end_offset == offset.
  Status take_snapshot();
  // Clears the state, then loads the newest snapshot at or below `offset` (none: empty state at
  // `log_start`). Returns the offset the caller must replay the log from.
  Result<int64_t> reload_from_snapshot(int64_t offset, int64_t log_start);
  void delete_snapshots_above(int64_t offset);   // truncation: snapshots > offset are stale
  void delete_snapshots_below(int64_t offset);   // log start moved: older ones are useless
  std::vector<int64_t> snapshot_offsets() const;

  // Drops producers idle longer than producer.id.expiration.ms that have no open transaction.
  void remove_expired(int64_t now_ms);
  void clear();

 private:
  std::filesystem::path dir_;
  int64_t expiration_ms_;
  std::map<int64_t, ProducerEntry> producers_;
  int64_t map_end_offset_ = 0;
};

}  // namespace mirra::storage
