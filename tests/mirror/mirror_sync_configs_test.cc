// The configs and partitions syncs (mirror_sync_configs.cc, mirror_sync_partitions.cc) against
// fakes of the source and the destination: the source's dynamic topic configs followed (set,
// removed), keys the sync does not own left alone, one DescribeConfigs per round, a source
// without DescribeConfigs; partitions added on the source added here, fewer left alone.
#include <gtest/gtest.h>

#include "sync_fixture.h"

namespace mirra::mirror {
namespace {

using client::ConfigEntry;
using client::ConfigSource;

ConfigEntry dynamic(const std::string& key, const std::string& value) {
  return {key, value, false, false, ConfigSource::dynamic_topic};
}

// A source whose answers can carry one topic's own error.
class ErringSyncSource : public test::FakeSyncSource {
 public:
  std::map<std::string, Status> topic_errors;
  asio::awaitable<Result<std::vector<client::ConfigResourceResult>>> topic_configs(
      std::vector<std::string> topics) override {
    auto out = co_await FakeSyncSource::topic_configs(std::move(topics));
    if (!out.ok()) co_return out;
    for (client::ConfigResourceResult& r : out.value()) {
      if (auto e = topic_errors.find(r.resource.name); e != topic_errors.end()) {
        r.status = e->second;
        r.entries.clear();
      }
    }
    co_return out;
  }
};

class MirrorSyncConfigsTest : public test::SyncFixture {
 protected:
  void SetUp() override {
    auto source = std::make_unique<ErringSyncSource>();
    erring_ = source.get();
    sync_ = make_sync({{"mirror.topic.properties.exclude", "segment\\..*"}}, std::move(source));
  }

  // A topic mirrored by "m" with `partitions` partitions here and `source_partitions` there.
  void add_topic(const std::string& name, int32_t partitions, int32_t source_partitions) {
    const Uuid id = Uuid::random();
    sink_.add_topic("m", name, id, partitions);
    client::TopicInfo t{name, id, ErrorCode::NONE, false, {}};
    for (int32_t p = 0; p < source_partitions; ++p) {
      client::PartitionInfo& info = t.partitions.emplace_back();
      info.partition = p;
      info.leader = 1;
    }
    source_->cluster.topics.push_back(std::move(t));
    destination_.configs[name]["mirror.name"] = "m";
  }

  void round() { SyncFixture::round(*sync_); }

  const SyncKindStatus& configs() const { return sync_->status().of(SyncKind::kConfigs); }
  const SyncKindStatus& partitions() const { return sync_->status().of(SyncKind::kPartitions); }

  ErringSyncSource* erring_ = nullptr;  // source_, with its topic errors
  std::shared_ptr<MirrorSync> sync_;
};

TEST_F(MirrorSyncConfigsTest, ChangedAndNewKeysAreSetAndDeletedOnesRemoved) {
  add_topic("a", 1, 1);
  destination_.configs["a"]["retention.ms"] = "1000";
  destination_.configs["a"]["cleanup.policy"] = "compact";
  source_->configs["a"] = {dynamic("retention.ms", "2000"),
                           dynamic("max.message.bytes", "5000"),
                           {"flush.ms", "1", false, false, ConfigSource::default_config}};
  round();
  const std::map<std::string, std::string> want{
      {"mirror.name", "m"}, {"retention.ms", "2000"}, {"max.message.bytes", "5000"}};
  EXPECT_EQ(destination_.configs["a"], want);
  EXPECT_EQ(destination_.config_changes, 1);  // one alter call for the topic
  EXPECT_TRUE(configs().last_error.ok()) << configs().last_error.to_string();
  EXPECT_EQ(configs().looked_at, 1);
  EXPECT_EQ(configs().changed, 3);  // two set, one removed
}

TEST_F(MirrorSyncConfigsTest, NeverCopiedAndExcludedKeysAreLeftAlone) {
  add_topic("a", 1, 1);
  // Set here by the operator: not the sync's, whatever the source says.
  destination_.configs["a"]["min.insync.replicas"] = "1";
  destination_.configs["a"]["segment.ms"] = "100";
  source_->configs["a"] = {dynamic("min.insync.replicas", "2"), dynamic("segment.bytes", "2048"),
                           dynamic("message.timestamp.type", "LogAppendTime")};
  round();
  const std::map<std::string, std::string> want{
      {"mirror.name", "m"}, {"min.insync.replicas", "1"}, {"segment.ms", "100"}};
  EXPECT_EQ(destination_.configs["a"], want);
  EXPECT_EQ(destination_.config_changes, 0);
  EXPECT_TRUE(configs().last_error.ok());
}

TEST_F(MirrorSyncConfigsTest, UnchangedTopicsAreNotAlteredAndOneDescribePerRound) {
  add_topic("a", 1, 1);
  add_topic("b", 1, 1);
  add_topic("c", 1, 1);
  source_->configs["a"] = {dynamic("retention.ms", "2000")};
  source_->configs["b"] = {dynamic("retention.ms", "3000")};
  round();
  EXPECT_EQ(source_->configs_calls, 1);       // all topics in one DescribeConfigs
  EXPECT_EQ(destination_.config_changes, 2);  // c had nothing to change
  round();
  EXPECT_EQ(source_->configs_calls, 2);
  EXPECT_EQ(destination_.config_changes, 2);  // nothing changed since
  EXPECT_EQ(configs().looked_at, 3);
  EXPECT_EQ(configs().changed, 0);
  EXPECT_EQ(configs().changed_total, 2);
}

TEST_F(MirrorSyncConfigsTest, ASourceWithoutDescribeConfigsHasNothingToSync) {
  add_topic("a", 1, 1);
  destination_.configs["a"]["retention.ms"] = "1000";
  source_->configs_error = Status(ErrorCode::UNSUPPORTED_VERSION, "no DescribeConfigs");
  round();
  round();
  EXPECT_EQ(configs().runs, 2);
  EXPECT_EQ(configs().failures, 0);
  EXPECT_TRUE(configs().last_error.ok());
  EXPECT_EQ(destination_.configs["a"]["retention.ms"], "1000");  // not removed
  EXPECT_EQ(destination_.config_changes, 0);
}

TEST_F(MirrorSyncConfigsTest, ADescribeConfigsFailureIsTheKindsError) {
  add_topic("a", 1, 1);
  source_->configs_error = Status(ErrorCode::REQUEST_TIMED_OUT, "timed out");
  round();
  EXPECT_EQ(configs().failures, 1);
  EXPECT_EQ(configs().last_error.code(), ErrorCode::REQUEST_TIMED_OUT);
  EXPECT_TRUE(partitions().last_error.ok());  // the other kinds go on
}

TEST_F(MirrorSyncConfigsTest, OneTopicsErrorIsTheKindsButTheOthersGoOn) {
  add_topic("a", 1, 1);
  add_topic("b", 1, 1);
  source_->configs["a"] = {dynamic("retention.ms", "2000")};
  source_->configs["b"] = {dynamic("retention.ms", "3000")};
  erring_->topic_errors["a"] = Status(ErrorCode::TOPIC_AUTHORIZATION_FAILED, "not allowed");
  round();
  EXPECT_EQ(configs().last_error.code(), ErrorCode::TOPIC_AUTHORIZATION_FAILED);
  EXPECT_NE(configs().last_error.message().find("topic a"), std::string::npos);
  EXPECT_EQ(destination_.configs["b"]["retention.ms"], "3000");
  EXPECT_EQ(destination_.configs["a"].count("retention.ms"), 0u);
}

TEST_F(MirrorSyncConfigsTest, PausedTopicsAndRecreatedSourceTopicsAreNotSynced) {
  add_topic("paused", 1, 1);
  add_topic("recreated", 1, 1);
  sink_.set_state({"paused", 0}, MirrorState::paused);
  source_->cluster.topics.back().id = Uuid::random();  // "recreated" has another id now
  source_->configs["paused"] = {dynamic("retention.ms", "2000")};
  source_->configs["recreated"] = {dynamic("retention.ms", "2000")};
  round();
  EXPECT_EQ(source_->configs_calls, 0);
  EXPECT_EQ(destination_.config_changes, 0);
  EXPECT_TRUE(destination_.partition_counts.empty());
}

TEST_F(MirrorSyncConfigsTest, PartitionsAddedOnTheSourceAreAddedHere) {
  add_topic("grown", 2, 5);
  add_topic("same", 3, 3);
  round();
  const std::map<std::string, int32_t> want{{"grown", 5}};
  EXPECT_EQ(destination_.partition_counts, want);
  EXPECT_TRUE(partitions().last_error.ok());
  EXPECT_EQ(partitions().looked_at, 2);
  EXPECT_EQ(partitions().changed, 3);
}

TEST_F(MirrorSyncConfigsTest, FewerPartitionsOnTheSourceAreLeftAlone) {
  add_topic("shrunk", 4, 2);
  round();
  round();
  EXPECT_TRUE(destination_.partition_counts.empty());
  EXPECT_TRUE(partitions().last_error.ok());
  EXPECT_EQ(partitions().changed_total, 0);
}

TEST_F(MirrorSyncConfigsTest, NoSourceMetadataFailsBothKinds) {
  add_topic("a", 1, 2);
  source_->metadata_error = Status(ErrorCode::NETWORK_EXCEPTION, "unreachable");
  round();
  EXPECT_EQ(configs().last_error.code(), ErrorCode::NETWORK_EXCEPTION);
  EXPECT_EQ(partitions().last_error.code(), ErrorCode::NETWORK_EXCEPTION);
  EXPECT_TRUE(destination_.partition_counts.empty());
}

}  // namespace
}  // namespace mirra::mirror
