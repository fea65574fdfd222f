// Broker settings of the transaction coordinator, under Kafka's server.properties names
// (server/config.cc parses them; the defaults are Kafka's).
#pragma once

#include <cstdint>

namespace mirra::txn {

struct TxnConfig {
  int32_t max_timeout_ms = 900000;              // transaction.max.timeout.ms
  int64_t id_expiration_ms = 604800000;         // transactional.id.expiration.ms
  int32_t state_log_partitions = 50;            // transaction.state.log.num.partitions
  int32_t state_log_segment_bytes = 104857600;  // transaction.state.log.segment.bytes
  // transaction.abort.timed.out.transaction.cleanup.interval.ms: how often timed-out
  // transactions are looked for (and markers that failed are retried).
  int32_t abort_timed_out_interval_ms = 10000;
  // transaction.remove.expired.transaction.cleanup.interval.ms
  int32_t remove_expired_interval_ms = 3600000;
};

}  // namespace mirra::txn
