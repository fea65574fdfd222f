// The client's share-group calls (client_share_groups.cc) against a scripted fake broker that is
// its own coordinator: requests as they go on the wire, answers read back, coordinator errors
// retried, group-level refusals, and ListGroups' type filter with and without v5.
#include <gtest/gtest.h>

#include "client/client.h"
#include "client_test_util.h"
#include "protocol/frame.h"

namespace mirra::client {
namespace {

constexpr int16_t NOT_COORDINATOR = 16;
constexpr int16_t GROUP_ID_NOT_FOUND = 69;
constexpr int16_t NON_EMPTY_GROUP = 68;
constexpr int16_t UNKNOWN_TOPIC_OR_PARTITION = 3;

// Writes `resp` as the answer to the request of `env`.
template <typename Resp>
void send(asio::ip::tcp::socket& s, const protocol::RequestEnvelope& env, const Resp& resp) {
  asio::write(s, asio::buffer(protocol::encode_response_frame(
                     env.header.correlation_id, env.header.request_api_version, resp)));
}

template <typename Req>
Req decode(const protocol::RequestEnvelope& env) {
  Req req;
  protocol::Reader r(env.body);
  EXPECT_TRUE(req.decode(r, env.header.request_api_version).ok());
  return req;
}

// A fake cluster of one broker (node 1) that coordinates every group. It answers Metadata and
// FindCoordinator itself and hands every other request to `on_request`.
class ShareGroupClientTest : public ::testing::Test {
 protected:
  using OnRequest =
      std::function<void(asio::ip::tcp::socket&, const protocol::RequestEnvelope& env)>;

  void start(OnRequest on_request, std::map<int16_t, int16_t> max_versions = {}) {
    on_request_ = std::move(on_request);
    fake_.emplace(
        io_, [this](asio::ip::tcp::socket& s, const protocol::Bytes& frame) { answer(s, frame); },
        std::move(max_versions));
    ClientOptions o;
    o.bootstrap_servers = "127.0.0.1:" + std::to_string(fake_->port());
    o.retry_backoff = Millis(1);
    auto c = Client::create(io_.get_executor(), o);
    ASSERT_TRUE(c.ok()) << c.status().to_string();
    client_ = std::move(c.value());
  }

  void TearDown() override {
    if (client_) client_->close();
  }

  // Runs one call of the client to its end.
  template <typename T>
  T run(asio::awaitable<T> call) {
    std::optional<T> out;
    auto wrap = [&out](asio::awaitable<T> c) -> asio::awaitable<void> {
      out.emplace(co_await std::move(c));
    };
    asio::co_spawn(io_, wrap(std::move(call)), asio::detached);
    while (!out) {
      if (io_.run_one() == 0) io_.restart();
    }
    return std::move(*out);
  }

  Client& client() { return *client_; }
  int find_coordinator_requests = 0;

 private:
  void answer(asio::ip::tcp::socket& s, const protocol::Bytes& frame) {
    auto env = protocol::decode_request_envelope(frame);
    ASSERT_TRUE(env.ok());
    const int16_t key = env->header.request_api_key;
    if (key == protocol::MetadataRequest::kApiKey) {
      protocol::MetadataResponse resp;
      resp.brokers.push_back({1, "127.0.0.1", fake_->port(), std::nullopt, {}});
      resp.controller_id = 1;
      send(s, env.value(), resp);
    } else if (key == protocol::FindCoordinatorRequest::kApiKey) {
      ++find_coordinator_requests;
      auto req = decode<protocol::FindCoordinatorRequest>(env.value());
      EXPECT_EQ(req.key_type, 0) << "share groups are found as groups";
      protocol::FindCoordinatorResponse resp;
      for (const std::string& k : req.coordinator_keys) {
        auto& c = resp.coordinators.emplace_back();
        c.key = k;
        c.node_id = 1;
        c.host = "127.0.0.1";
        c.port = fake_->port();
      }
      send(s, env.value(), resp);
    } else {
      on_request_(s, env.value());
    }
  }

  asio::io_context io_;
  OnRequest on_request_;
  std::optional<test::FakeBroker> fake_;
  std::unique_ptr<Client> client_;
};

using DescribeOffsetsResp = protocol::DescribeShareGroupOffsetsResponse;

DescribeOffsetsResp::DescribeShareGroupOffsetsResponsePartition start_at(int32_t partition,
                                                                         int64_t offset,
                                                                         int64_t lag) {
  DescribeOffsetsResp::DescribeShareGroupOffsetsResponsePartition p;
  p.partition_index = partition;
  p.start_offset = offset;
  p.leader_epoch = 0;
  p.lag = lag;
  return p;
}

// Both groups go to their coordinator in one request; the group whose coordinator moved is
// looked up and asked again alone, the one that is not a share group keeps its error.
TEST_F(ShareGroupClientTest, DescribesOffsetsFollowingAMovedCoordinator) {
  std::vector<protocol::DescribeShareGroupOffsetsRequest> asked;
  std::vector<int16_t> versions;
  start([&](asio::ip::tcp::socket& s, const protocol::RequestEnvelope& env) {
    ASSERT_EQ(env.header.request_api_key, protocol::DescribeShareGroupOffsetsRequest::kApiKey);
    asked.push_back(decode<protocol::DescribeShareGroupOffsetsRequest>(env));
    versions.push_back(env.header.request_api_version);
    DescribeOffsetsResp resp;
    for (const auto& g : asked.back().groups) {
      auto& out = resp.groups.emplace_back();
      out.group_id = g.group_id;
      if (g.group_id == "cg") {
        out.error_code = GROUP_ID_NOT_FOUND;
        out.error_message = "Group cg is not a share group.";
      } else if (asked.size() == 1) {
        out.error_code = NOT_COORDINATOR;
      } else {
        auto& t = out.topics.emplace_back();
        t.topic_name = "t";
        t.partitions = {start_at(1, 5, 3), start_at(0, 10, 0)};
      }
    }
    send(s, env, resp);
  });
  auto r = run(client().share_group_offsets({"g", "cg"}, std::nullopt));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 2u);
  const ShareGroupOffsets& g = (*r)[0];
  EXPECT_EQ(g.group_id, "g");
  ASSERT_TRUE(g.status.ok()) << g.status.to_string();
  ASSERT_EQ(g.offsets.size(), 2u);
  EXPECT_EQ(g.offsets[0].tp, (TopicPartition{"t", 0}));  // sorted
  EXPECT_EQ(g.offsets[0].start_offset, 10);
  EXPECT_EQ(g.offsets[0].lag, 0);
  EXPECT_EQ(g.offsets[1].start_offset, 5);
  EXPECT_EQ(g.offsets[1].lag, 3);
  EXPECT_EQ((*r)[1].status.code(), ErrorCode::GROUP_ID_NOT_FOUND);
  EXPECT_NE((*r)[1].status.message().find("not a share group"), std::string::npos);
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[0].groups.size(), 2u);
  EXPECT_FALSE(asked[0].groups[0].topics.has_value()) << "null: every partition";
  ASSERT_EQ(asked[1].groups.size(), 1u);
  EXPECT_EQ(asked[1].groups[0].group_id, "g");
  EXPECT_EQ(find_coordinator_requests, 2);
  EXPECT_EQ(versions[0], 1) << "the highest version both sides speak";
}

// Named partitions come back in the caller's order, -1 where the group holds no state; a v0
// broker has no lag.
TEST_F(ShareGroupClientTest, DescribesNamedPartitionsFromAV0Broker) {
  std::optional<protocol::DescribeShareGroupOffsetsRequest> asked;
  start(
      [&](asio::ip::tcp::socket& s, const protocol::RequestEnvelope& env) {
        EXPECT_EQ(env.header.request_api_version, 0);
        asked = decode<protocol::DescribeShareGroupOffsetsRequest>(env);
        DescribeOffsetsResp resp;
        auto& g = resp.groups.emplace_back();
        g.group_id = "g";
        auto& t = g.topics.emplace_back();
        t.topic_name = "t";
        t.partitions = {start_at(1, 5, -1)};
        send(s, env, resp);
      },
      {{protocol::DescribeShareGroupOffsetsRequest::kApiKey, 0}});
  auto r =
      run(client().share_group_offsets({"g"}, std::vector<TopicPartition>{{"t", 9}, {"t", 1}}));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_TRUE(asked.has_value());
  ASSERT_TRUE(asked->groups[0].topics.has_value());
  ASSERT_EQ(asked->groups[0].topics->size(), 1u);
  EXPECT_EQ(asked->groups[0].topics->front().partitions, (std::vector<int32_t>{9, 1}));
  const auto& offsets = r->front().offsets;
  ASSERT_EQ(offsets.size(), 2u);
  EXPECT_EQ(offsets[0].tp, (TopicPartition{"t", 9}));
  EXPECT_EQ(offsets[0].start_offset, -1);
  EXPECT_EQ(offsets[1].start_offset, 5);
  EXPECT_EQ(offsets[1].lag, -1);
}

TEST_F(ShareGroupClientTest, AltersOffsetsAndFailsOnAGroupLevelRefusal) {
  std::vector<protocol::AlterShareGroupOffsetsRequest> asked;
  start([&](asio::ip::tcp::socket& s, const protocol::RequestEnvelope& env) {
    ASSERT_EQ(env.header.request_api_key, protocol::AlterShareGroupOffsetsRequest::kApiKey);
    asked.push_back(decode<protocol::AlterShareGroupOffsetsRequest>(env));
    protocol::AlterShareGroupOffsetsResponse resp;
    if (asked.back().group_id == "busy") {
      resp.error_code = NON_EMPTY_GROUP;
      resp.error_message = "the group has members";
    } else {
      for (const auto& t : asked.back().topics) {
        auto& out = resp.responses.emplace_back();
        out.topic_name = t.topic_name;
        for (const auto& p : t.partitions) {
          auto& po = out.partitions.emplace_back();
          po.partition_index = p.partition_index;
          if (p.partition_index == 1) po.error_code = UNKNOWN_TOPIC_OR_PARTITION;
        }
      }
    }
    send(s, env, resp);
  });
  std::vector<ShareGroupOffset> offsets(2);
  offsets[0].tp = {"t", 1};
  offsets[0].start_offset = 7;
  offsets[1].tp = {"t", 0};
  offsets[1].start_offset = 4;
  auto r = run(client().alter_share_group_offsets("g", offsets));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].tp, (TopicPartition{"t", 1}));
  EXPECT_EQ((*r)[0].status.code(), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_TRUE((*r)[1].status.ok()) << (*r)[1].status.to_string();
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].group_id, "g");
  ASSERT_EQ(asked[0].topics.size(), 1u);
  ASSERT_EQ(asked[0].topics[0].partitions.size(), 2u);
  EXPECT_EQ(asked[0].topics[0].partitions[0].partition_index, 1);
  EXPECT_EQ(asked[0].topics[0].partitions[0].start_offset, 7);

  auto busy = run(client().alter_share_group_offsets("busy", offsets));
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.status().code(), ErrorCode::NON_EMPTY_GROUP);
  EXPECT_NE(busy.status().message().find("the group has members"), std::string::npos);
}

TEST_F(ShareGroupClientTest, DeletesTheOffsetsOfTopics) {
  std::vector<protocol::DeleteShareGroupOffsetsRequest> asked;
  start([&](asio::ip::tcp::socket& s, const protocol::RequestEnvelope& env) {
    ASSERT_EQ(env.header.request_api_key, protocol::DeleteShareGroupOffsetsRequest::kApiKey);
    asked.push_back(decode<protocol::DeleteShareGroupOffsetsRequest>(env));
    protocol::DeleteShareGroupOffsetsResponse resp;
    if (asked.size() == 1) {
      resp.error_code = NOT_COORDINATOR;  // retried with a new lookup
    } else if (asked.back().group_id == "cg") {
      resp.error_code = GROUP_ID_NOT_FOUND;
    } else {
      for (const auto& t : asked.back().topics) {
        auto& out = resp.responses.emplace_back();
        out.topic_name = t.topic_name;
        if (t.topic_name == "nope") out.error_code = UNKNOWN_TOPIC_OR_PARTITION;
      }
    }
    send(s, env, resp);
  });
  auto r = run(client().delete_share_group_offsets("g", {"t", "nope"}));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].name, "t");
  EXPECT_TRUE((*r)[0].status.ok()) << (*r)[0].status.to_string();
  EXPECT_EQ((*r)[1].status.code(), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION);
  EXPECT_EQ(asked.size(), 2u);
  EXPECT_EQ(find_coordinator_requests, 2);
  auto cg = run(client().delete_share_group_offsets("cg", {"t"}));
  EXPECT_EQ(cg.status().code(), ErrorCode::GROUP_ID_NOT_FOUND);
}

TEST_F(ShareGroupClientTest, DescribesShareGroups) {
  start([&](asio::ip::tcp::socket& s, const protocol::RequestEnvelope& env) {
    ASSERT_EQ(env.header.request_api_key, protocol::ShareGroupDescribeRequest::kApiKey);
    auto req = decode<protocol::ShareGroupDescribeRequest>(env);
    EXPECT_EQ(req.group_ids, (std::vector<std::string>{"g", "cg"}));
    protocol::ShareGroupDescribeResponse resp;
    auto& g = resp.groups.emplace_back();
    g.group_id = "g";
    g.group_state = "Stable";
    g.group_epoch = 4;
    g.assignment_epoch = 3;
    g.assignor_name = "simple";
    auto& m = g.members.emplace_back();
    m.member_id = "m1";
    m.member_epoch = 3;
    m.client_id = "c1";
    m.client_host = "/127.0.0.1";
    m.subscribed_topic_names = {"t", "u"};
    m.assignment.topic_partitions.push_back({{}, "u", {0}, {}});
    m.assignment.topic_partitions.push_back({{}, "t", {2, 0}, {}});
    auto& cg = resp.groups.emplace_back();
    cg.group_id = "cg";
    cg.error_code = GROUP_ID_NOT_FOUND;
    send(s, env, resp);
  });
  auto r = run(client().describe_share_groups({"g", "cg"}));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->size(), 2u);
  const ShareGroupDescription& d = (*r)[0];
  ASSERT_TRUE(d.status.ok()) << d.status.to_string();
  EXPECT_EQ(d.state, "Stable");
  EXPECT_EQ(d.group_epoch, 4);
  EXPECT_EQ(d.assignment_epoch, 3);
  EXPECT_EQ(d.assignor, "simple");
  EXPECT_EQ(d.coordinator.node_id, 1);
  ASSERT_EQ(d.members.size(), 1u);
  EXPECT_EQ(d.members[0].client_host, "/127.0.0.1");
  EXPECT_EQ(d.members[0].member_epoch, 3);
  EXPECT_EQ(d.members[0].assignment, (std::vector<TopicPartition>{{"t", 0}, {"t", 2}, {"u", 0}}));
  EXPECT_EQ((*r)[1].status.code(), ErrorCode::GROUP_ID_NOT_FOUND);
}

protocol::ListGroupsResponse::ListedGroup listed(std::string id, std::string protocol_type,
                                                 std::string type) {
  protocol::ListGroupsResponse::ListedGroup g;
  g.group_id = std::move(id);
  g.protocol_type = std::move(protocol_type);
  g.group_state = "Empty";
  g.group_type = std::move(type);
  return g;
}

TEST_F(ShareGroupClientTest, ListsShareGroupsWithTheTypeFilter) {
  std::optional<protocol::ListGroupsRequest> asked;
  start([&](asio::ip::tcp::socket& s, const protocol::RequestEnvelope& env) {
    ASSERT_EQ(env.header.request_api_key, protocol::ListGroupsRequest::kApiKey);
    EXPECT_EQ(env.header.request_api_version, 5);
    asked = decode<protocol::ListGroupsRequest>(env);
    protocol::ListGroupsResponse resp;
    resp.groups.push_back(listed("sg", "share", "share"));
    send(s, env, resp);
  });
  auto r = run(client().list_groups({"Empty"}, {"share"}));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_TRUE(asked.has_value());
  EXPECT_EQ(asked->types_filter, (std::vector<std::string>{"share"}));
  EXPECT_EQ(asked->states_filter, (std::vector<std::string>{"Empty"}));
  ASSERT_EQ(r->groups.size(), 1u);
  EXPECT_EQ(r->groups[0].group_id, "sg");
  EXPECT_EQ(r->groups[0].type, "share");
}

// ListGroups v4 cannot filter by type: the client keeps the groups of protocol type "share".
TEST_F(ShareGroupClientTest, ListsShareGroupsOfABrokerWithoutTypeFilters) {
  start(
      [&](asio::ip::tcp::socket& s, const protocol::RequestEnvelope& env) {
        EXPECT_EQ(env.header.request_api_version, 4);
        protocol::ListGroupsResponse resp;
        resp.groups.push_back(listed("sg", "share", ""));
        resp.groups.push_back(listed("cg", "consumer", ""));
        send(s, env, resp);
      },
      {{protocol::ListGroupsRequest::kApiKey, 4}});
  auto r = run(client().list_groups({}, {"share"}));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  ASSERT_EQ(r->groups.size(), 1u);
  EXPECT_EQ(r->groups[0].group_id, "sg");
  auto all = run(client().list_groups());
  ASSERT_TRUE(all.ok()) << all.status().to_string();
  EXPECT_EQ(all->groups.size(), 2u);
}

}  // namespace
}  // namespace mirra::client
