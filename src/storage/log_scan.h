// Reading a whole log back batch by batch, for the broker's own internal topics (the metadata
// log at start-up, __consumer_offsets when the group coordinator loads): unlike a fetch, the
// bytes are needed in memory and every batch is parsed.
#pragma once

#include <cstdint>
#include <functional>

#include "base/status.h"
#include "protocol/records/record_batch.h"
#include "storage/partition_log.h"

namespace mirra::storage {

// Calls `fn` for each batch that ends above `from`, in order, up to the log end offset as of
// the call. Owner thread only (it reads the log). A batch that does not parse, a failing read,
// or a non-OK Status from `fn` stops the scan and is returned, prefixed with the log's directory.
Status scan_batches(const PartitionLog& log, int64_t from,
                    const std::function<Status(const records::BatchView&)>& fn);

}  // namespace mirra::storage
