// The client's consumer-group calls against librdkafka's mock cluster (FindCoordinator v0-3,
// OffsetCommit, OffsetFetch; no ListGroups/DescribeGroups) and a scripted fake broker for the
// batched FindCoordinator v4+.
#include <gtest/gtest.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include "client/sync_client.h"
#include "client_test_util.h"
#include "mock_cluster.h"
#include "protocol/frame.h"

namespace mirra::client {
namespace {

using testing::MockCluster;

class GroupClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(mock_.create_topic("t", 3), "");
    ClientOptions o;
    o.bootstrap_servers = mock_.bootstrap_servers();
    o.retry_timeout = Millis(10000);
    auto c = SyncClient::create(o);
    ASSERT_TRUE(c.ok()) << c.status().to_string();
    client_ = std::move(c.value());
  }

  void set_coordinator(const std::string& group, int32_t broker) {
    ASSERT_EQ(rd_kafka_mock_coordinator_set(mock_.raw(), "group", group.c_str(), broker),
              RD_KAFKA_RESP_ERR_NO_ERROR);
  }

  void commit(const std::string& group, std::vector<OffsetToCommit> offsets) {
    auto r = client_->offset_commit(group, std::move(offsets));
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    for (const PartitionStatus& p : *r) EXPECT_TRUE(p.status.ok()) << p.status.to_string();
  }

  MockCluster mock_{3};
  std::unique_ptr<SyncClient> client_;
};

TEST_F(GroupClientTest, FindsTheCoordinatorOfEachGroup) {
  set_coordinator("g1", 2);
  set_coordinator("g2", 3);
  auto one = client_->find_coordinator("g1");
  ASSERT_TRUE(one.ok()) << one.status().to_string();
  EXPECT_EQ(one->key, "g1");
  EXPECT_EQ(one->node_id, 2);
  EXPECT_EQ(one->host, "127.0.0.1");
  EXPECT_GT(one->port, 0);
  auto both = client_->find_coordinators({"g1", "g2"});
  ASSERT_TRUE(both.ok()) << both.status().to_string();
  ASSERT_EQ(both->size(), 2u);
  EXPECT_EQ((*both)[0].node_id, 2);
  EXPECT_EQ((*both)[1].key, "g2");
  EXPECT_EQ((*both)[1].node_id, 3);
}

TEST_F(GroupClientTest, CommitThenFetchOffsets) {
  set_coordinator("g", 2);
  commit("g", {{{"t", 0}, 5, -1, "meta"}, {{"t", 2}, 7, -1, std::nullopt}});
  auto asked =
      client_->offset_fetch("g", std::vector<TopicPartition>{{"t", 2}, {"t", 1}, {"t", 0}});
  ASSERT_TRUE(asked.ok()) << asked.status().to_string();
  ASSERT_EQ(asked->size(), 3u);
  // The caller's order; -1 where nothing was committed.
  EXPECT_EQ((*asked)[0].tp, (TopicPartition{"t", 2}));
  EXPECT_EQ((*asked)[0].offset, 7);
  EXPECT_EQ((*asked)[1].offset, -1);
  EXPECT_EQ((*asked)[2].offset, 5);
  EXPECT_EQ((*asked)[2].metadata, "meta");
  for (const auto& c : *asked) EXPECT_TRUE(c.status.ok()) << c.status.to_string();
}

TEST_F(GroupClientTest, FollowsAMovedCoordinator) {
  set_coordinator("g", 1);
  commit("g", {{{"t", 1}, 3, -1, std::nullopt}});
  // The cached coordinator (broker 1) now answers NOT_COORDINATOR (the mock does not check
  // itself): a new lookup finds broker 3.
  set_coordinator("g", 3);
  rd_kafka_mock_push_request_errors(mock_.raw(), protocol::OffsetCommitRequest::kApiKey, 1,
                                    RD_KAFKA_RESP_ERR_NOT_COORDINATOR);
  commit("g", {{{"t", 1}, 4, -1, std::nullopt}});
  auto fetched = client_->offset_fetch("g", std::vector<TopicPartition>{{"t", 1}});
  ASSERT_TRUE(fetched.ok()) << fetched.status().to_string();
  EXPECT_EQ(fetched->front().offset, 4);
  auto c = client_->find_coordinator("g");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->node_id, 3);
}

TEST_F(GroupClientTest, RetriesCoordinatorErrorsAndFailsOnOthers) {
  set_coordinator("g", 2);
  commit("g", {{{"t", 0}, 9, -1, std::nullopt}});
  rd_kafka_mock_push_request_errors(mock_.raw(), protocol::OffsetFetchRequest::kApiKey, 3,
                                    RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS,
                                    RD_KAFKA_RESP_ERR_NOT_COORDINATOR,
                                    RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE);
  auto fetched = client_->offset_fetch("g", std::vector<TopicPartition>{{"t", 0}});
  ASSERT_TRUE(fetched.ok()) << fetched.status().to_string();
  EXPECT_EQ(fetched->front().offset, 9);

  rd_kafka_mock_push_request_errors(mock_.raw(), protocol::OffsetFetchRequest::kApiKey, 1,
                                    RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED);
  auto denied = client_->offset_fetch("g", std::vector<TopicPartition>{{"t", 0}});
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.status().code(), ErrorCode::GROUP_AUTHORIZATION_FAILED);
  EXPECT_NE(denied.status().message().find("group g"), std::string::npos)
      << denied.status().message();
}

// The mock speaks OffsetFetch up to v7: one request per group, each group's outcome its own.
TEST_F(GroupClientTest, FetchesTheOffsetsOfManyGroupsEachWithItsOwnOutcome) {
  set_coordinator("g1", 2);
  set_coordinator("g2", 3);
  set_coordinator("g3", 2);
  commit("g1", {{{"t", 0}, 5, -1, "m1"}});
  commit("g2", {{{"t", 1}, 9, -1, std::nullopt}});
  const std::vector<TopicPartition> asked{{"t", 1}, {"t", 0}};
  auto got = client_->run(client_->async().offset_fetch_groups({"g1", "g2", "g3"}, asked));
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  ASSERT_EQ(got->size(), 3u);
  for (const GroupOffsets& g : *got) {
    EXPECT_TRUE(g.status.ok()) << g.group_id << ": " << g.status.to_string();
    ASSERT_EQ(g.offsets.size(), 2u) << g.group_id;
    EXPECT_EQ(g.offsets[0].tp, (TopicPartition{"t", 1}));  // the caller's order
  }
  EXPECT_EQ((*got)[0].group_id, "g1");
  EXPECT_EQ((*got)[0].offsets[0].offset, -1);
  EXPECT_EQ((*got)[0].offsets[1].offset, 5);
  EXPECT_EQ((*got)[0].offsets[1].metadata, "m1");
  EXPECT_EQ((*got)[1].offsets[0].offset, 9);
  EXPECT_EQ((*got)[1].offsets[1].offset, -1);
  EXPECT_EQ((*got)[2].offsets[0].offset, -1);

  // One group refused: the others are answered.
  rd_kafka_mock_push_request_errors(mock_.raw(), protocol::OffsetFetchRequest::kApiKey, 1,
                                    RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED);
  got = client_->run(client_->async().offset_fetch_groups({"g1", "g2", "g3"}, asked));
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  int denied = 0;
  for (const GroupOffsets& g : *got) {
    if (g.status.code() == ErrorCode::GROUP_AUTHORIZATION_FAILED) {
      ++denied;
    } else {
      EXPECT_TRUE(g.status.ok()) << g.group_id << ": " << g.status.to_string();
    }
  }
  EXPECT_EQ(denied, 1);
}

TEST_F(GroupClientTest, CallsTheMockLacksFailClearly) {
  set_coordinator("g", 2);
  auto described = client_->describe_groups({"g"});
  ASSERT_TRUE(described.ok()) << described.status().to_string();
  EXPECT_EQ(described->front().status.code(), ErrorCode::UNSUPPORTED_VERSION);
  EXPECT_NE(described->front().status.message().find("DescribeGroups"), std::string::npos)
      << described->front().status.message();
  auto listed = client_->list_groups();
  ASSERT_TRUE(listed.ok()) << listed.status().to_string();
  EXPECT_TRUE(listed->groups.empty());
  ASSERT_EQ(listed->errors.size(), 3u) << "one per broker";
  EXPECT_EQ(listed->errors[0].code(), ErrorCode::UNSUPPORTED_VERSION);
}

// FindCoordinator v4+ asks for every group in one request; a group whose coordinator is not
// available yet is asked again, alone.
TEST(GroupClient, BatchedFindCoordinatorRetriesOnlyTheFailedGroup) {
  asio::io_context io;
  std::vector<std::vector<std::string>> asked;
  test::FakeBroker fake(io, [&asked](asio::ip::tcp::socket& s, const protocol::Bytes& frame) {
    auto env = protocol::decode_request_envelope(frame);
    ASSERT_TRUE(env.ok());
    const int16_t version = env->header.request_api_version;
    ASSERT_EQ(env->header.request_api_key, protocol::FindCoordinatorRequest::kApiKey);
    ASSERT_GE(version, 4);
    protocol::FindCoordinatorRequest req;
    protocol::Reader r(env->body);
    ASSERT_TRUE(req.decode(r, version).ok());
    asked.push_back(req.coordinator_keys);
    protocol::FindCoordinatorResponse resp;
    for (const std::string& key : req.coordinator_keys) {
      auto& c = resp.coordinators.emplace_back();
      c.key = key;
      c.node_id = 7;
      c.host = "127.0.0.1";
      c.port = 1;
      // "late" is not ready at the first ask.
      if (key == "late" && asked.size() == 1) c.error_code = 15;  // COORDINATOR_NOT_AVAILABLE
    }
    asio::write(s, asio::buffer(
                       protocol::encode_response_frame(env->header.correlation_id, version, resp)));
  });
  ClientOptions o;
  o.bootstrap_servers = "127.0.0.1:" + std::to_string(fake.port());
  o.retry_backoff = Millis(1);
  auto client = Client::create(io.get_executor(), o);
  ASSERT_TRUE(client.ok());
  std::optional<Result<std::vector<Coordinator>>> found;
  const std::vector<std::string> groups{"early", "late"};  // named: g++ 12 and co_await
  auto ask = [&]() -> asio::awaitable<void> {
    found.emplace(co_await client.value()->find_coordinators(groups));
  };
  asio::co_spawn(io, ask(), asio::detached);
  while (!found) {
    if (io.run_one() == 0) io.restart();
  }
  ASSERT_TRUE(found->ok()) << found->status().to_string();
  ASSERT_EQ(found->value().size(), 2u);
  for (const Coordinator& c : found->value()) {
    EXPECT_TRUE(c.status.ok()) << c.status.to_string();
    EXPECT_EQ(c.node_id, 7);
  }
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[0], (std::vector<std::string>{"early", "late"}));
  EXPECT_EQ(asked[1], (std::vector<std::string>{"late"}));
  client.value()->close();
}

}  // namespace
}  // namespace mirra::client
