// TxnIndex: Kafka's 34-byte big-endian .txnindex entries, torn tails, truncation and the
// overlap rule read_committed fetches rely on.
#include "storage/txn_index.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include "log_test_util.h"

#include <atomic>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace mirra::storage {
namespace {

namespace fs = std::filesystem;

class TxnIndexTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = dir_ / "00000000000000000000.txnindex"; }

  TxnIndex open() {
    auto r = TxnIndex::open(path_);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return std::move(r).value();
  }
  std::vector<uint8_t> file_bytes() {
    std::ifstream f(path_, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  }
  void append_raw(const std::vector<uint8_t>& bytes) {
    std::ofstream f(path_, std::ios::binary | std::ios::app);
    f.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  }

  testing::TempDir tmp_;
  fs::path dir_ = tmp_.path();
  fs::path path_;
};

TEST_F(TxnIndexTest, FileIsCreatedByTheFirstAppend) {
  TxnIndex idx = open();
  EXPECT_TRUE(idx.entries().empty());
  EXPECT_FALSE(fs::exists(path_));
  EXPECT_TRUE(idx.flush().ok());
  ASSERT_TRUE(idx.append({5, 0, 3, 0}).ok());
  EXPECT_EQ(fs::file_size(path_), TxnIndex::kEntrySize);
}

TEST_F(TxnIndexTest, EntriesAreKafkaBigEndianAndSurviveReopen) {
  {
    TxnIndex idx = open();
    ASSERT_TRUE(idx.append({0x0102030405060708, 10, 20, 11}).ok());
    ASSERT_TRUE(idx.append({-2, 15, 30, 15}).ok());  // mirrored producer ids are stored as is
    ASSERT_TRUE(idx.flush().ok());
  }
  std::vector<uint8_t> b = file_bytes();
  ASSERT_EQ(b.size(), 2 * TxnIndex::kEntrySize);
  std::vector<uint8_t> first(b.begin(), b.begin() + TxnIndex::kEntrySize);
  EXPECT_EQ(first, (std::vector<uint8_t>{0, 0,                        // version 0
                                         1, 2, 3, 4, 5, 6, 7, 8,      // producer id
                                         0, 0, 0, 0, 0, 0, 0, 10,     // first offset
                                         0, 0, 0, 0, 0, 0, 0, 20,     // last offset
                                         0, 0, 0, 0, 0, 0, 0, 11}));  // last stable offset
  TxnIndex idx = open();
  EXPECT_EQ(idx.entries(),
            (std::vector<AbortedTxn>{{0x0102030405060708, 10, 20, 11}, {-2, 15, 30, 15}}));
}

TEST_F(TxnIndexTest, TornLastEntryIsCut) {
  {
    TxnIndex idx = open();
    ASSERT_TRUE(idx.append({1, 0, 5, 0}).ok());
    ASSERT_TRUE(idx.append({2, 6, 9, 6}).ok());
  }
  append_raw({0, 0, 0, 0, 0, 0, 0, 3, 0, 0});  // 10 of 34 bytes of a third entry
  TxnIndex idx = open();
  EXPECT_EQ(idx.entries().size(), 2u);
  EXPECT_EQ(fs::file_size(path_), 2 * TxnIndex::kEntrySize);
  ASSERT_TRUE(idx.append({3, 10, 12, 10}).ok());  // lands on an entry boundary
  TxnIndex again = open();
  EXPECT_EQ(again.entries().back(), (AbortedTxn{3, 10, 12, 10}));
}

TEST_F(TxnIndexTest, UnknownVersionIsAnError) {
  std::vector<uint8_t> entry(TxnIndex::kEntrySize, 0);
  entry[1] = 1;  // version 1
  append_raw(entry);
  auto r = TxnIndex::open(path_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::KAFKA_STORAGE_ERROR);
}

TEST_F(TxnIndexTest, AppendsMustMoveForward) {
  TxnIndex idx = open();
  ASSERT_TRUE(idx.append({1, 0, 5, 0}).ok());
  EXPECT_FALSE(idx.append({2, 1, 5, 1}).ok());
  EXPECT_FALSE(idx.append({2, 1, 4, 1}).ok());
  EXPECT_EQ(idx.entries().size(), 1u);
}

TEST_F(TxnIndexTest, TruncateToDropsMarkersAtOrAboveTheOffset) {
  TxnIndex idx = open();
  ASSERT_TRUE(idx.append({1, 0, 10, 0}).ok());
  ASSERT_TRUE(idx.append({2, 5, 20, 5}).ok());
  ASSERT_TRUE(idx.append({3, 21, 30, 21}).ok());
  ASSERT_TRUE(idx.truncate_to(31).ok());
  EXPECT_EQ(idx.entries().size(), 3u);
  ASSERT_TRUE(idx.truncate_to(20).ok());
  EXPECT_EQ(idx.entries(), (std::vector<AbortedTxn>{{1, 0, 10, 0}}));
  EXPECT_EQ(fs::file_size(path_), TxnIndex::kEntrySize);
  ASSERT_TRUE(idx.append({4, 12, 15, 12}).ok());  // the truncated tail may be rewritten
  EXPECT_EQ(open().entries().size(), 2u);
  ASSERT_TRUE(idx.truncate_to(0).ok());
  EXPECT_TRUE(idx.entries().empty());
  EXPECT_EQ(fs::file_size(path_), 0u);
}

TEST_F(TxnIndexTest, CollectReturnsOverlappingTransactions) {
  TxnIndex idx = open();
  const AbortedTxn a{1, 0, 10, 0}, b{2, 5, 20, 5}, c{3, 21, 30, 21}, d{4, 40, 50, 40};
  for (const AbortedTxn& t : {a, b, c, d}) ASSERT_TRUE(idx.append(t).ok());
  auto collect = [&](int64_t from, int64_t to, bool* complete = nullptr) {
    std::vector<AbortedTxn> out;
    bool done = idx.collect(from, to, out);
    if (complete) *complete = done;
    return out;
  };
  // The marker offset counts (last_offset >= fetch offset), the upper bound does not.
  EXPECT_EQ(collect(10, 11), (std::vector<AbortedTxn>{a, b}));
  EXPECT_EQ(collect(11, 21), (std::vector<AbortedTxn>{b}));
  EXPECT_EQ(collect(11, 22), (std::vector<AbortedTxn>{b, c}));
  EXPECT_EQ(collect(31, 40), std::vector<AbortedTxn>{});
  EXPECT_EQ(collect(0, 100), (std::vector<AbortedTxn>{a, b, c, d}));
  // Completeness: once an LSO reaches the bound, later segments need not be searched.
  bool complete = false;
  collect(0, 21, &complete);
  EXPECT_TRUE(complete);  // c's LSO 21 >= 21
  collect(0, 100, &complete);
  EXPECT_FALSE(complete);
}

TEST_F(TxnIndexTest, RenameAndRemove) {
  TxnIndex idx = open();
  fs::path other = dir_ / "00000000000000000000.txnindex.deleted";
  ASSERT_TRUE(idx.rename(other).ok());  // no file yet: only the name changes
  EXPECT_EQ(idx.path(), other);
  EXPECT_FALSE(fs::exists(other));
  ASSERT_TRUE(idx.append({1, 0, 1, 0}).ok());
  EXPECT_TRUE(fs::exists(other));
  ASSERT_TRUE(idx.rename(path_).ok());
  EXPECT_TRUE(fs::exists(path_));
  EXPECT_FALSE(fs::exists(other));
  ASSERT_TRUE(idx.append({2, 2, 3, 2}).ok());  // the fd followed the rename
  EXPECT_EQ(open().entries().size(), 2u);
  ASSERT_TRUE(idx.remove().ok());
  EXPECT_FALSE(fs::exists(path_));
  EXPECT_TRUE(idx.entries().empty());
  EXPECT_TRUE(idx.remove().ok());  // already gone: fine
}

TEST_F(TxnIndexTest, MovedIndexKeepsWorking) {
  TxnIndex a = open();
  ASSERT_TRUE(a.append({1, 0, 1, 0}).ok());
  TxnIndex b(std::move(a));
  ASSERT_TRUE(b.append({2, 2, 3, 2}).ok());
  TxnIndex c;
  c = std::move(b);
  ASSERT_TRUE(c.append({3, 4, 5, 4}).ok());
  ASSERT_TRUE(c.flush().ok());
  EXPECT_EQ(open().entries().size(), 3u);
}

}  // namespace
}  // namespace mirra::storage
