// The cluster client (through SyncClient) against librdkafka's 3-broker mock cluster: metadata,
// produce/fetch round trips with every codec, offsets, routing to moved leaders, and errors.
#include <gtest/gtest.h>

#include <set>

#include "client/fetch_sessions.h"
#include "client/sync_client.h"
#include "client_test_util.h"
#include "mock_cluster.h"

namespace mirra::client {
namespace {

using test::TestRecord;
using testing::MockCluster;

class ClusterClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(mock_.create_topic("three", 3), "");
    // The mock picks leaders at random; partition p is led by broker p + 1 here.
    for (int32_t p = 0; p < 3; ++p) ASSERT_EQ(mock_.set_leader("three", p, p + 1), "");
    ClientOptions o;
    o.bootstrap_servers = mock_.bootstrap_servers();
    o.client_id = "client-test";
    o.unknown_topic_retry = Millis(300);
    o.retry_timeout = Millis(10000);
    auto c = SyncClient::create(o);
    ASSERT_TRUE(c.ok()) << c.status().to_string();
    client_ = std::move(c.value());
  }

  ProduceResult produce_one(const TopicPartition& tp, const std::vector<TestRecord>& records,
                            records::Compression codec = records::Compression::none,
                            int16_t acks = -1) {
    ProduceOptions po;
    po.acks = acks;
    auto r = client_->produce({ProduceBatch{tp, test::make_batch(records, codec)}}, po);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    if (!r.ok() || r->size() != 1) return ProduceResult{tp, r.status()};
    return r->front();
  }

  // Fetches until the high watermark, as a consumer does (the mock answers one batch per
  // fetch). Records below `from` in the first batch are dropped, as consumers do.
  std::vector<TestRecord> fetch_all(const TopicPartition& tp, int64_t from = 0) {
    std::vector<TestRecord> out;
    int64_t next = from;
    for (int round = 0; round < 100; ++round) {
      auto r = client_->fetch({FetchPosition{tp, next}});
      EXPECT_TRUE(r.ok()) << r.status().to_string();
      if (!r.ok()) break;
      EXPECT_TRUE(r->front().status.ok()) << r->front().status.to_string();
      for (TestRecord& rec : test::read_records(r->front().records)) {
        if (rec.offset >= next) out.push_back(std::move(rec));
      }
      if (!out.empty()) next = out.back().offset + 1;
      if (next >= r->front().high_watermark) break;
    }
    return out;
  }

  MockCluster mock_{3};
  std::unique_ptr<SyncClient> client_;
};

const std::vector<TestRecord> kRecords = {
    {"k1", "v1", {}},
    {std::nullopt, "no key", {{"h1", "x"}, {"h2", std::nullopt}}},
    {"tombstone", std::nullopt, {}},
    {"", "", {{"", ""}}},
    {"big", std::string(5000, 'b'), {{"trace", std::string(100, 't')}}},
};

TEST_F(ClusterClientTest, MetadataListsBrokersTopicsAndLeaders) {
  mock_.set_topic_error("missing", 3);
  auto md = client_->metadata(std::vector<std::string>{"three", "missing"});
  ASSERT_TRUE(md.ok()) << md.status().to_string();
  ASSERT_EQ(md->brokers.size(), 3u);
  EXPECT_EQ(md->brokers[0].node_id, 1);
  EXPECT_EQ(md->brokers[2].node_id, 3);
  const TopicInfo* t = md->topic("three");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->partitions.size(), 3u);
  std::set<int32_t> leaders;
  for (const auto& p : t->partitions) {
    EXPECT_EQ(p.leader, p.partition + 1);
    leaders.insert(p.leader);
  }
  EXPECT_EQ(leaders.size(), 3u);
  const TopicInfo* missing = md->topic("missing");
  ASSERT_NE(missing, nullptr);
  EXPECT_EQ(missing->error, ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
}

TEST_F(ClusterClientTest, DescribeClusterFallsBackToMetadata) {
  auto d = client_->describe_cluster();
  ASSERT_TRUE(d.ok()) << d.status().to_string();
  EXPECT_FALSE(d->cluster_id.empty());
  EXPECT_EQ(d->brokers.size(), 3u);
}

TEST_F(ClusterClientTest, ProduceFetchRoundTripWithEveryCodec) {
  const records::Compression codecs[] = {records::Compression::none, records::Compression::gzip,
                                         records::Compression::snappy, records::Compression::lz4,
                                         records::Compression::zstd};
  for (auto codec : codecs) {
    SCOPED_TRACE(std::string(records::compression_name(codec)));
    const std::string topic = "codec-" + std::string(records::compression_name(codec));
    ASSERT_EQ(mock_.create_topic(topic, 1), "");
    const TopicPartition tp{topic, 0};
    auto first = produce_one(tp, kRecords, codec);
    ASSERT_TRUE(first.status.ok()) << first.status.to_string();
    EXPECT_EQ(first.base_offset, 0);
    auto second = produce_one(tp, {{"k", "after", {}}}, codec);
    ASSERT_TRUE(second.status.ok());
    EXPECT_EQ(second.base_offset, static_cast<int64_t>(kRecords.size()));
    auto got = fetch_all(tp);
    ASSERT_EQ(got.size(), kRecords.size() + 1);
    for (size_t i = 0; i < kRecords.size(); ++i) {
      EXPECT_EQ(got[i], kRecords[i]) << "record " << i;
      EXPECT_EQ(got[i].offset, static_cast<int64_t>(i));
    }
    EXPECT_EQ(got.back().value, "after");
    auto tail = fetch_all(tp, static_cast<int64_t>(kRecords.size()));
    ASSERT_EQ(tail.size(), 1u);
    EXPECT_EQ(tail.back().offset, static_cast<int64_t>(kRecords.size()));
  }
}

TEST_F(ClusterClientTest, AcksZeroProduceHasNoResponseButLands) {
  const TopicPartition tp{"three", 1};
  auto r = produce_one(tp, {{"k", "fire and forget", {}}}, records::Compression::none, 0);
  EXPECT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.base_offset, -1);
  // The next acked request on the same connection is answered after the acks=0 one was read.
  auto acked = produce_one(tp, {{"k", "acked", {}}});
  ASSERT_TRUE(acked.status.ok());
  EXPECT_EQ(acked.base_offset, 1);
  auto got = fetch_all(tp);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].value, "fire and forget");
}

TEST_F(ClusterClientTest, ListOffsetsEarliestAndLatest) {
  const TopicPartition tp{"three", 2};
  ASSERT_TRUE(produce_one(tp, kRecords).status.ok());
  auto r = client_->list_offsets({{tp, kEarliestTimestamp}, {tp, kLatestTimestamp}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_TRUE((*r)[0].status.ok()) << (*r)[0].status.to_string();
  EXPECT_EQ((*r)[0].offset, 0);
  EXPECT_EQ((*r)[1].offset, static_cast<int64_t>(kRecords.size()));
}

TEST_F(ClusterClientTest, FetchReportsOffsetOutOfRangePerPartition) {
  auto r = client_->fetch({FetchPosition{{"three", 0}, 1000}, FetchPosition{{"three", 1}, 0}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].status.code(), ErrorCode::OFFSET_OUT_OF_RANGE) << (*r)[0].status.to_string();
  EXPECT_TRUE((*r)[1].status.ok());
}

TEST_F(ClusterClientTest, UnknownTopicAndPartitionFailPerPartition) {
  mock_.set_topic_error("no-such-topic", 3);
  ProduceOptions po;
  auto r = client_->produce({ProduceBatch{{"no-such-topic", 0}, test::make_batch(kRecords)},
                             ProduceBatch{{"three", 7}, test::make_batch(kRecords)},
                             ProduceBatch{{"three", 0}, test::make_batch(kRecords)}},
                            po);
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ((*r)[0].status.code(), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_NE((*r)[0].status.message().find("no-such-topic"), std::string::npos)
      << (*r)[0].status.message();
  EXPECT_EQ((*r)[1].status.code(), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_NE((*r)[1].status.message().find("no partition 7"), std::string::npos)
      << (*r)[1].status.message();
  EXPECT_TRUE((*r)[2].status.ok()) << (*r)[2].status.to_string();
}

TEST_F(ClusterClientTest, FollowsAMovedLeader) {
  auto t = client_->topic("three");
  ASSERT_TRUE(t.ok());
  const int32_t old_leader = t->partitions[0].leader;
  const int32_t new_leader = old_leader % 3 + 1;
  ASSERT_TRUE(produce_one({"three", 0}, {{"k", "before", {}}}).status.ok());
  // The client's cache still names the old leader, which now answers NOT_LEADER_OR_FOLLOWER.
  ASSERT_EQ(mock_.set_leader("three", 0, new_leader), "");
  auto r = produce_one({"three", 0}, {{"k", "after", {}}});
  ASSERT_TRUE(r.status.ok()) << r.status.to_string();
  EXPECT_EQ(r.base_offset, 1);
  const TopicInfo* cached = client_->async().cached_metadata().topic("three");
  ASSERT_NE(cached, nullptr);
  EXPECT_EQ(cached->partitions[0].leader, new_leader);
  auto got = fetch_all({"three", 0});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].value, "after");
}

// The mock answers session id 0 (it echoes the request's): a broker offering no session, so
// every request stays full, asking again, and the answers are the sessionless ones.
TEST_F(ClusterClientTest, FetchSessionsWithABrokerOfferingNoneStayFull) {
  for (int32_t p = 0; p < 3; ++p) {
    ASSERT_TRUE(produce_one({"three", p}, {{"k", "v" + std::to_string(p), {}}}).status.ok());
  }
  FetchSessions sessions;
  FetchOptions opts;
  opts.sessions = &sessions;
  opts.max_wait_ms = 0;
  for (int round = 0; round < 2; ++round) {
    std::vector<FetchPosition> positions;
    for (int32_t p = 0; p < 3; ++p) positions.push_back(FetchPosition{{"three", p}, 0});
    auto r = client_->fetch(positions, opts);
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    for (int32_t p = 0; p < 3; ++p) {
      ASSERT_TRUE((*r)[p].status.ok()) << (*r)[p].status.to_string();
      auto got = test::read_records((*r)[p].records);
      ASSERT_EQ(got.size(), 1u);
      EXPECT_EQ(got[0].value, "v" + std::to_string(p));
    }
  }
  for (int32_t node = 1; node <= 3; ++node) {
    ASSERT_NE(sessions.session(node), nullptr);
    EXPECT_EQ(sessions.session(node)->id, 0);
  }
  EXPECT_EQ(sessions.stats().full, 6u);
  EXPECT_EQ(sessions.stats().incremental, 0u);
}

TEST_F(ClusterClientTest, AdminCallsTheMockLacksFailClearly) {
  auto r = client_->create_topics({NewTopic{"new", 1, 1, {}}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::UNSUPPORTED_VERSION);
  EXPECT_NE(r.status().message().find("CreateTopics"), std::string::npos) << r.status().message();
}

TEST(ClusterClient, NoReachableBrokerFailsFast) {
  asio::io_context io;
  uint16_t port = 0;
  {
    asio::ip::tcp::acceptor a(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    port = a.local_endpoint().port();
  }
  ClientOptions o;
  o.bootstrap_servers = "127.0.0.1:" + std::to_string(port);
  auto c = SyncClient::create(o);
  ASSERT_TRUE(c.ok());
  auto md = c.value()->metadata(std::nullopt);
  ASSERT_FALSE(md.ok());
  EXPECT_EQ(md.status().code(), ErrorCode::NETWORK_EXCEPTION);
  EXPECT_NE(md.status().message().find("cannot reach any broker"), std::string::npos)
      << md.status().message();
  EXPECT_FALSE(SyncClient::create(ClientOptions{}).ok()) << "an empty bootstrap list";
}

}  // namespace
}  // namespace mirra::client
