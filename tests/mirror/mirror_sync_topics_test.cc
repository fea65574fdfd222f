// The topics sync (mirror_sync_topics.cc, docs/mirroring-design.md §8) against fakes: new source
// topics matching the mirror's patterns are added, others are not; a mirror topic missing from
// the source twice in a row, or back with another id, is failed for good.
#include <gtest/gtest.h>

#include <algorithm>

#include "sync_fixture.h"

namespace mirra::mirror {
namespace {

class MirrorSyncTopicsTest : public test::SyncFixture {
 protected:
  // A topic on the source, kept in name order (ClusterMetadata::topic searches by name).
  void source_topic(const std::string& name, Uuid id, bool internal = false) {
    delete_source_topic(name);
    client::TopicInfo t{name, id, ErrorCode::NONE, internal, {}};
    t.partitions.push_back(client::PartitionInfo{});
    auto& topics = source_->cluster.topics;
    topics.insert(std::upper_bound(topics.begin(), topics.end(), t,
                                   [](const auto& a, const auto& b) { return a.name < b.name; }),
                  t);
  }
  void delete_source_topic(const std::string& name) {
    std::erase_if(source_->cluster.topics, [&](const auto& t) { return t.name == name; });
  }
  // A mirror topic here, of mirror "m", mirrored from the source's topic of that id.
  void mirror_topic(const std::string& name, Uuid id, int32_t partitions = 2) {
    sink_.add_topic("m", name, id, partitions);
    destination_.local_topics.insert(name);
  }

  const SyncKindStatus& topics_status(const MirrorSync& sync) {
    return sync.status().of(SyncKind::kTopics);
  }

  const Uuid id_ = Uuid::random();
};

TEST_F(MirrorSyncTopicsTest, ANewTopicMatchingAPatternIsAdded) {
  auto sync = make_sync();
  destination_.patterns["m"] = {"orders-.*", "a{1,3}"};
  source_topic("orders-eu", Uuid::random());
  source_topic("aaa", Uuid::random());  // a pattern with a comma is one expression
  source_topic("payments", Uuid::random());
  round(*sync);
  EXPECT_EQ(destination_.added, (std::vector<std::string>{"aaa", "orders-eu"}));
  EXPECT_EQ(topics_status(*sync).looked_at, 3);
  EXPECT_EQ(topics_status(*sync).changed, 2);
  EXPECT_TRUE(topics_status(*sync).last_error.ok());
}

TEST_F(MirrorSyncTopicsTest, NoPatternNoDefaultIncludeAddsNothing) {
  auto sync = make_sync();  // mirror.topics.include is `.*` by default: not a pattern
  source_topic("orders", Uuid::random());
  round(*sync);
  EXPECT_TRUE(destination_.added.empty());
}

TEST_F(MirrorSyncTopicsTest, ExcludedInternalAndExistingTopicsAreNotAdded) {
  auto sync = make_sync({{"mirror.topics.exclude", "orders-secret"}});
  destination_.patterns["m"] = {".*"};
  source_topic("__consumer_offsets", Uuid::random(), /*internal=*/true);
  source_topic("__mirror_state", Uuid::random());
  source_topic("orders", id_);
  source_topic("orders-local", Uuid::random());
  source_topic("orders-secret", Uuid::random());
  source_topic("orders-new", Uuid::random());
  mirror_topic("orders", id_);                       // mirrored already
  destination_.local_topics.insert("orders-local");  // an ordinary topic of that name here
  round(*sync);
  EXPECT_EQ(destination_.added, std::vector<std::string>{"orders-new"});
}

TEST_F(MirrorSyncTopicsTest, TheIncludeListMustAlsoTakeTheTopic) {
  auto sync = make_sync({{"mirror.topics.include", "orders-.*"}});
  destination_.patterns["m"] = {".*"};
  source_topic("orders-1", Uuid::random());
  source_topic("payments", Uuid::random());
  round(*sync);
  EXPECT_EQ(destination_.added, std::vector<std::string>{"orders-1"});
}

TEST_F(MirrorSyncTopicsTest, AFailedAddIsTheRoundsErrorAndIsTriedAgain) {
  auto sync = make_sync();
  destination_.patterns["m"] = {"orders"};
  destination_.on_add = [](const std::string&, const std::string&) {
    return Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "gone meanwhile");
  };
  source_topic("orders", Uuid::random());
  round(*sync);
  EXPECT_EQ(topics_status(*sync).last_error.code(), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_NE(topics_status(*sync).last_error.message().find("orders"), std::string::npos);
  EXPECT_EQ(topics_status(*sync).changed, 0);
  round(*sync);
  EXPECT_EQ(destination_.added.size(), 2u);
}

TEST_F(MirrorSyncTopicsTest, DeletedOnceIsNothingDeletedTwiceFailsForGood) {
  auto sync = make_sync();
  source_topic("orders", id_);
  mirror_topic("orders", id_);
  round(*sync);
  delete_source_topic("orders");
  round(*sync);
  EXPECT_TRUE(destination_.failed_topics.empty()) << "failed on the first miss";
  round(*sync);
  ASSERT_EQ(destination_.failed_topics.count("orders"), 1u);
  const Status& why = destination_.failed_topics.at("orders");
  EXPECT_EQ(why.code(), ErrorCode::UNKNOWN_TOPIC_ID);
  EXPECT_EQ(why.message(), "topic orders was deleted on the source");
  EXPECT_EQ(topics_status(*sync).changed, 1);
  EXPECT_TRUE(destination_.added.empty());
}

TEST_F(MirrorSyncTopicsTest, ATopicBackAfterOneMissIsFine) {
  auto sync = make_sync();
  source_topic("orders", id_);
  mirror_topic("orders", id_);
  delete_source_topic("orders");
  round(*sync);  // missed once
  source_topic("orders", id_);
  round(*sync);  // back: the miss is forgotten
  delete_source_topic("orders");
  round(*sync);  // missed once again, not twice in a row
  EXPECT_TRUE(destination_.failed_topics.empty());
  round(*sync);
  EXPECT_EQ(destination_.failed_topics.count("orders"), 1u);
}

TEST_F(MirrorSyncTopicsTest, RecreatedFailsAtOnceAndIsNotAddedAgain) {
  auto sync = make_sync();
  destination_.patterns["m"] = {"orders"};
  const Uuid new_id = Uuid::random();
  source_topic("orders", new_id);
  mirror_topic("orders", id_);
  round(*sync);
  ASSERT_EQ(destination_.failed_topics.count("orders"), 1u);
  const Status& why = destination_.failed_topics.at("orders");
  EXPECT_EQ(why.code(), ErrorCode::INCONSISTENT_TOPIC_ID);
  EXPECT_EQ(why.message(), "topic orders was deleted and recreated on the source (id " +
                               new_id.to_string() + ", was " + id_.to_string() + ")");
  EXPECT_TRUE(destination_.added.empty());
}

TEST_F(MirrorSyncTopicsTest, ATopicFailedForGoodIsNotFailedAgain) {
  auto sync = make_sync();
  source_topic("orders", Uuid::random());
  mirror_topic("orders", id_, 1);
  // The real destination writes the state; the fake's hook does so in the sink.
  destination_.on_fail = [&](const std::string& topic, const Status& why) {
    MirrorStateValue v = *sink_.state_value({topic, 0});
    v.state = static_cast<int8_t>(MirrorState::failed);
    v.last_error_code = error_number(why.code());
    v.last_error = why.message();
    asio::co_spawn(io_, sink_.put_state({id_, 0}, v, sink_.state_epoch({id_, 0})), asio::detached);
    return Status::OK();
  };
  round(*sync);
  ASSERT_EQ(sink_.state_of({"orders", 0}), MirrorState::failed);
  destination_.failed_topics.clear();
  round(*sync);
  EXPECT_TRUE(destination_.failed_topics.empty());
  EXPECT_EQ(topics_status(*sync).changed, 0);
}

TEST_F(MirrorSyncTopicsTest, PausedAndFailedOverTopicsAreLeftAlone) {
  auto sync = make_sync();
  mirror_topic("paused", Uuid::random(), 1);
  mirror_topic("stopped", Uuid::random(), 1);
  sink_.set_state({"paused", 0}, MirrorState::paused);
  sink_.set_state({"stopped", 0}, MirrorState::stopped);
  round(*sync);
  round(*sync);
  EXPECT_TRUE(destination_.failed_topics.empty());
}

TEST_F(MirrorSyncTopicsTest, AMetadataErrorIsTheKindsError) {
  auto sync = make_sync();
  destination_.patterns["m"] = {".*"};
  mirror_topic("orders", id_);
  source_->metadata_error = Status(ErrorCode::NETWORK_EXCEPTION, "source down");
  round(*sync);
  round(*sync);
  const SyncKindStatus& st = topics_status(*sync);
  EXPECT_EQ(st.failures, 2);
  EXPECT_EQ(st.last_error.code(), ErrorCode::NETWORK_EXCEPTION);
  EXPECT_EQ(st.last_error.message(), "the source's Metadata failed: source down");
  // An unreachable source is no deleted topic.
  EXPECT_TRUE(destination_.failed_topics.empty());
  EXPECT_TRUE(destination_.added.empty());
}

}  // namespace
}  // namespace mirra::mirror
