// LogConfig parsing, the sparse indexes, checkpoint files.
#include <gtest/gtest.h>

#include <fstream>

#include "log_test_util.h"
#include "storage/checkpoint.h"
#include "storage/log_config.h"
#include "storage/offset_index.h"
#include "storage/time_index.h"

namespace mirra::storage::testing {
namespace {

TEST(LogConfig, DefaultsAreKafkas) {
  LogConfig c;
  EXPECT_EQ(c.segment_bytes, 1073741824);
  EXPECT_EQ(c.segment_ms, 604800000);
  EXPECT_EQ(c.segment_index_bytes, 10485760);
  EXPECT_EQ(c.index_interval_bytes, 4096);
  EXPECT_EQ(c.retention_ms, 604800000);
  EXPECT_EQ(c.retention_bytes, -1);
  EXPECT_EQ(c.max_message_bytes, 1048588);
  EXPECT_EQ(c.flush_messages, INT64_MAX);
  EXPECT_EQ(c.producer_id_expiration_ms, 86400000);
  EXPECT_TRUE(c.cleanup_delete);
  EXPECT_FALSE(c.cleanup_compact);
}

TEST(LogConfig, ParsesKafkaNames) {
  auto c = LogConfig::parse({{"segment.bytes", "1048576"},
                             {"retention.ms", "-1"},
                             {"flush.messages", "1"},
                             {"message.timestamp.type", "LogAppendTime"},
                             {"cleanup.policy", "compact, delete"},
                             {"max.message.bytes", "2000000"}});
  ASSERT_TRUE(c) << c.status().to_string();
  EXPECT_EQ(c->segment_bytes, 1048576);
  EXPECT_EQ(c->retention_ms, -1);
  EXPECT_EQ(c->flush_messages, 1);
  EXPECT_EQ(c->timestamp_type, MessageTimestampType::log_append_time);
  EXPECT_TRUE(c->cleanup_compact);
  EXPECT_TRUE(c->cleanup_delete);
}

TEST(LogConfig, ErrorsNameTheKey) {
  for (const auto& [k, v] :
       std::vector<std::pair<std::string, std::string>>{{"segment.bytes", "abc"},
                                                        {"segment.bytes", "99999999999"},
                                                        {"retention.ms", "-2"},
                                                        {"flush.messages", "0"},
                                                        {"message.timestamp.type", "Wallclock"},
                                                        {"cleanup.policy", "shred"},
                                                        {"segmnet.bytes", "1"}}) {
    auto c = LogConfig::parse({{k, v}});
    ASSERT_FALSE(c) << k << "=" << v;
    EXPECT_EQ(c.status().code(), ErrorCode::INVALID_CONFIG);
    EXPECT_NE(c.status().message().find(k), std::string::npos) << c.status().message();
  }
}

TEST(OffsetIndex, LookupTruncateReload) {
  TempDir dir;
  const auto path = dir.path() / "00000000000000000100.index";
  bool valid = false;
  {
    auto idx = OffsetIndex::open(path, 100, 10, 1 << 20, valid);
    ASSERT_TRUE(idx);
    for (int i = 1; i <= 5; ++i) ASSERT_TRUE(idx->append(100 + 10 * i, 1000 * i));
    EXPECT_EQ(idx->lookup(99).position, 0);
    EXPECT_EQ(idx->lookup(109).position, 0);
    EXPECT_EQ(idx->lookup(110).position, 1000);
    EXPECT_EQ(idx->lookup(135).position, 3000);
    EXPECT_EQ(idx->lookup(1000).offset, 150);
    ASSERT_TRUE(idx->truncate_to(130));
    EXPECT_EQ(idx->entry_count(), 2u);
  }
  EXPECT_EQ(fs::file_size(path), 16u);
  auto idx = OffsetIndex::open(path, 100, 10, 1 << 20, valid);
  EXPECT_TRUE(valid);
  EXPECT_EQ(idx->last()->offset, 120);
  // A position past the log, or a torn entry, invalidates it.
  (void)OffsetIndex::open(path, 100, 10, 1500, valid);
  EXPECT_FALSE(valid);
  fs::resize_file(path, 13);
  (void)OffsetIndex::open(path, 100, 10, 1 << 20, valid);
  EXPECT_FALSE(valid);
}

TEST(TimeIndex, OnlyGrowingTimestamps) {
  TempDir dir;
  bool valid = false;
  auto idx = TimeIndex::open(dir.path() / "0.timeindex", 0, 10, valid);
  ASSERT_TRUE(idx);
  ASSERT_TRUE(idx->maybe_append(100, 5));
  ASSERT_TRUE(idx->maybe_append(90, 7));  // not above: ignored
  ASSERT_TRUE(idx->maybe_append(200, 9));
  EXPECT_EQ(idx->entry_count(), 2u);
  EXPECT_EQ(idx->lookup(50).offset, 0);
  EXPECT_EQ(idx->lookup(150).offset, 5);
  EXPECT_EQ(idx->lookup(200).offset, 9);
  ASSERT_TRUE(idx->truncate_to(9));
  EXPECT_EQ(idx->last()->timestamp, 100);
}

TEST(Checkpoint, OffsetFileRoundTripAndKafkaText) {
  TempDir dir;
  const auto path = dir.path() / kRecoveryPointCheckpoint;
  EXPECT_TRUE(read_offset_checkpoint(path)->empty());
  OffsetCheckpoint in{{{"orders", 0}, 42}, {{"my-topic", 3}, 7}};
  ASSERT_TRUE(write_offset_checkpoint(path, in));
  std::ifstream f(path);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "0\n2\nmy-topic 3 7\norders 0 42\n");
  auto out = read_offset_checkpoint(path);
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, in);
  std::ofstream(path) << "0\n2\norders 0 42\n";
  EXPECT_EQ(read_offset_checkpoint(path).status().code(), ErrorCode::KAFKA_STORAGE_ERROR);
}

TEST(Checkpoint, PartitionDirNames) {
  EXPECT_EQ(partition_dir_name({"a-b", 12}), "a-b-12");
  auto tp = parse_partition_dir_name("a-b-12");
  ASSERT_TRUE(tp);
  EXPECT_EQ(tp->topic, "a-b");
  EXPECT_EQ(tp->partition, 12);
  EXPECT_FALSE(parse_partition_dir_name("nodash"));
  EXPECT_FALSE(parse_partition_dir_name("t-x"));
}

TEST(Checkpoint, PartitionMetadata) {
  TempDir dir;
  EXPECT_FALSE(read_partition_metadata(dir.path()).value());
  const Uuid id = Uuid::random();
  ASSERT_TRUE(write_partition_metadata(dir.path(), id));
  std::ifstream f(dir.path() / kPartitionMetadataFile);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "version: 0\ntopic_id: " + id.to_string() + "\n");
  EXPECT_EQ(read_partition_metadata(dir.path()).value(), id);
}

TEST(Checkpoint, RecoveryPointDrivesOpen) {
  TempDir root;
  const auto dir = root.path() / partition_dir_name({"t", 0});
  {
    auto log = open_log(dir, small_config());
    for (int i = 0; i < 30; ++i) append(*log, make_batch({.records = 1, .value_size = 200}));
    ASSERT_TRUE(log->close());
    ASSERT_TRUE(write_offset_checkpoint(root.path() / kRecoveryPointCheckpoint,
                                        {{{"t", 0}, log->recovery_point()}}));
    ASSERT_TRUE(write_offset_checkpoint(root.path() / kLogStartCheckpoint,
                                        {{{"t", 0}, log->log_start_offset()}}));
  }
  auto rp = read_offset_checkpoint(root.path() / kRecoveryPointCheckpoint);
  ASSERT_TRUE(rp);
  EXPECT_EQ(rp->at({"t", 0}), 30);
  auto log = open_log(dir, small_config(), {.recovery_point = rp->at({"t", 0})});
  EXPECT_EQ(log->log_end_offset(), 30);
  EXPECT_EQ(log->recovery_point(), 30);
}

}  // namespace
}  // namespace mirra::storage::testing
