// The records of __transaction_state, in Kafka's exact bytes (so a dump reads the same and a
// mirror of the topic would be meaningful): key = int16 version 0 + TransactionalId (classic
// string); value = int16 version + TransactionLogValue (v0 classic, v1 flexible with tags).
// Mirra writes v0; it reads v0 and v1 (tags skipped). Layout: docs/formats/transaction_state.md.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "protocol/wire.h"

namespace mirra::txn {

// Kafka's TransactionState ids, as stored in the log.
enum class TxnState : int8_t {
  empty = 0,
  ongoing = 1,
  prepare_commit = 2,
  prepare_abort = 3,
  complete_commit = 4,
  complete_abort = 5,
  dead = 6,
  prepare_epoch_fence = 7,
};

// The names DescribeTransactions and ListTransactions use ("Ongoing", "CompleteCommit", ...).
const char* state_name(TxnState s);
// The state with that name; false when there is none.
bool state_from_name(const std::string& name, TxnState& out);

using TxnPartitions = std::map<std::string, std::set<int32_t>>;  // topic -> partitions

struct TxnLogValue {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t timeout_ms = 0;
  TxnState state = TxnState::empty;
  TxnPartitions partitions;
  int64_t last_update_ms = -1;
  int64_t start_ms = -1;
  bool operator==(const TxnLogValue&) const = default;
};

protocol::Bytes encode_txn_key(const std::string& transactional_id);
protocol::Bytes encode_txn_value(const TxnLogValue& value);
// CORRUPT_MESSAGE naming the problem for truncation, trailing bytes or an unknown state;
// UNSUPPORTED_VERSION for versions above the newest known (a newer Kafka's records).
Result<std::string> decode_txn_key(std::span<const uint8_t> key);
Result<TxnLogValue> decode_txn_value(std::span<const uint8_t> value);

}  // namespace mirra::txn
