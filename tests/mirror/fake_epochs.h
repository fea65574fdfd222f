// The leader-epoch cache of a fake log kept as whole batches (base offset -> bytes), for the
// fake source and the fake destination of MirrorRunner's tests: an entry wherever a batch's
// epoch is above the last entry's, as PartitionLog's appends assign them.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "protocol/records/record_set.h"
#include "protocol/wire.h"
#include "storage/leader_epoch_cache.h"

namespace mirra::mirror::test {

inline std::vector<storage::EpochEntry> epochs_of(
    const std::map<int64_t, protocol::Bytes>& batches) {
  std::vector<storage::EpochEntry> out;
  for (const auto& [base, bytes] : batches) {
    const int32_t epoch = records::BatchView::parse(bytes).value().partition_leader_epoch();
    if (epoch >= 0 && (out.empty() || epoch > out.back().epoch)) out.push_back({epoch, base});
  }
  return out;
}

}  // namespace mirra::mirror::test
