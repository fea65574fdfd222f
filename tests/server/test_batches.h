// Record batches for the handler tests: one uncompressed batch of string values.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/records/batch_builder.h"

namespace mirra::server::test {

inline protocol::Bytes batch_of(const std::vector<std::string>& values, int64_t timestamp = 1000) {
  records::BatchBuilder b(records::BatchOptions{});
  for (const std::string& v : values) {
    records::RecordInput r;
    r.value = records::as_bytes(v);
    r.timestamp = timestamp;
    EXPECT_TRUE(b.append(r).ok());
  }
  auto out = b.finish();
  EXPECT_TRUE(out.ok());
  return out.value();
}

}  // namespace mirra::server::test
