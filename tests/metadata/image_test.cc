#include "metadata/image.h"

#include <gtest/gtest.h>

#include "metadata_test_util.h"

namespace mirra::metadata {
namespace {

using testing::apply_all;
using testing::create_topic;
using testing::tid;

// Applies `r` at the next offset and expects a refusal whose message contains `needle`, with
// the image unchanged.
void expect_refused(MetadataImage& image, const MetadataRecord& r, const std::string& needle) {
  const auto before = image_records(image);
  const int64_t last = image.last_offset();
  Status st = image.apply(r, last + 1);
  EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE) << needle;
  EXPECT_NE(st.message().find(needle), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("at offset " + std::to_string(last + 1)), std::string::npos)
      << st.message();
  EXPECT_EQ(image.last_offset(), last);
  EXPECT_EQ(image_records(image), before);
}

TEST(MetadataImage, TopicWithPartitions) {
  MetadataImage image;
  EXPECT_EQ(image.last_offset(), -1);
  ASSERT_TRUE(apply_all(image, create_topic("orders", 1, 3)).ok());
  EXPECT_EQ(image.last_offset(), 3);
  const TopicInfo* t = image.topic("orders");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(image.topic(tid(1)), t);
  EXPECT_EQ(t->id, tid(1));
  ASSERT_EQ(t->partitions.size(), 3u);
  for (int p = 0; p < 3; ++p) {
    EXPECT_EQ(t->partitions[static_cast<size_t>(p)].partition, p);
    EXPECT_EQ(t->partitions[static_cast<size_t>(p)].leader, 1);
  }
  EXPECT_EQ(image.topic("other"), nullptr);
  EXPECT_EQ(image.topic(tid(2)), nullptr);
}

TEST(MetadataImage, OffsetsMustIncrease) {
  MetadataImage image;
  ASSERT_TRUE(image.apply(TopicRecord{"a", tid(1)}, 5).ok());
  Status st = image.apply(TopicRecord{"b", tid(2)}, 5);
  EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE);
  EXPECT_NE(st.message().find("not after the last one applied (5)"), std::string::npos)
      << st.message();
  EXPECT_FALSE(image.apply(TopicRecord{"b", tid(2)}, 4).ok());
  EXPECT_EQ(image.topic("b"), nullptr);
  EXPECT_TRUE(image.apply(TopicRecord{"b", tid(2)}, 9).ok());  // gaps are fine
  EXPECT_EQ(image.last_offset(), 9);
}

TEST(MetadataImage, TopicRules) {
  MetadataImage image;
  ASSERT_TRUE(apply_all(image, create_topic("orders", 1, 1)).ok());
  expect_refused(image, TopicRecord{"orders", tid(2)}, "topic orders already exists");
  expect_refused(image, TopicRecord{"other", tid(1)}, "already belongs to topic orders");
  expect_refused(image, TopicRecord{"", tid(3)}, "empty topic name");
  expect_refused(image, TopicRecord{"zero", Uuid::zero()}, "has the zero id");
}

TEST(MetadataImage, PartitionRules) {
  MetadataImage image;
  ASSERT_TRUE(apply_all(image, create_topic("orders", 1, 2)).ok());
  expect_refused(image, PartitionRecord{tid(7), 0, {1}, 1, 0}, "unknown topic id");
  expect_refused(image, PartitionRecord{tid(1), 3, {1}, 1, 0}, "not contiguous (the topic has 2)");
  expect_refused(image, PartitionRecord{tid(1), -1, {1}, 1, 0}, "not contiguous");
  expect_refused(image, PartitionRecord{tid(1), 2, {}, -1, 0}, "has no replicas");
  expect_refused(image, PartitionRecord{tid(1), 2, {1, 2, 1}, 1, 0}, "lists a replica twice");
  expect_refused(image, PartitionRecord{tid(1), 2, {1, 2}, 3, 0}, "leader 3 is not a replica");
  // The next partition, then a change of an existing one.
  ASSERT_TRUE(image.apply(PartitionRecord{tid(1), 2, {1, 2}, -1, 0}, 10).ok());
  ASSERT_TRUE(image.apply(PartitionRecord{tid(1), 0, {2, 1}, 2, 5}, 11).ok());
  const TopicInfo* t = image.topic("orders");
  ASSERT_EQ(t->partitions.size(), 3u);
  EXPECT_EQ(t->partitions[0].leader, 2);
  EXPECT_EQ(t->partitions[0].leader_epoch, 5);
  EXPECT_EQ(t->partitions[0].replicas, (std::vector<int32_t>{2, 1}));
  EXPECT_EQ(t->partitions[2].leader, -1);
  expect_refused(image, PartitionRecord{tid(1), 0, {1}, 1, 4},
                 "leader epoch 4 is below the current 5");
}

TEST(MetadataImage, TopicConfigs) {
  MetadataImage image;
  ASSERT_TRUE(apply_all(image, create_topic("orders", 1, 1)).ok());
  ASSERT_TRUE(
      apply_all(image, {ConfigRecord{kTopicResource, "orders", "retention.ms", "10"},
                        ConfigRecord{kTopicResource, "orders", "cleanup.policy", "compact"},
                        ConfigRecord{kTopicResource, "orders", "retention.ms", "20"},
                        ConfigRecord{kTopicResource, "orders", "cleanup.policy", std::nullopt},
                        ConfigRecord{kTopicResource, "orders", "absent", std::nullopt}})
          .ok());
  EXPECT_EQ(image.topic("orders")->configs,
            (std::map<std::string, std::string>{{"retention.ms", "20"}}));
  EXPECT_TRUE(image.broker_configs().empty());
  expect_refused(image, ConfigRecord{kTopicResource, "nope", "retention.ms", "1"},
                 "config retention.ms for unknown topic 'nope'");
  expect_refused(image, ConfigRecord{kTopicResource, "orders", "", "1"}, "empty config key");
}

TEST(MetadataImage, BrokerConfigs) {
  MetadataImage image;
  ASSERT_TRUE(
      apply_all(image, {ConfigRecord{kBrokerResource, "", "log.retention.ms", "5"},
                        ConfigRecord{kBrokerResource, "", "num.partitions", "3"},
                        ConfigRecord{kBrokerResource, "", "log.retention.ms", std::nullopt}})
          .ok());
  EXPECT_EQ(image.broker_configs(), (std::map<std::string, std::string>{{"num.partitions", "3"}}));
  expect_refused(image, ConfigRecord{kBrokerResource, "b1", "num.partitions", "2"},
                 "a broker is named by its node id");
  expect_refused(image, ConfigRecord{8, "x", "k", "v"}, "resource type 8");
  expect_refused(image, ConfigRecord{1, "x", "k", "v"}, "resource type 1");
}

// Per-broker configs are kept per node id, apart from the cluster-wide ones, and survive a
// snapshot; a node whose last key is removed is gone.
TEST(MetadataImage, PerBrokerConfigs) {
  MetadataImage image;
  ASSERT_TRUE(
      apply_all(image, {ConfigRecord{kBrokerResource, "", "log.retention.ms", "5"},
                        ConfigRecord{kBrokerResource, "1", "log.retention.ms", "7"},
                        ConfigRecord{kBrokerResource, "2", "log.segment.bytes", "100"},
                        ConfigRecord{kBrokerResource, "2", "log.segment.bytes", std::nullopt}})
          .ok());
  EXPECT_EQ(image.broker_configs(),
            (std::map<std::string, std::string>{{"log.retention.ms", "5"}}));
  using Nodes = MetadataImage::NodeConfigs;
  EXPECT_EQ(image.node_configs(), (Nodes{{"1", {{"log.retention.ms", "7"}}}}));
  auto loaded = image_from_records(image_records(image), 3);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->node_configs(), image.node_configs());
  EXPECT_EQ(loaded->broker_configs(), image.broker_configs());
}

TEST(MetadataImage, GroupConfigs) {
  MetadataImage image;
  ASSERT_TRUE(
      apply_all(image,
                {ConfigRecord{kGroupResource, "g", "share.auto.offset.reset", "earliest"},
                 ConfigRecord{kGroupResource, "h", "share.isolation.level", "read_committed"},
                 ConfigRecord{kGroupResource, "h", "share.isolation.level", std::nullopt}})
          .ok());
  using Groups = std::map<std::string, std::map<std::string, std::string>>;
  EXPECT_EQ(image.group_configs(), (Groups{{"g", {{"share.auto.offset.reset", "earliest"}}}}));
  auto loaded = image_from_records(image_records(image), 3);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded->group_configs(), image.group_configs());
  EXPECT_FALSE(apply_all(image, {ConfigRecord{kGroupResource, "", "share.isolation.level", "x"}})
                   .ok());  // a group config names its group
}

TEST(MetadataImage, RemoveTopicDropsEverything) {
  MetadataImage image;
  ASSERT_TRUE(apply_all(image, create_topic("orders", 1, 2)).ok());
  ASSERT_TRUE(apply_all(image, create_topic("users", 2, 1)).ok());
  ASSERT_TRUE(apply_all(image, {ConfigRecord{kTopicResource, "orders", "retention.ms", "10"},
                                RemoveTopicRecord{tid(1)}})
                  .ok());
  EXPECT_EQ(image.topic("orders"), nullptr);
  EXPECT_EQ(image.topic(tid(1)), nullptr);
  EXPECT_NE(image.topic("users"), nullptr);
  expect_refused(image, RemoveTopicRecord{tid(1)}, "remove of unknown topic id");
  expect_refused(image, PartitionRecord{tid(1), 0, {1}, 1, 0}, "unknown topic id");
  // The name and the id are free again; the old configs do not come back.
  ASSERT_TRUE(apply_all(image, create_topic("orders", 3, 1)).ok());
  EXPECT_TRUE(image.topic("orders")->configs.empty());
  EXPECT_EQ(image.topic(tid(3))->name, "orders");
  ASSERT_TRUE(apply_all(image, create_topic("again", 1, 1)).ok());
}

TEST(MetadataImage, ProducerIdsOnlyGrow) {
  MetadataImage image;
  EXPECT_EQ(image.next_producer_id(), 0);
  ASSERT_TRUE(apply_all(image, {ProducerIdsRecord{1, 1000}, ProducerIdsRecord{1, 2000}}).ok());
  EXPECT_EQ(image.next_producer_id(), 2000);
  for (int64_t next : {int64_t{2000}, int64_t{1999}, int64_t{-5}, kMaxNextProducerId + 1}) {
    Status st = apply_all(image, {ProducerIdsRecord{1, next}});
    EXPECT_EQ(st.code(), ErrorCode::CORRUPT_MESSAGE) << next;
    EXPECT_EQ(image.next_producer_id(), 2000);
  }
  // A snapshot keeps the position.
  auto loaded = image_from_records(image_records(image), 9);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  EXPECT_EQ(loaded->next_producer_id(), 2000);
}

TEST(MetadataImage, MirrorsAreCreatedReplacedAndRemoved) {
  MetadataImage image;
  ASSERT_TRUE(
      apply_all(image, {MirrorRecord{"dr", {{"bootstrap.servers", "a:1"}, {"sasl.password", "x"}}}})
          .ok());
  ASSERT_NE(image.mirror("dr"), nullptr);
  EXPECT_EQ(image.mirror("dr")->configs.at("sasl.password"), "x");
  // A second record replaces every config: the password is gone.
  ASSERT_TRUE(apply_all(image, {MirrorRecord{"dr", {{"bootstrap.servers", "b:2"}}}}).ok());
  EXPECT_EQ(image.mirror("dr")->configs,
            (std::map<std::string, std::string>{{"bootstrap.servers", "b:2"}}));
  // A snapshot keeps it.
  auto loaded = image_from_records(image_records(image), 3);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  EXPECT_EQ(loaded->mirror("dr")->configs, image.mirror("dr")->configs);
  ASSERT_TRUE(apply_all(image, {RemoveMirrorRecord{"dr"}}).ok());
  EXPECT_EQ(image.mirror("dr"), nullptr);
  EXPECT_TRUE(image.mirrors().empty());
}

TEST(MetadataImage, MalformedMirrorRecordsRefused) {
  MetadataImage image;
  const std::vector<MetadataRecord> bad = {
      MirrorRecord{"", {}},
      MirrorRecord{"m", {{"", "v"}}},
      MirrorRecord{"m", {{"b", "1"}, {"a", "2"}}},  // not sorted
      MirrorRecord{"m", {{"a", "1"}, {"a", "2"}}},  // a key twice
      RemoveMirrorRecord{"unknown"},
  };
  for (const MetadataRecord& r : bad) {
    EXPECT_EQ(apply_all(image, {r}).code(), ErrorCode::CORRUPT_MESSAGE);
    EXPECT_TRUE(image.mirrors().empty());
  }
}

TEST(MetadataImage, ImageRecordsRebuildTheImage) {
  MetadataImage image;
  ASSERT_TRUE(apply_all(image, create_topic("b-topic", 1, 3)).ok());
  ASSERT_TRUE(apply_all(image, create_topic("a-topic", 2, 1)).ok());
  ASSERT_TRUE(apply_all(image, create_topic("gone", 3, 1)).ok());
  ASSERT_TRUE(apply_all(image, {PartitionRecord{tid(1), 1, {1, 2}, 2, 7},
                                ConfigRecord{kTopicResource, "b-topic", "segment.bytes", "1024"},
                                ConfigRecord{kBrokerResource, "", "num.partitions", "4"},
                                RemoveTopicRecord{tid(3)}})
                  .ok());
  const auto records = image_records(image);
  // Ordered by topic name, each topic's partitions by number, broker configs last.
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(std::get<TopicRecord>(records.front()).name, "a-topic");
  EXPECT_EQ(std::get<ConfigRecord>(records.back()).resource_type, kBrokerResource);

  // apply() accepts them in order, one offset each, and the result is the same image.
  MetadataImage replayed;
  ASSERT_TRUE(apply_all(replayed, records).ok());
  EXPECT_EQ(image_records(replayed), records);

  auto loaded = image_from_records(records, 99);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  EXPECT_EQ(loaded->last_offset(), 99);
  EXPECT_EQ(image_records(*loaded), records);
  EXPECT_EQ(loaded->topic(tid(1))->partitions[1].leader_epoch, 7);
  EXPECT_EQ(loaded->broker_configs().at("num.partitions"), "4");
}

TEST(MetadataImage, ImageFromRecordsChecksTheRules) {
  std::vector<MetadataRecord> records = {TopicRecord{"a", tid(1)}, TopicRecord{"a", tid(2)}};
  auto loaded = image_from_records(records, 5);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), ErrorCode::CORRUPT_MESSAGE);
  EXPECT_NE(loaded.status().message().find("snapshot record 1 (TopicRecord)"), std::string::npos)
      << loaded.status().message();
  // An empty image at an offset (everything was deleted).
  auto empty = image_from_records({}, 41);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->last_offset(), 41);
  EXPECT_TRUE(empty->topics().empty());
}

}  // namespace
}  // namespace mirra::metadata
