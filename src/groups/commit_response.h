// The per-partition answers OffsetCommit and TxnOffsetCommit share: one entry per partition
// asked, in request order, and one error for every partition not answered otherwise.
#pragma once

#include "base/error_codes.h"

namespace mirra::groups {

template <typename Response, typename Request>
Response commit_response(const Request& req) {
  Response r;
  for (const auto& t : req.topics) {
    auto& out = r.topics.emplace_back();
    out.name = t.name;
    for (const auto& p : t.partitions)
      out.partitions.emplace_back().partition_index = p.partition_index;
  }
  return r;
}

template <typename Response>
void fail_all(Response& r, ErrorCode c) {
  for (auto& t : r.topics) {
    for (auto& p : t.partitions) {
      if (p.error_code == 0) p.error_code = error_number(c);
    }
  }
}

}  // namespace mirra::groups
