#include "txn/markers.h"

#include "base/clock.h"
#include "protocol/records/batch_builder.h"

namespace mirra::txn {

MarkerJob start_marker(cluster::PartitionManager& partitions, std::shared_ptr<cluster::Partition> p,
                       int64_t producer_id, int16_t producer_epoch, int32_t coordinator_epoch,
                       bool commit) {
  const auto type = commit ? records::ControlType::COMMIT : records::ControlType::ABORT;
  const int32_t leader_epoch = p->leader_epoch;
  // The batch is built on the shard: nothing is copied between threads but the ids.
  // Never into a mirror topic: the manager refuses it with READ_ONLY_TOPIC.
  return partitions.start_write(std::move(p), cluster::LogWriter::coordinator(),
                                [=](storage::PartitionLog& log) -> Result<storage::AppendResult> {
                                  const int64_t now = now_ms();
                                  auto batch = records::build_control_batch(
                                      type, producer_id, producer_epoch, coordinator_epoch, 0, now);
                                  if (!batch.ok()) return batch.status();
                                  return log.append_as_leader(batch.value(), leader_epoch,
                                                              storage::AppendOrigin::coordinator,
                                                              now);
                                });
}

}  // namespace mirra::txn
