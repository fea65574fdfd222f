// Writing a transaction marker (a COMMIT or ABORT control batch) into a partition, for the
// transaction coordinator alone (WriteTxnMarkers is refused from clients): as the coordinator's
// LogWriter, so never into a mirror topic (READ_ONLY_TOPIC, cluster/log_writer.h).
#pragma once

#include <memory>

#include "cluster/partition_manager.h"

namespace mirra::txn {

using MarkerJob = std::shared_ptr<cluster::Pending<Result<storage::AppendResult>>>;

// Posts the marker's append to the partition's shard at once; await ->wait() for the result
// (storage refuses an epoch below the producer's or a stale coordinator epoch).
MarkerJob start_marker(cluster::PartitionManager& partitions, std::shared_ptr<cluster::Partition> p,
                       int64_t producer_id, int16_t producer_epoch, int32_t coordinator_epoch,
                       bool commit);

}  // namespace mirra::txn
