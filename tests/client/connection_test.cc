// BrokerConnection: version negotiation against librdkafka's mock broker, pipelining, and every
// transport failure turned into a clear Status.
#include <gtest/gtest.h>

#include "client/broker_connection.h"
#include "client/sync_client.h"
#include "client_test_util.h"
#include "mock_cluster.h"
#include "protocol/records/byte_order.h"

namespace mirra::client {
namespace {

using testing::MockCluster;

// Runs a coroutine to completion on `io`.
template <typename T>
T run(asio::io_context& io, asio::awaitable<T> op) {
  std::optional<T> out;
  auto store = [&out](asio::awaitable<T> inner) -> asio::awaitable<void> {
    out.emplace(co_await std::move(inner));
  };
  asio::co_spawn(io, store(std::move(op)), asio::detached);
  while (!out) {
    if (io.run_one() == 0) io.restart();
  }
  return std::move(*out);
}

HostPort first_broker(const MockCluster& mock) {
  auto servers = parse_bootstrap_servers(mock.bootstrap_servers());
  EXPECT_TRUE(servers.ok());
  return servers.value().front();
}

Result<std::shared_ptr<BrokerConnection>> connect(asio::io_context& io, const HostPort& hp,
                                                  ConnectionOptions o = {}) {
  return run(io, BrokerConnection::connect(io.get_executor(), hp.host, hp.port, o));
}

TEST(BrokerConnection, NegotiatesVersionsWithTheMockBroker) {
  MockCluster mock(1);
  asio::io_context io;
  auto conn = connect(io, first_broker(mock));
  ASSERT_TRUE(conn.ok()) << conn.status().to_string();
  auto produce = conn.value()->version_for(protocol::ProduceRequest::kApiKey);
  ASSERT_TRUE(produce.ok()) << produce.status().to_string();
  auto range = conn.value()->broker_range(protocol::ProduceRequest::kApiKey);
  ASSERT_TRUE(range.has_value());
  EXPECT_EQ(produce.value(), std::min(range->second, protocol::ProduceRequest::kMaxVersion));
  EXPECT_GE(produce.value(), 3);
  // The mock has no admin APIs: the error names the API and the broker.
  auto create = conn.value()->version_for(protocol::CreateTopicsRequest::kApiKey);
  ASSERT_FALSE(create.ok());
  EXPECT_EQ(create.status().code(), ErrorCode::UNSUPPORTED_VERSION);
  EXPECT_NE(create.status().message().find("CreateTopics"), std::string::npos)
      << create.status().message();
  // A cap below the client's minimum is an error, not a silent v0.
  auto capped = conn.value()->version_for(protocol::FetchRequest::kApiKey, int16_t{2});
  EXPECT_FALSE(capped.ok());
}

TEST(BrokerConnection, FallsBackWhenApiVersionsV3IsRefused) {
  MockCluster mock(1);
  ASSERT_EQ(mock.set_api_versions(protocol::kApiVersionsKey, 0, 2), "");
  asio::io_context io;
  auto conn = connect(io, first_broker(mock));
  ASSERT_TRUE(conn.ok()) << conn.status().to_string();
  auto range = conn.value()->broker_range(protocol::kApiVersionsKey);
  ASSERT_TRUE(range.has_value());
  EXPECT_EQ(range->second, 2);
  EXPECT_TRUE(conn.value()->version_for(protocol::MetadataRequest::kApiKey).ok());
}

TEST(BrokerConnection, PipelinesConcurrentRequests) {
  MockCluster mock(1);
  ASSERT_EQ(mock.create_topic("pipelined", 1), "");
  asio::io_context io;
  auto conn = connect(io, first_broker(mock));
  ASSERT_TRUE(conn.ok());
  constexpr int kRequests = 20;
  int answered = 0;
  for (int i = 0; i < kRequests; ++i) {
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
          protocol::MetadataRequest req;
          req.topics.emplace().emplace_back().name = "pipelined";
          req.allow_auto_topic_creation = false;
          auto reply = co_await conn.value()->send(req);
          EXPECT_TRUE(reply.ok()) << reply.status().to_string();
          if (reply.ok()) {
            EXPECT_EQ(reply->body.topics.size(), 1u);
            ++answered;
          }
        },
        asio::detached);
  }
  while (answered < kRequests && conn.value()->is_open()) io.run_one();
  EXPECT_EQ(answered, kRequests);
}

TEST(BrokerConnection, ConnectionRefusedIsAClearError) {
  asio::io_context io;
  uint16_t port = 0;
  {
    asio::ip::tcp::acceptor a(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    port = a.local_endpoint().port();
  }  // closed: nothing listens there now
  auto conn = connect(io, HostPort{"127.0.0.1", port});
  ASSERT_FALSE(conn.ok());
  EXPECT_EQ(conn.status().code(), ErrorCode::NETWORK_EXCEPTION);
  EXPECT_NE(conn.status().message().find("cannot connect to 127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << conn.status().message();
}

TEST(BrokerConnection, RequestTimeoutClosesTheConnection) {
  MockCluster mock(1);
  asio::io_context io;
  auto conn = connect(io, first_broker(mock));
  ASSERT_TRUE(conn.ok());
  ASSERT_EQ(mock.set_rtt(-1, 5000), "");
  protocol::MetadataRequest req;
  SendOptions opts;
  opts.timeout = Millis(100);
  auto reply = run(io, conn.value()->send(req, opts));
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::REQUEST_TIMED_OUT);
  EXPECT_NE(reply.status().message().find("timed out after 100 ms"), std::string::npos)
      << reply.status().message();
  EXPECT_FALSE(conn.value()->is_open());
}

TEST(BrokerConnection, ClosedMidRequest) {
  asio::io_context io;
  test::FakeBroker fake(io, [](asio::ip::tcp::socket& s, const protocol::Bytes&) { s.close(); });
  auto conn = connect(io, HostPort{"127.0.0.1", fake.port()});
  ASSERT_TRUE(conn.ok()) << conn.status().to_string();
  auto reply = run(io, conn.value()->send(protocol::MetadataRequest{}));
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::NETWORK_EXCEPTION);
  EXPECT_NE(reply.status().message().find("closed by the broker"), std::string::npos)
      << reply.status().message();
  // Later requests fail at once with the same reason.
  auto again = run(io, conn.value()->send(protocol::MetadataRequest{}));
  EXPECT_EQ(again.status().message(), reply.status().message());
}

TEST(BrokerConnection, UndecodableResponse) {
  asio::io_context io;
  test::FakeBroker fake(io, [](asio::ip::tcp::socket& s, const protocol::Bytes& frame) {
    // The right correlation id, then a body far too short for a MetadataResponse.
    const uint8_t reply[] = {0, 0, 0, 6, frame[4], frame[5], frame[6], frame[7], 0, 0};
    asio::write(s, asio::buffer(reply));
  });
  auto conn = connect(io, HostPort{"127.0.0.1", fake.port()});
  ASSERT_TRUE(conn.ok());
  auto reply = run(io, conn.value()->send(protocol::MetadataRequest{}));
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), ErrorCode::CORRUPT_MESSAGE);
  EXPECT_NE(reply.status().message().find("cannot decode MetadataResponse"), std::string::npos)
      << reply.status().message();
}

TEST(BrokerConnection, UnknownCorrelationIdClosesTheConnection) {
  asio::io_context io;
  test::FakeBroker fake(io, [](asio::ip::tcp::socket& s, const protocol::Bytes&) {
    const uint8_t reply[] = {0, 0, 0, 4, 0x7f, 0, 0, 1};
    asio::write(s, asio::buffer(reply));
  });
  auto conn = connect(io, HostPort{"127.0.0.1", fake.port()});
  ASSERT_TRUE(conn.ok());
  auto reply = run(io, conn.value()->send(protocol::MetadataRequest{}));
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(reply.status().message().find("unknown correlation id"), std::string::npos);
}

TEST(BootstrapServers, Parse) {
  auto ok = parse_bootstrap_servers("a:1, b:9092,[::1]:9093");
  ASSERT_TRUE(ok.ok());
  ASSERT_EQ(ok->size(), 3u);
  EXPECT_EQ((*ok)[1].host, "b");
  EXPECT_EQ((*ok)[1].port, 9092);
  EXPECT_EQ((*ok)[2].host, "::1");
  EXPECT_FALSE(parse_bootstrap_servers("").ok());
  EXPECT_FALSE(parse_bootstrap_servers("host").ok());
  EXPECT_FALSE(parse_bootstrap_servers("host:0").ok());
  EXPECT_FALSE(parse_bootstrap_servers("host:99999").ok());
  EXPECT_FALSE(parse_bootstrap_servers(":9092").ok());
}

}  // namespace
}  // namespace mirra::client
