// ProducerIdManager: hands out producer ids (InitProducerId) that are never handed out twice,
// not even after a crash. Ids come in blocks reserved through the metadata store (a
// ProducerIdsRecord, durable before the block is used); a restart starts at the next block,
// so the ids left in a block when the broker stopped are skipped, as in Kafka.
//
// Threading: core thread.
#pragma once

#include <cstdint>

#include "base/asio.h"
#include "base/status.h"
#include "cluster/async_mutex.h"

namespace mirra::cluster {
class MetadataStore;
}

namespace mirra::txn {

class ProducerIdManager {
 public:
  // Kafka's block size (ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE).
  static constexpr int64_t kBlockSize = 1000;

  ProducerIdManager(cluster::MetadataStore& metadata, int32_t node_id,
                    int64_t block_size = kBlockSize)
      : metadata_(metadata), node_id_(node_id), block_size_(block_size) {}

  // The next unused id; reserves a new block first when the current one is used up.
  asio::awaitable<Result<int64_t>> next();

 private:
  cluster::MetadataStore& metadata_;
  const int32_t node_id_;
  const int64_t block_size_;
  int64_t next_ = 0;  // next id of the current block
  int64_t end_ = 0;   // end of the current block (exclusive); next_ == end_: none left
  cluster::AsyncMutex reserving_;
};

}  // namespace mirra::txn
