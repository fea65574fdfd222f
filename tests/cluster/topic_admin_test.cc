// TopicAdmin against a real store and partition manager: each change is refused with Kafka's
// error or recorded in the metadata image and carried out on the partition logs.
#include "cluster/topic_admin.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "cluster_fixture.h"

namespace mirra::cluster::testing {
namespace {

using TopicAdminTest = ClusterTest;

TEST_F(TopicAdminTest, CreateRecordsTheTopicWithItsConfigs) {
  auto id = create("orders", 2, {{"retention.ms", "1234"}});
  ASSERT_TRUE(id.ok()) << id.status().to_string();
  const metadata::TopicInfo* t = store_->image().topic("orders");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->id, id.value());
  EXPECT_EQ(store_->image().topic(id.value()), t);
  ASSERT_EQ(t->partitions.size(), 2u);
  for (const auto& p : t->partitions) {
    EXPECT_EQ(p.leader, TopicDefaults{}.node_id);
    EXPECT_EQ(p.leader_epoch, 0);
  }
  EXPECT_EQ(t->configs, (std::map<std::string, std::string>{{"retention.ms", "1234"}}));
  // The open log has the topic's config, not the broker default.
  std::optional<Result<int64_t>> retention;
  run([&]() -> asio::awaitable<void> {
    retention.emplace(co_await partitions_->run(partitions_->find("orders", 1),
                                                [](const storage::PartitionLog& log) {
                                                  return Result<int64_t>(log.config().retention_ms);
                                                }));
  }());
  ASSERT_TRUE(retention->ok());
  EXPECT_EQ(retention->value(), 1234);
}

TEST_F(TopicAdminTest, DefaultsFillInThePartitionCount) {
  ASSERT_TRUE(create("orders", -1).ok());
  ASSERT_NE(store_->image().topic("orders"), nullptr);
  EXPECT_EQ(store_->image().topic("orders")->partitions.size(),
            static_cast<size_t>(TopicDefaults{}.num_partitions));
}

TEST_F(TopicAdminTest, ValidateOnlyChangesNothing) {
  auto id = create("orders", 3, {}, /*validate_only=*/true);
  ASSERT_TRUE(id.ok()) << id.status().to_string();
  EXPECT_EQ(store_->image().topic("orders"), nullptr);
  EXPECT_EQ(partitions_->partition_count(), 0u);
  EXPECT_FALSE(fs::exists(dir() / "orders-0"));
}

TEST_F(TopicAdminTest, InvalidTopicsAreRefusedWithKafkasErrors) {
  EXPECT_EQ(create("bad/name", 1).status().code(), ErrorCode::INVALID_TOPIC_EXCEPTION);
  EXPECT_EQ(create("..", 1).status().code(), ErrorCode::INVALID_TOPIC_EXCEPTION);
  EXPECT_EQ(create(std::string(250, 'a'), 1).status().code(), ErrorCode::INVALID_TOPIC_EXCEPTION);
  EXPECT_EQ(create("orders", 0).status().code(), ErrorCode::INVALID_PARTITIONS);
  EXPECT_EQ(create("orders", TopicDefaults::kMaxPartitionsPerTopic + 1).status().code(),
            ErrorCode::INVALID_PARTITIONS);
  EXPECT_EQ(create("orders", 1, {{"no.such.config", "1"}}).status().code(),
            ErrorCode::INVALID_CONFIG);
  EXPECT_EQ(create("orders", 1, {{"retention.ms", "soon"}}).status().code(),
            ErrorCode::INVALID_CONFIG);

  NewTopic replicated;
  replicated.name = "orders";
  replicated.replication_factor = 3;  // one broker
  std::optional<Result<Uuid>> r;
  run([&]() -> asio::awaitable<void> {
    r.emplace(co_await admin_->create_topic(replicated, false));
  }());
  EXPECT_EQ(r->status().code(), ErrorCode::INVALID_REPLICATION_FACTOR);

  EXPECT_TRUE(store_->image().topics().empty());
  EXPECT_EQ(partitions_->partition_count(), 0u);
}

TEST_F(TopicAdminTest, ANameOrIdIsTakenOnce) {
  auto id = create("orders", 1);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(create("orders", 1).status().code(), ErrorCode::TOPIC_ALREADY_EXISTS);
  NewTopic same_id;
  same_id.name = "other";
  same_id.id = id.value();
  std::optional<Result<Uuid>> r;
  run([&]() -> asio::awaitable<void> {
    r.emplace(co_await admin_->create_topic(same_id, false));
  }());
  EXPECT_EQ(r->status().code(), ErrorCode::TOPIC_ALREADY_EXISTS);
  EXPECT_EQ(store_->image().topic("other"), nullptr);
}

TEST_F(TopicAdminTest, CreatePartitionsOpensOnlyTheNewOnes) {
  ASSERT_TRUE(create("orders", 1).ok());
  ASSERT_TRUE(append(partitions_->find("orders", 0), 4).ok());
  auto grow = [&](const std::string& name, int32_t count) {
    std::optional<Status> s;
    run([&]() -> asio::awaitable<void> {
      s.emplace(co_await admin_->create_partitions(name, count, false));
    }());
    return *s;
  };
  ASSERT_TRUE(grow("orders", 3).ok());
  EXPECT_EQ(store_->image().topic("orders")->partitions.size(), 3u);
  ASSERT_NE(partitions_->find("orders", 2), nullptr);
  EXPECT_TRUE(partitions_->find("orders", 2)->online());
  EXPECT_EQ(partitions_->find("orders", 0)->offsets.log_end, 4);  // the old one kept its log
  EXPECT_EQ(partitions_->find("orders", 2)->offsets.log_end, 0);

  EXPECT_EQ(grow("orders", 3).code(), ErrorCode::INVALID_PARTITIONS);
  EXPECT_EQ(grow("orders", 2).code(), ErrorCode::INVALID_PARTITIONS);
  EXPECT_EQ(grow("nothing", 2).code(), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_EQ(partitions_->partition_count(), 3u);
}

TEST_F(TopicAdminTest, RaiseLeaderEpochOnlyRaises) {
  ASSERT_TRUE(create("orders", 2).ok());
  auto raise = [&](const std::string& name, int32_t partition, int32_t epoch) {
    std::optional<Status> s;
    run([&]() -> asio::awaitable<void> {
      s.emplace(co_await admin_->raise_leader_epoch(name, partition, epoch));
    }());
    return *s;
  };
  auto epoch_of = [&](int32_t partition) {
    return store_->image().topic("orders")->partitions[static_cast<size_t>(partition)].leader_epoch;
  };
  ASSERT_TRUE(raise("orders", 1, 5).ok());
  EXPECT_EQ(epoch_of(1), 5);
  EXPECT_EQ(partitions_->find("orders", 1)->leader_epoch, 5);
  EXPECT_EQ(epoch_of(0), 0);  // only the partition named

  ASSERT_TRUE(raise("orders", 1, 3).ok());  // lower: nothing changes
  EXPECT_EQ(epoch_of(1), 5);
  EXPECT_EQ(partitions_->find("orders", 1)->leader_epoch, 5);

  EXPECT_EQ(raise("orders", 2, 1).code(), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_EQ(raise("orders", -1, 1).code(), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_EQ(raise("nothing", 0, 1).code(), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);

  // The epoch is metadata: it survives a restart, and the reopened partition has it.
  restart();
  EXPECT_EQ(epoch_of(1), 5);
  EXPECT_EQ(partitions_->find("orders", 1)->leader_epoch, 5);
}

TEST_F(TopicAdminTest, AlterConfigsReachTheOpenLogs) {
  ASSERT_TRUE(create("orders", 1).ok());
  auto alter = [&](std::map<std::string, std::optional<std::string>> changes) {
    std::optional<Status> s;
    run([&]() -> asio::awaitable<void> {
      s.emplace(co_await admin_->alter_topic_configs("orders", changes, false));
    }());
    return *s;
  };
  auto retention = [&] {
    std::optional<Result<int64_t>> r;
    run([&]() -> asio::awaitable<void> {
      r.emplace(co_await partitions_->run(partitions_->find("orders", 0),
                                          [](const storage::PartitionLog& log) {
                                            return Result<int64_t>(log.config().retention_ms);
                                          }));
    }());
    return r->value();
  };
  const int64_t broker_default = retention();
  ASSERT_TRUE(alter({{"retention.ms", "4321"}}).ok());
  EXPECT_EQ(store_->image().topic("orders")->configs.at("retention.ms"), "4321");
  EXPECT_EQ(retention(), 4321);
  ASSERT_TRUE(alter({{"retention.ms", std::nullopt}}).ok());  // back to the default
  EXPECT_EQ(store_->image().topic("orders")->configs.count("retention.ms"), 0u);
  EXPECT_EQ(retention(), broker_default);

  // Only the mirror may make a topic a mirror topic.
  EXPECT_EQ(alter({{std::string(kMirrorNameConfig), "m"}}).code(), ErrorCode::INVALID_CONFIG);
  EXPECT_EQ(alter({{"retention.ms", "soon"}}).code(), ErrorCode::INVALID_CONFIG);
  for (const char* ratio : {"nan", "inf", "-0.1", "1.5", ""}) {
    EXPECT_EQ(alter({{"min.cleanable.dirty.ratio", ratio}}).code(), ErrorCode::INVALID_CONFIG)
        << ratio;
  }
  EXPECT_TRUE(alter({{"min.cleanable.dirty.ratio", "0.25"}}).ok());
}

TEST_F(TopicAdminTest, DeleteForgetsTheTopic) {
  ASSERT_TRUE(create("orders", 2).ok());
  auto remove = [&](const std::string& name) {
    std::optional<Status> s;
    run([&]() -> asio::awaitable<void> { s.emplace(co_await admin_->delete_topic(name)); }());
    return *s;
  };
  ASSERT_TRUE(remove("orders").ok());
  EXPECT_EQ(store_->image().topic("orders"), nullptr);
  EXPECT_EQ(remove("orders").code(), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  // The name is free again, for a new topic with a new id and empty logs.
  auto again = create("orders", 1);
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_EQ(partitions_->find("orders", 0)->offsets.log_end, 0);
  restart();
  EXPECT_EQ(store_->image().topics().size(), 1u);
  EXPECT_EQ(partitions_->partition_count(), 1u);
}

}  // namespace
}  // namespace mirra::cluster::testing
