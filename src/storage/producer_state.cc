// Producer state: sequence/epoch checks and state updates. Snapshot files live in
// producer_state_snapshot.cc.
#include "storage/producer_state.h"

#include <algorithm>
#include <climits>
#include <string>
#include <utility>

#include "base/log.h"
#include "protocol/records/record.h"

namespace mirra::storage {

namespace {

using records::BatchView;

// Kafka's DefaultRecordBatch.lastSequence: sequences wrap from INT32_MAX to 0.
int32_t last_sequence(const BatchView& batch) {
  int32_t base = batch.base_sequence();
  if (base < 0) return -1;
  int32_t delta = std::max(batch.last_offset_delta(), 0);  // negative only in corrupt batches
  if (base > INT32_MAX - delta) return delta - (INT32_MAX - base) - 1;
  return base + delta;
}

bool in_sequence(int32_t last_seq, int32_t next_seq) {
  return static_cast<int64_t>(next_seq) == static_cast<int64_t>(last_seq) + 1 ||
         (next_seq == 0 && last_seq == INT32_MAX);
}

std::string pid_text(const BatchView& batch) {
  return "producer " + std::to_string(batch.producer_id()) + " epoch " +
         std::to_string(batch.producer_epoch());
}

// The marker in a control batch: nullopt when the batch has no record (compaction removed it)
// or holds a control type other than ABORT/COMMIT, which no producer state depends on.
Result<std::optional<records::ControlRecord>> read_marker(const BatchView& batch) {
  std::vector<uint8_t> scratch;
  auto it = records::iterate_records(batch, scratch);
  if (!it) return it.status();
  records::RecordView rec;
  if (!it->next(rec)) {
    if (!it->status()) return it->status();
    return std::optional<records::ControlRecord>();
  }
  auto marker = records::parse_control_record(rec);
  if (!marker) return marker.status();
  auto type = static_cast<records::ControlType>(marker->type);
  if (type != records::ControlType::ABORT && type != records::ControlType::COMMIT) {
    return std::optional<records::ControlRecord>();
  }
  return std::optional<records::ControlRecord>(marker.value());
}

// Kafka's checkProducerEpoch + checkCoordinatorEpoch for markers (legacy transaction versions:
// a marker may carry the producer's current epoch).
Status check_marker_against(const ProducerEntry* entry, const BatchView& batch,
                            const records::ControlRecord& marker) {
  if (entry == nullptr) return Status::OK();
  if (batch.producer_epoch() < entry->epoch) {
    return Status(ErrorCode::INVALID_PRODUCER_EPOCH,
                  "marker of " + pid_text(batch) + " at offset " +
                      std::to_string(batch.base_offset()) + " is below the producer's epoch " +
                      std::to_string(entry->epoch));
  }
  if (marker.coordinator_epoch < entry->coordinator_epoch) {
    return Status(ErrorCode::TRANSACTION_COORDINATOR_FENCED,
                  "marker of " + pid_text(batch) + " has coordinator epoch " +
                      std::to_string(marker.coordinator_epoch) + ", below the last seen " +
                      std::to_string(entry->coordinator_epoch));
  }
  return Status::OK();
}

// Kafka's checkSequence for a batch whose epoch is not below the producer's.
Status check_sequence(const ProducerEntry* entry, const BatchView& batch) {
  // No state (never seen, expired, or removed with its data): any sequence starts the producer.
  if (entry == nullptr || entry->epoch == -1) return Status::OK();
  int32_t first_seq = batch.base_sequence();
  if (batch.producer_epoch() != entry->epoch) {
    if (first_seq == 0) return Status::OK();
    return Status(ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER,
                  "new epoch of " + pid_text(batch) + " starts at sequence " +
                      std::to_string(first_seq) + ", not 0 (previous epoch " +
                      std::to_string(entry->epoch) + ")");
  }
  int32_t last_seq = entry->batches.empty() ? -1 : entry->batches.back().last_seq;
  if (in_sequence(last_seq, first_seq)) return Status::OK();
  return Status(ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER,
                "out of order sequence for " + pid_text(batch) + ": got " +
                    std::to_string(first_seq) + ", last appended " + std::to_string(last_seq));
}

}  // namespace

ProducerStateManager::ProducerStateManager(std::filesystem::path dir,
                                           int64_t producer_id_expiration_ms)
    : dir_(std::move(dir)), expiration_ms_(producer_id_expiration_ms) {}

const ProducerEntry* ProducerStateManager::find(int64_t producer_id) const {
  auto it = producers_.find(producer_id);
  return it == producers_.end() ? nullptr : &it->second;
}

Result<std::optional<BatchMetadata>> ProducerStateManager::check_client_batch(
    const BatchView& batch) const {
  using Ret = std::optional<BatchMetadata>;
  if (batch.producer_id() == kNoProducerId) return Ret();
  if (batch.is_control()) {
    return Status(ErrorCode::INVALID_RECORD, "clients may not write control batches");
  }
  if (batch.base_sequence() < 0) {
    return Status(ErrorCode::INVALID_RECORD,
                  pid_text(batch) + " sent base sequence " + std::to_string(batch.base_sequence()));
  }
  const ProducerEntry* entry = find(batch.producer_id());
  if (entry != nullptr && entry->epoch == batch.producer_epoch()) {
    int32_t last_seq = last_sequence(batch);
    for (const BatchMetadata& m : entry->batches) {
      if (m.first_seq == batch.base_sequence() && m.last_seq == last_seq) return Ret(m);
    }
  }
  if (entry != nullptr && batch.producer_epoch() < entry->epoch) {
    return Status(ErrorCode::INVALID_PRODUCER_EPOCH, pid_text(batch) +
                                                         " is below the producer's epoch " +
                                                         std::to_string(entry->epoch));
  }
  if (Status st = check_sequence(entry, batch); !st) return st;
  if (entry != nullptr && entry->current_txn_first_offset && !batch.is_transactional()) {
    return Status(ErrorCode::INVALID_TXN_STATE,
                  "non-transactional batch from " + pid_text(batch) +
                      " while its transaction started at offset " +
                      std::to_string(*entry->current_txn_first_offset) + " is open");
  }
  return Ret();
}

Status ProducerStateManager::check_marker(const BatchView& batch) const {
  if (!batch.is_control() || batch.producer_id() == kNoProducerId) return Status::OK();
  auto marker = read_marker(batch);
  if (!marker)
    return Status(ErrorCode::CORRUPT_MESSAGE,
                  "unreadable transaction marker: " + marker.status().message());
  if (!marker->has_value()) return Status::OK();
  return check_marker_against(find(batch.producer_id()), batch, **marker);
}

Result<std::optional<CompletedTxn>> ProducerStateManager::on_batch_appended(const BatchView& batch,
                                                                            AppendOrigin origin,
                                                                            int64_t now_ms) {
  std::optional<CompletedTxn> completed;
  if (batch.producer_id() != kNoProducerId) {
    if (batch.is_control()) {
      auto r = append_marker(batch, origin, now_ms);
      if (!r) return r.status();
      completed = r.value();
    } else {
      append_data(batch, now_ms);
    }
  }
  map_end_offset_ = std::max(map_end_offset_, batch.next_offset());
  return completed;
}

void ProducerStateManager::append_data(const BatchView& batch, int64_t now_ms) {
  ProducerEntry& entry = producers_[batch.producer_id()];
  entry.producer_id = batch.producer_id();
  if (entry.epoch != batch.producer_epoch()) {
    // Sequences restart with every epoch, so older batches can no longer be duplicates.
    entry.epoch = batch.producer_epoch();
    entry.batches.clear();
  }
  entry.batches.push_back(BatchMetadata{batch.base_sequence(), last_sequence(batch),
                                        batch.base_offset(), batch.last_offset(),
                                        batch.max_timestamp()});
  while (entry.batches.size() > kCachedBatchesPerProducer) entry.batches.pop_front();
  entry.last_timestamp = batch.max_timestamp();
  entry.last_update_ms = now_ms;
  if (batch.is_transactional() && !entry.current_txn_first_offset) {
    set_open_txn(entry, batch.base_offset());
  }
}

Result<std::optional<CompletedTxn>> ProducerStateManager::append_marker(const BatchView& batch,
                                                                        AppendOrigin origin,
                                                                        int64_t now_ms) {
  using Ret = std::optional<CompletedTxn>;
  auto marker = read_marker(batch);
  if (!marker) {
    return Status(ErrorCode::CORRUPT_MESSAGE, "unreadable transaction marker of " +
                                                  pid_text(batch) + ": " +
                                                  marker.status().message());
  }
  if (!marker->has_value()) return Ret();
  const records::ControlRecord& m = **marker;

  if (Status st = check_marker_against(find(batch.producer_id()), batch, m); !st) {
    // The source (or our own past) already decided: a replicated marker is a fact of the log.
    if (origin == AppendOrigin::coordinator) return st;
    MIRRA_CLOG_WARN("storage", "{} (accepted: {} append)", st.message(),
                    origin == AppendOrigin::client ? "client" : "replicated");
  }
  ProducerEntry& entry = producers_[batch.producer_id()];
  entry.producer_id = batch.producer_id();
  Ret completed;
  if (entry.current_txn_first_offset) {
    completed =
        CompletedTxn{entry.producer_id, *entry.current_txn_first_offset, batch.base_offset(),
                     static_cast<records::ControlType>(m.type) == records::ControlType::ABORT};
  }
  if (entry.epoch != batch.producer_epoch()) {
    entry.epoch = batch.producer_epoch();
    entry.batches.clear();
  }
  entry.coordinator_epoch = m.coordinator_epoch;
  set_open_txn(entry, std::nullopt);
  entry.last_timestamp = batch.max_timestamp();
  entry.last_update_ms = now_ms;
  return completed;
}

void ProducerStateManager::set_open_txn(ProducerEntry& entry, std::optional<int64_t> first_offset) {
  if (entry.current_txn_first_offset) {
    ongoing_txns_.erase({*entry.current_txn_first_offset, entry.producer_id});
  }
  entry.current_txn_first_offset = first_offset;
  if (first_offset) ongoing_txns_.insert({*first_offset, entry.producer_id});
}

std::optional<int64_t> ProducerStateManager::first_unstable_offset() const {
  if (ongoing_txns_.empty()) return std::nullopt;
  return ongoing_txns_.begin()->first;
}

void ProducerStateManager::remove_expired(int64_t now_ms) {
  for (auto it = producers_.begin(); it != producers_.end();) {
    const ProducerEntry& e = it->second;
    int64_t last_active = e.last_update_ms >= 0 ? e.last_update_ms : e.last_timestamp;
    if (!e.current_txn_first_offset && now_ms - last_active >= expiration_ms_) {
      it = producers_.erase(it);
    } else {
      ++it;
    }
  }
}

void ProducerStateManager::clear() {
  producers_.clear();
  ongoing_txns_.clear();
}

}  // namespace mirra::storage
