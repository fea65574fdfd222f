#include "protocol/records/record_set.h"

#include <gtest/gtest.h>

#include <vector>

#include "protocol/records/batch_builder.h"

namespace mirra::records {
namespace {

std::vector<uint8_t> batch_at(int64_t offset, int records, Compression c = Compression::none) {
  BatchOptions o;
  o.base_offset = offset;
  o.compression = c;
  BatchBuilder b(o);
  for (int i = 0; i < records; ++i) {
    RecordInput r;
    r.value = as_bytes("payload");
    EXPECT_TRUE(b.append(r));
  }
  return std::move(b.finish()).value();
}

std::vector<uint8_t> concat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(RecordSet, IteratesSeveralBatches) {
  const auto set = concat({batch_at(0, 3), batch_at(3, 2, Compression::gzip), batch_at(5, 1)});
  RecordSetIterator it(set, /*validate=*/true);
  BatchView b;
  std::vector<int64_t> offsets;
  while (it.next(b) == RecordSetStep::batch) {
    EXPECT_EQ(it.magic(), 2);
    offsets.push_back(b.base_offset());
  }
  EXPECT_TRUE(it.status());
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 3, 5}));
  EXPECT_EQ(it.next(b), RecordSetStep::end);
  EXPECT_EQ(it.position(), set.size());
}

TEST(RecordSet, EmptyIsEnd) {
  RecordSetIterator it({});
  BatchView b;
  EXPECT_EQ(it.next(b), RecordSetStep::end);
}

TEST(RecordSet, TrailingPartialBatchIsNotAnError) {
  const auto first = batch_at(0, 3);
  const auto second = batch_at(3, 4);
  for (size_t cut = 1; cut < second.size(); ++cut) {
    auto set = first;
    set.insert(set.end(), second.begin(), second.begin() + static_cast<ptrdiff_t>(cut));
    RecordSetIterator it(set, true);
    BatchView b;
    ASSERT_EQ(it.next(b), RecordSetStep::batch);
    ASSERT_EQ(it.next(b), RecordSetStep::partial) << cut;
    EXPECT_TRUE(it.status());
    EXPECT_EQ(it.position(), first.size());
    EXPECT_EQ(it.rest().size(), cut);
  }
}

TEST(RecordSet, OldMagicStopsWithClearError) {
  for (uint8_t magic : {0, 1}) {
    auto set = batch_at(0, 1);
    std::vector<uint8_t> v1(34, 0);
    v1[11] = 22;  // message size
    v1[16] = magic;
    set.insert(set.end(), v1.begin(), v1.end());
    RecordSetIterator it(set);
    BatchView b;
    ASSERT_EQ(it.next(b), RecordSetStep::batch);
    ASSERT_EQ(it.next(b), RecordSetStep::error);
    EXPECT_EQ(it.magic(), magic);
    EXPECT_EQ(it.status().code(), ErrorCode::UNSUPPORTED_VERSION);
    EXPECT_NE(it.status().message().find("is not supported; Mirra accepts record batch v2 only"),
              std::string::npos);
    EXPECT_EQ(it.next(b), RecordSetStep::error);  // sticky
  }
}

TEST(RecordSet, CorruptLengthAndCrcAreErrors) {
  auto set = batch_at(0, 2);
  auto bad = set;
  bad[11] = 5;  // batchLength 5
  RecordSetIterator it(bad);
  BatchView b;
  EXPECT_EQ(it.next(b), RecordSetStep::error);
  EXPECT_EQ(it.status().code(), ErrorCode::CORRUPT_MESSAGE);

  bad = set;
  bad.back() ^= 1;
  RecordSetIterator unchecked(bad, false);
  EXPECT_EQ(unchecked.next(b), RecordSetStep::batch);
  RecordSetIterator checked(bad, true);
  EXPECT_EQ(checked.next(b), RecordSetStep::error);
}

}  // namespace
}  // namespace mirra::records
