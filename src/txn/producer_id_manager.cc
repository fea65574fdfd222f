#include "txn/producer_id_manager.h"

#include <fmt/format.h>

#include "base/log.h"
#include "cluster/metadata_store.h"

namespace mirra::txn {
namespace {

constexpr const char* kMirraLogComponent = "txn";

}  // namespace

asio::awaitable<Result<int64_t>> ProducerIdManager::next() {
  if (next_ < end_) co_return next_++;
  // One reservation at a time: callers that arrive meanwhile take ids from the new block.
  auto guard = co_await reserving_.lock();
  if (next_ < end_) co_return next_++;
  int64_t first = -1;
  auto build =
      [&](const metadata::MetadataImage& image) -> Result<std::vector<metadata::MetadataRecord>> {
    first = image.next_producer_id();
    if (first + block_size_ > metadata::kMaxNextProducerId) {
      return Status(ErrorCode::UNKNOWN_SERVER_ERROR, "producer ids are exhausted");
    }
    return std::vector<metadata::MetadataRecord>{
        metadata::ProducerIdsRecord{node_id_, first + block_size_}};
  };
  Status st = co_await metadata_.change(build);
  if (!st) {
    MIRRA_LOG_ERROR("cannot reserve producer ids: {}", st.to_string());
    co_return st;
  }
  MIRRA_LOG_INFO("reserved producer ids {}-{}", first, first + block_size_ - 1);
  next_ = first;
  end_ = first + block_size_;
  co_return next_++;
}

}  // namespace mirra::txn
