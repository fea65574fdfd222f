#include "metadata/metadata_log.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <mutex>

#include "base/log.h"
#include "metadata/snapshot.h"
#include "metadata_test_util.h"

namespace mirra::metadata {
namespace {

using testing::apply_all;
using testing::create_topic;
using testing::expect_same_image;
using testing::TempDir;
using testing::tid;
namespace fs = std::filesystem;

// Collects WARN lines while alive.
class CapturedWarnings {
 public:
  CapturedWarnings() {
    log::set_sink([this](log::Level l, std::string_view line) {
      if (l == log::Level::kWarn) lines_.emplace_back(line);
    });
  }
  ~CapturedWarnings() { log::set_sink({}); }
  bool contains(std::string_view needle) const {
    return std::any_of(lines_.begin(), lines_.end(),
                       [&](const std::string& l) { return l.find(needle) != std::string::npos; });
  }

 private:
  std::vector<std::string> lines_;
};

class MetadataLogTest : public ::testing::Test {
 protected:
  fs::path meta_dir() const { return tmp_.path() / "meta"; }
  fs::path part_dir() const { return meta_dir() / kMetadataPartitionDir; }

  std::unique_ptr<MetadataLog> open(MetadataImage& image, MetadataLogOptions options = {}) {
    auto log = MetadataLog::open(meta_dir(), &image, options);
    EXPECT_TRUE(log.ok()) << log.status().to_string();
    return log.ok() ? std::move(log).value() : nullptr;
  }

  // Appends the records as one batch and applies them, as the broker core will.
  int64_t commit(MetadataLog& log, MetadataImage& image, const std::vector<MetadataRecord>& recs) {
    auto first = log.append(recs);
    EXPECT_TRUE(first.ok()) << first.status().to_string();
    if (!first.ok()) return -1;
    for (size_t i = 0; i < recs.size(); ++i) {
      Status st = image.apply(recs[i], *first + static_cast<int64_t>(i));
      EXPECT_TRUE(st.ok()) << st.to_string();
    }
    return *first;
  }

  // Topics t<from>..t<to - 1>, one append each, with `partitions` partitions.
  void commit_topics(MetadataLog& log, MetadataImage& image, uint64_t from, uint64_t to,
                     int partitions) {
    for (uint64_t i = from; i < to; ++i)
      commit(log, image, create_topic("t" + std::to_string(i), i + 1, partitions));
  }

  std::vector<fs::path> files_with(std::string_view suffix) const {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(part_dir()))
      if (e.path().filename().string().ends_with(suffix)) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
  }

  // Reopens into a fresh image and checks it equals `expected`.
  void expect_reopens_as(const MetadataImage& expected) {
    MetadataImage image;
    auto log = open(image);
    ASSERT_NE(log, nullptr);
    expect_same_image(image, expected);
    EXPECT_EQ(log->next_offset(), expected.last_offset() + 1);
  }

  TempDir tmp_;
};

TEST_F(MetadataLogTest, FreshLogIsEmpty) {
  MetadataImage image;
  auto log = open(image);
  ASSERT_NE(log, nullptr);
  EXPECT_TRUE(fs::is_directory(part_dir()));
  EXPECT_EQ(log->next_offset(), 0);
  EXPECT_EQ(log->records_since_snapshot(), 0);
  EXPECT_EQ(log->snapshot_end_offset(), 0);
  EXPECT_EQ(image.last_offset(), -1);
  EXPECT_TRUE(log->close().ok());
}

TEST_F(MetadataLogTest, OpenNeedsAnEmptyImage) {
  MetadataImage image;
  ASSERT_TRUE(image.apply(TopicRecord{"t", tid(1)}, 0).ok());
  auto log = MetadataLog::open(meta_dir(), &image);
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), ErrorCode::INVALID_REQUEST);
  EXPECT_FALSE(MetadataLog::open(meta_dir(), nullptr).ok());
}

TEST_F(MetadataLogTest, AppendAssignsOffsetsAndReopenReplays) {
  MetadataImage image;
  auto log = open(image);
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(commit(*log, image, create_topic("orders", 1, 3)), 0);
  EXPECT_EQ(commit(*log, image, create_topic("users", 2, 1)), 4);
  EXPECT_EQ(commit(*log, image,
                   {ConfigRecord{kTopicResource, "orders", "retention.ms", "5"},
                    ConfigRecord{kBrokerResource, "", "num.partitions", "2"}}),
            6);
  EXPECT_EQ(commit(*log, image, {RemoveTopicRecord{tid(2)}}), 8);
  EXPECT_EQ(log->next_offset(), 9);
  EXPECT_EQ(log->records_since_snapshot(), 9);
  ASSERT_TRUE(log->close().ok());
  expect_reopens_as(image);

  // Appending continues after the reopen.
  MetadataImage again;
  auto log2 = open(again);
  EXPECT_EQ(commit(*log2, again, create_topic("later", 3, 1)), 9);
  log2.reset();  // the destructor closes
  MetadataImage third;
  auto log3 = open(third);
  EXPECT_NE(third.topic("later"), nullptr);
  EXPECT_EQ(third.last_offset(), 10);
}

TEST_F(MetadataLogTest, AppendRefusals) {
  MetadataImage image;
  MetadataLogOptions options;
  options.max_batch_bytes = 1000;
  auto log = open(image, options);
  ASSERT_NE(log, nullptr);
  auto empty = log->append({});
  EXPECT_EQ(empty.status().code(), ErrorCode::INVALID_REQUEST);
  std::vector<MetadataRecord> big{ConfigRecord{kBrokerResource, "", "k", std::string(2000, 'v')}};
  auto too_big = log->append(big);
  EXPECT_EQ(too_big.status().code(), ErrorCode::MESSAGE_TOO_LARGE);
  // A refusal leaves the log usable.
  EXPECT_EQ(commit(*log, image, create_topic("t", 1, 1)), 0);
  ASSERT_TRUE(log->close().ok());
  auto closed = log->append(create_topic("u", 2, 1));
  EXPECT_EQ(closed.status().code(), ErrorCode::KAFKA_STORAGE_ERROR);
  EXPECT_NE(closed.status().message().find("closed"), std::string::npos);
  EXPECT_FALSE(log->write_snapshot(image).ok());
}

TEST_F(MetadataLogTest, RecordThatDoesNotApplyFailsOpen) {
  {
    MetadataImage image;
    auto log = open(image);
    ASSERT_TRUE(log->append(create_topic("t", 1, 1)).ok());
    // The log does not check records against the image: a partition of an unknown topic.
    std::vector<MetadataRecord> bad{PartitionRecord{tid(9), 0, {1}, 1, 0}};
    ASSERT_TRUE(log->append(bad).ok());
  }
  MetadataImage image;
  auto log = MetadataLog::open(meta_dir(), &image);
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), ErrorCode::CORRUPT_MESSAGE);
  EXPECT_NE(log.status().message().find("PartitionRecord at offset 2"), std::string::npos)
      << log.status().message();
  EXPECT_EQ(image.last_offset(), -1);
  EXPECT_TRUE(image.topics().empty());
}

TEST_F(MetadataLogTest, SnapshotThenReplayAfterIt) {
  MetadataImage image;
  auto log = open(image);
  commit(*log, image, create_topic("orders", 1, 2));
  commit(*log, image, {ConfigRecord{kTopicResource, "orders", "retention.ms", "5"}});
  ASSERT_TRUE(log->write_snapshot(image).ok());
  EXPECT_EQ(log->snapshot_end_offset(), 4);
  EXPECT_EQ(log->records_since_snapshot(), 0);
  EXPECT_TRUE(fs::exists(part_dir() / "00000000000000000004.checkpoint"));
  commit(*log, image, create_topic("users", 2, 1));
  commit(*log, image, {PartitionRecord{tid(1), 1, {1}, 1, 3}});
  EXPECT_EQ(log->records_since_snapshot(), 3);
  ASSERT_TRUE(log->close().ok());

  MetadataImage reopened;
  auto log2 = open(reopened);
  expect_same_image(reopened, image);
  EXPECT_EQ(log2->snapshot_end_offset(), 4);
  EXPECT_EQ(log2->records_since_snapshot(), 3);
  EXPECT_EQ(reopened.topic("orders")->partitions[1].leader_epoch, 3);
}

TEST_F(MetadataLogTest, SnapshotRefusesImagesOutOfRange) {
  MetadataImage image;
  auto log = open(image);
  commit(*log, image, create_topic("orders", 1, 1));
  MetadataImage ahead;
  ASSERT_TRUE(ahead.apply(TopicRecord{"x", tid(5)}, 2).ok());
  EXPECT_EQ(log->write_snapshot(ahead).code(), ErrorCode::INVALID_REQUEST);
  ASSERT_TRUE(log->write_snapshot(image).ok());
  MetadataImage behind;
  ASSERT_TRUE(behind.apply(TopicRecord{"x", tid(5)}, 0).ok());
  EXPECT_EQ(log->write_snapshot(behind).code(), ErrorCode::INVALID_REQUEST);
  EXPECT_TRUE(log->write_snapshot(image).ok());  // the same end again is fine
}

TEST_F(MetadataLogTest, SnapshotDeletesCoveredSegmentsAndOlderSnapshots) {
  MetadataImage image;
  MetadataLogOptions options;
  options.segment_bytes = 400;  // a few batches per segment
  auto log = open(image, options);
  commit_topics(*log, image, 0, 20, 2);
  ASSERT_TRUE(log->write_snapshot(image).ok());
  const auto first_snapshot = files_with(".checkpoint");
  ASSERT_EQ(first_snapshot.size(), 1u);
  commit_topics(*log, image, 20, 40, 2);
  const size_t segments_before = files_with(".log").size();
  ASSERT_GT(segments_before, 6u);
  ASSERT_TRUE(log->write_snapshot(image).ok());
  const auto segments = files_with(".log");
  EXPECT_LT(segments.size(), segments_before);
  // Only the active segment is left: everything below the log end is covered.
  EXPECT_EQ(segments.size(), 1u);
  EXPECT_TRUE(files_with(".deleted").empty());
  EXPECT_FALSE(fs::exists(first_snapshot[0]));
  EXPECT_EQ(files_with(".checkpoint").size(), 1u);
  commit(*log, image, {RemoveTopicRecord{tid(3)}});
  ASSERT_TRUE(log->close().ok());
  expect_reopens_as(image);
}

TEST_F(MetadataLogTest, SnapshotKeepsSegmentsItDoesNotCover) {
  MetadataImage image;
  MetadataLogOptions options;
  options.segment_bytes = 400;
  auto log = open(image, options);
  commit_topics(*log, image, 0, 10, 2);
  MetadataImage half = image;  // a snapshot of an image that lags the log
  commit_topics(*log, image, 10, 20, 2);
  ASSERT_TRUE(log->write_snapshot(half).ok());
  // Every record after the snapshot is still in the log.
  ASSERT_TRUE(log->close().ok());
  expect_reopens_as(image);
}

// A snapshot may end inside a batch (an image that applied part of an append); replay then
// skips the batch's records the snapshot already holds.
TEST_F(MetadataLogTest, SnapshotInsideABatch) {
  MetadataImage image;
  auto log = open(image);
  const auto records = create_topic("orders", 1, 3);
  ASSERT_EQ(log->append(records).value(), 0);
  MetadataImage partial;
  ASSERT_TRUE(partial.apply(records[0], 0).ok());
  ASSERT_TRUE(partial.apply(records[1], 1).ok());
  ASSERT_TRUE(log->write_snapshot(partial).ok());
  EXPECT_EQ(log->records_since_snapshot(), 2);
  ASSERT_TRUE(log->close().ok());
  for (size_t i = 0; i < records.size(); ++i)
    ASSERT_TRUE(image.apply(records[i], static_cast<int64_t>(i)).ok());
  expect_reopens_as(image);
}

// A crash in the middle of writing a batch: the torn batch is gone entirely, earlier ones stay.
TEST_F(MetadataLogTest, TornTailDropsTheWholeLastAppend) {
  const std::vector<size_t> cuts = {1, 12, 61, 100,
                                    0};  // bytes of the last batch kept; 0 = all but 1
  for (size_t cut : cuts) {
    fs::remove_all(meta_dir());
    MetadataImage image;
    uintmax_t size_before_last = 0;
    {
      auto log = open(image);
      commit(*log, image, create_topic("orders", 1, 2));
      commit(*log, image, {ConfigRecord{kTopicResource, "orders", "retention.ms", "5"}});
      ASSERT_TRUE(log->close().ok());
      size_before_last = fs::file_size(files_with(".log").at(0));
      MetadataImage reopened;
      auto log2 = open(reopened);
      std::vector<MetadataRecord> last = create_topic("users", 2, 5);
      ASSERT_TRUE(log2->append(last).ok());
      ASSERT_TRUE(log2->close().ok());
    }
    const fs::path seg = files_with(".log").at(0);
    const uintmax_t full = fs::file_size(seg);
    ASSERT_GT(full, size_before_last + 100);
    fs::resize_file(seg, cut == 0 ? full - 1 : size_before_last + cut);

    MetadataImage recovered;
    auto log = open(recovered);
    ASSERT_NE(log, nullptr);
    expect_same_image(recovered, image);
    EXPECT_EQ(recovered.topic("users"), nullptr) << "cut " << cut;
    EXPECT_EQ(log->next_offset(), 4);
    EXPECT_EQ(commit(*log, recovered, create_topic("users", 2, 1)), 4);
  }
}

TEST_F(MetadataLogTest, CorruptSnapshotFallsBackToAnOlderOneAndTheLog) {
  MetadataImage image;
  fs::path older_copy = tmp_.path() / "older.checkpoint";
  fs::path older;
  {
    auto log = open(image);
    commit(*log, image, create_topic("orders", 1, 2));
    ASSERT_TRUE(log->write_snapshot(image).ok());
    older = files_with(".checkpoint").at(0);
    fs::copy_file(older, older_copy);
    commit(*log, image, create_topic("users", 2, 1));
    ASSERT_TRUE(log->write_snapshot(image).ok());
    commit(*log, image, {ConfigRecord{kBrokerResource, "", "num.partitions", "3"}});
    ASSERT_TRUE(log->close().ok());
  }
  // As if the crash came before the older snapshot was deleted.
  fs::copy_file(older_copy, older);
  const fs::path newest = files_with(".checkpoint").back();
  ASSERT_NE(newest, older);

  for (int damage = 0; damage < 2; ++damage) {
    if (damage == 0) {
      // A flipped byte in the body: CRC mismatch.
      std::fstream f(newest, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(20);
      f.put('\x7f');
    } else {
      fs::resize_file(newest, fs::file_size(newest) / 2);  // torn
    }
    CapturedWarnings warnings;
    MetadataImage recovered;
    auto log = open(recovered);
    ASSERT_NE(log, nullptr);
    expect_same_image(recovered, image);
    EXPECT_EQ(log->snapshot_end_offset(), 3);
    EXPECT_TRUE(warnings.contains(newest.filename().string())) << damage;
    EXPECT_TRUE(warnings.contains("falling back")) << damage;
  }
}

TEST_F(MetadataLogTest, CorruptOnlySnapshotFallsBackToTheWholeLog) {
  MetadataImage image;
  {
    auto log = open(image);
    commit(*log, image, create_topic("orders", 1, 2));
    ASSERT_TRUE(log->write_snapshot(image).ok());  // one segment: nothing deleted
    commit(*log, image, create_topic("users", 2, 1));
  }
  fs::resize_file(files_with(".checkpoint").at(0), 10);
  CapturedWarnings warnings;
  expect_reopens_as(image);
  EXPECT_TRUE(warnings.contains("shorter than the 18-byte header"));
}

TEST_F(MetadataLogTest, CorruptSnapshotWithoutTheRecordsItCoveredFailsOpen) {
  MetadataImage image;
  MetadataLogOptions options;
  options.segment_bytes = 300;
  {
    auto log = open(image, options);
    commit_topics(*log, image, 0, 10, 1);
    ASSERT_TRUE(log->write_snapshot(image).ok());
  }
  fs::resize_file(files_with(".checkpoint").at(0), 30);
  MetadataImage recovered;
  auto log = MetadataLog::open(meta_dir(), &recovered, options);
  ASSERT_FALSE(log.ok());
  EXPECT_EQ(log.status().code(), ErrorCode::CORRUPT_MESSAGE);
  EXPECT_NE(log.status().message().find("no valid snapshot covers"), std::string::npos)
      << log.status().message();
}

TEST_F(MetadataLogTest, LogBehindTheSnapshotRestartsAtItsEnd) {
  MetadataImage image;
  {
    auto log = open(image);
    commit(*log, image, create_topic("orders", 1, 2));
    ASSERT_TRUE(log->write_snapshot(image).ok());
  }
  for (const auto& seg : files_with(".log")) fs::remove(seg);
  for (const auto& idx : files_with("index")) fs::remove(idx);
  CapturedWarnings warnings;
  MetadataImage recovered;
  auto log = open(recovered);
  ASSERT_NE(log, nullptr);
  expect_same_image(recovered, image);
  EXPECT_EQ(log->next_offset(), 3);
  EXPECT_TRUE(warnings.contains("restarting the log"));
  EXPECT_EQ(commit(*log, recovered, create_topic("users", 2, 1)), 3);
}

TEST_F(MetadataLogTest, StrayTempSnapshotIsIgnored) {
  MetadataImage image;
  {
    auto log = open(image);
    commit(*log, image, create_topic("orders", 1, 1));
  }
  std::ofstream(part_dir() / "00000000000000000002.checkpoint.tmp") << "half written";
  expect_reopens_as(image);
}

}  // namespace
}  // namespace mirra::metadata
