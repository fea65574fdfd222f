// Pieces of the cleaner shared by compaction*.cc (internal to the storage module): reading
// sealed segments batch by batch, Kafka's transaction bookkeeping while cleaning, and batch
// rebuilding. See compaction.h for the semantics.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "protocol/records/record.h"
#include "protocol/records/record_batch.h"
#include "storage/compaction.h"
#include "storage/segment.h"

namespace mirra::storage::compaction {

// "<dir>/<20-digit base><kind><suffix>", e.g. 00000000000000000042.index.cleaned
std::filesystem::path file_path(const std::filesystem::path& dir, int64_t base,
                                std::string_view kind, std::string_view suffix);
// The kinds of files of a segment; the .log comes last because its rename is the one that
// commits a step (see the swap in compaction_swap.cc).
inline constexpr std::string_view kKinds[] = {".txnindex", ".timeindex", ".index", ".log"};

// Whole, checksum-valid batches of one segment file in order, with preads on the held
// descriptor (any thread; works after the owner renamed or deleted the file).
class BatchReader {
 public:
  BatchReader(const FileHandle& file, int64_t end);
  // The next batch (valid until the next call), or nullopt at the end.
  Result<std::optional<records::BatchView>> next();
  int64_t position() const { return position_; }  // of the batch last returned

 private:
  const FileHandle& file_;
  HeaderScanner scan_;
  std::vector<uint8_t> buf_;
  int64_t position_ = 0;
};

// Kafka's CleanedTransactionMetadata: walks batches in offset order, telling which data batches
// belong to aborted transactions and which markers no longer guard any data.
class TxnTracker {
 public:
  explicit TxnTracker(std::vector<AbortedTxn> aborted_by_first_offset);
  // True when the batch belongs to an aborted transaction (its records go).
  bool on_data(const records::BatchView& batch);
  // True when the marker may go: an ABORT or COMMIT none of whose data was seen in this pass,
  // or an empty control batch. An ABORT whose data was seen sets `kept_entry` (its txn index
  // entry must stay with it).
  Result<bool> on_control(const records::BatchView& batch, std::vector<uint8_t>& scratch,
                          std::optional<AbortedTxn>& kept_entry);

 private:
  void start_aborted_up_to(int64_t offset);

  struct Ongoing {
    AbortedTxn txn;
    bool data_seen = false;
  };
  std::vector<AbortedTxn> aborted_;
  size_t next_aborted_ = 0;
  std::map<int64_t, Ongoing> ongoing_aborted_;  // by producer id
  std::set<int64_t> ongoing_committed_;         // producer ids with transactional data seen
};

// A batch with only `kept` (records of `batch`, in order), keeping base offset, lastOffsetDelta,
// producer id, epoch, base sequence, leader epoch and codec. With a horizon, attribute bit 6 is
// set and baseTimestamp holds it (record timestamp deltas are re-based so timestamps stay).
Result<std::vector<uint8_t>> rebuild_batch(const records::BatchView& batch,
                                           std::span<const records::RecordView> kept,
                                           std::optional<int64_t> delete_horizon);

// The header of `batch` with no records (Kafka's writeEmptyHeader): what remains of a batch
// that must stay for its producer's sequence and epoch.
std::vector<uint8_t> empty_batch(const records::BatchView& batch);

// The swap (docs/formats/segment.md). commit_cleaned: ".cleaned" -> ".swap", the .log last;
// once "<base>.log.swap" exists, recovery finishes the swap. finish_swap: ".swap" -> final
// names, the .log last; call it after the replaced segments were renamed to .deleted.
Status commit_cleaned(const std::filesystem::path& dir, int64_t base);
Status finish_swap(const std::filesystem::path& dir, int64_t base);

}  // namespace mirra::storage::compaction
