// Helpers for the metadata tests: record shorthands (TempDir comes from the storage tests).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../storage/log_test_util.h"  // TempDir
#include "metadata/image.h"
#include "metadata/records.h"

namespace mirra::metadata::testing {

namespace fs = std::filesystem;

using storage::testing::TempDir;

// Deterministic, distinct topic ids.
inline Uuid tid(uint64_t n) { return Uuid::from_bits(0x1234, 100 + n); }

// A topic with `partitions` single-replica partitions led by node 1, as records.
inline std::vector<MetadataRecord> create_topic(const std::string& name, uint64_t id,
                                                int partitions) {
  std::vector<MetadataRecord> out{TopicRecord{name, tid(id)}};
  for (int p = 0; p < partitions; ++p) out.emplace_back(PartitionRecord{tid(id), p, {1}, 1, 0});
  return out;
}

inline Status apply_all(MetadataImage& image, const std::vector<MetadataRecord>& records) {
  for (const auto& r : records) {
    if (Status st = image.apply(r, image.last_offset() + 1); !st) return st;
  }
  return Status::OK();
}

// Images compared through what a snapshot would hold.
inline void expect_same_image(const MetadataImage& a, const MetadataImage& b) {
  EXPECT_EQ(a.last_offset(), b.last_offset());
  EXPECT_EQ(image_records(a), image_records(b));
}

}  // namespace mirra::metadata::testing
