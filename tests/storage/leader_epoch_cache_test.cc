// LeaderEpochCache: Kafka's leader-epoch-checkpoint text format, assign rules, endOffsetFor and
// truncation, and persistence across reopen.
#include "storage/leader_epoch_cache.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include "log_test_util.h"

#include <atomic>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace mirra::storage {
namespace {

namespace fs = std::filesystem;
using Entries = std::vector<EpochEntry>;

class LeaderEpochCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = dir_ / "leader-epoch-checkpoint"; }

  LeaderEpochCache open() {
    auto r = LeaderEpochCache::open(path_);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return std::move(r).value();
  }
  // A cache holding epochs 1@0, 3@10, 5@20.
  LeaderEpochCache three() {
    LeaderEpochCache c = open();
    EXPECT_TRUE(c.assign(1, 0).ok());
    EXPECT_TRUE(c.assign(3, 10).ok());
    EXPECT_TRUE(c.assign(5, 20).ok());
    return c;
  }
  std::string file_text() {
    std::ifstream f(path_);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  }
  void write_file(const std::string& text) { std::ofstream(path_) << text; }

  testing::TempDir tmp_;
  fs::path dir_ = tmp_.path();
  fs::path path_;
};

TEST_F(LeaderEpochCacheTest, MissingFileIsAnEmptyCache) {
  LeaderEpochCache c = open();
  EXPECT_TRUE(c.entries().empty());
  EXPECT_EQ(c.latest(), std::nullopt);
  EXPECT_EQ(c.end_offset_for(0, 100), std::make_pair(-1, int64_t{-1}));
  EXPECT_FALSE(fs::exists(path_));
}

TEST_F(LeaderEpochCacheTest, AssignPersistsInKafkaTextFormat) {
  LeaderEpochCache c = three();
  ASSERT_TRUE(c.assign(5, 25).ok());  // later batch of the latest epoch: no change
  EXPECT_EQ(file_text(), "0\n3\n1 0\n3 10\n5 20\n");
  EXPECT_EQ(c.latest(), (EpochEntry{5, 20}));
  EXPECT_EQ(open().entries(), (Entries{{1, 0}, {3, 10}, {5, 20}}));
  EXPECT_FALSE(fs::exists(dir_ / "leader-epoch-checkpoint.tmp"));
}

TEST_F(LeaderEpochCacheTest, ContradictingAssignTruncatesLikeKafka) {
  LeaderEpochCache c = three();
  ASSERT_TRUE(c.assign(5, 15).ok());  // same epoch, lower start: replaces
  EXPECT_EQ(c.entries(), (Entries{{1, 0}, {3, 10}, {5, 15}}));
  ASSERT_TRUE(c.assign(7, 12).ok());  // higher epoch below the latest start: drops 5@15
  EXPECT_EQ(c.entries(), (Entries{{1, 0}, {3, 10}, {7, 12}}));
  ASSERT_TRUE(c.assign(2, 30).ok());  // lower epoch: everything with epoch >= 2 goes
  EXPECT_EQ(c.entries(), (Entries{{1, 0}, {2, 30}}));
  EXPECT_EQ(open().entries(), c.entries());
}

TEST_F(LeaderEpochCacheTest, NegativeEpochOrOffsetIsRefused) {
  LeaderEpochCache c = open();
  EXPECT_EQ(c.assign(-1, 0).code(), ErrorCode::INVALID_REQUEST);
  EXPECT_EQ(c.assign(0, -5).code(), ErrorCode::INVALID_REQUEST);
  EXPECT_TRUE(c.entries().empty());
}

TEST_F(LeaderEpochCacheTest, EndOffsetForFollowsKafka) {
  LeaderEpochCache c = three();
  using P = std::pair<int32_t, int64_t>;
  EXPECT_EQ(c.end_offset_for(5, 30), P(5, 30));  // latest: the log end
  EXPECT_EQ(c.end_offset_for(4, 30), P(3, 20));  // between: floor epoch, next start
  EXPECT_EQ(c.end_offset_for(3, 30), P(3, 20));
  EXPECT_EQ(c.end_offset_for(2, 30), P(1, 10));
  EXPECT_EQ(c.end_offset_for(1, 30), P(1, 10));
  EXPECT_EQ(c.end_offset_for(0, 30), P(0, 0));    // below all: the first start offset
  EXPECT_EQ(c.end_offset_for(6, 30), P(-1, -1));  // above the latest: undefined
  EXPECT_EQ(c.end_offset_for(-1, 30), P(-1, -1));
}

TEST_F(LeaderEpochCacheTest, TruncateFromEnd) {
  LeaderEpochCache c = three();
  ASSERT_TRUE(c.truncate_from_end(21).ok());
  EXPECT_EQ(c.entries().size(), 3u);
  ASSERT_TRUE(c.truncate_from_end(20).ok());
  EXPECT_EQ(c.entries(), (Entries{{1, 0}, {3, 10}}));
  ASSERT_TRUE(c.truncate_from_end(5).ok());
  EXPECT_EQ(c.entries(), (Entries{{1, 0}}));
  EXPECT_EQ(open().entries(), (Entries{{1, 0}}));
  ASSERT_TRUE(c.truncate_from_end(-1).ok());  // undefined offset: ignored, as in Kafka
  EXPECT_EQ(c.entries().size(), 1u);
  ASSERT_TRUE(c.truncate_from_end(0).ok());
  EXPECT_TRUE(c.entries().empty());
}

TEST_F(LeaderEpochCacheTest, TruncateFromStartClampsTheCoveringEpoch) {
  LeaderEpochCache c = three();
  ASSERT_TRUE(c.truncate_from_start(0).ok());
  EXPECT_EQ(c.entries(), (Entries{{1, 0}, {3, 10}, {5, 20}}));
  ASSERT_TRUE(c.truncate_from_start(12).ok());
  EXPECT_EQ(c.entries(), (Entries{{3, 12}, {5, 20}}));
  ASSERT_TRUE(c.truncate_from_start(20).ok());
  EXPECT_EQ(c.entries(), (Entries{{5, 20}}));
  ASSERT_TRUE(c.truncate_from_start(100).ok());
  EXPECT_EQ(c.entries(), (Entries{{5, 100}}));
  EXPECT_EQ(open().entries(), (Entries{{5, 100}}));
}

TEST_F(LeaderEpochCacheTest, ClearPersistsAnEmptyCheckpoint) {
  LeaderEpochCache c = three();
  ASSERT_TRUE(c.clear().ok());
  EXPECT_EQ(file_text(), "0\n0\n");
  EXPECT_TRUE(open().entries().empty());
}

TEST_F(LeaderEpochCacheTest, ReadsKafkaFilesAndRefusesMalformedOnes) {
  write_file("0\n2\n0 0\n4  57");  // extra spaces, no final newline: still Kafka-readable
  EXPECT_EQ(open().entries(), (Entries{{0, 0}, {4, 57}}));
  for (const char* bad : {"", "1\n0\n", "0\n", "0\n2\n0 0\n", "0\n1\n0 0\n1 5\n", "0\n1\n0\n",
                          "0\n1\nx 0\n", "0\n1\n-1 0\n", "0\n1\n0 0 0\n", "0\n-1\n"}) {
    write_file(bad);
    auto r = LeaderEpochCache::open(path_);
    EXPECT_FALSE(r.ok()) << "accepted: '" << bad << "'";
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), ErrorCode::KAFKA_STORAGE_ERROR);
    }
  }
}

TEST_F(LeaderEpochCacheTest, NonMonotonicFileIsRepairedOnLoad) {
  write_file("0\n3\n1 0\n3 10\n2 5\n");  // 2@5 contradicts 3@10
  EXPECT_EQ(open().entries(), (Entries{{1, 0}, {2, 5}}));
}

}  // namespace
}  // namespace mirra::storage
