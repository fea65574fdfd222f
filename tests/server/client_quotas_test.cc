// Client quotas through the whole request path of an in-process broker (client id "in-process",
// user ANONYMOUS): Describe/AlterClientQuotas with Kafka's errors, and each quota type's effect on
// the answers (throttle_time_ms, a throttled fetch without records, strict controller mutations).
// Muting is the connection's part, covered by the process tests (tests/interop/test_quotas.py).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "protocol/messages/alter_client_quotas.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_client_quotas.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/produce.h"
#include "server/in_process_broker.h"
#include "test_batches.h"

namespace mirra::server {
namespace {

using protocol::AlterClientQuotasRequest;
using protocol::AlterClientQuotasResponse;
using protocol::DescribeClientQuotasRequest;
using protocol::DescribeClientQuotasResponse;

using Entity = std::vector<std::pair<std::string, std::optional<std::string>>>;

AlterClientQuotasRequest::EntryData entry(const Entity& entity, const std::string& key,
                                          double value, bool remove = false) {
  AlterClientQuotasRequest::EntryData e;
  for (const auto& [type, name] : entity) e.entity.push_back({type, name, {}});
  e.ops.push_back({key, value, remove, {}});
  return e;
}

class ClientQuotasTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto b = InProcessBroker::start();
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    broker_ = std::move(b.value());
  }

  std::vector<int16_t> alter(std::vector<AlterClientQuotasRequest::EntryData> entries,
                             bool validate_only = false) {
    AlterClientQuotasRequest req;
    req.entries = std::move(entries);
    req.validate_only = validate_only;
    auto resp = broker_->call<AlterClientQuotasResponse>(req, 1);
    EXPECT_TRUE(resp.ok()) << resp.status().to_string();
    std::vector<int16_t> codes;
    if (resp.ok()) {
      for (const auto& e : resp->entries) codes.push_back(e.error_code);
    }
    return codes;
  }
  void set_quota(const Entity& entity, const std::string& key, double value) {
    ASSERT_EQ(alter({entry(entity, key, value)}), std::vector<int16_t>{0});
  }

  DescribeClientQuotasResponse describe(const std::string& type, int8_t match,
                                        std::optional<std::string> name, bool strict = false) {
    DescribeClientQuotasRequest req;
    req.components.push_back({type, match, std::move(name), {}});
    req.strict = strict;
    auto resp = broker_->call<DescribeClientQuotasResponse>(req, 1);
    EXPECT_TRUE(resp.ok()) << resp.status().to_string();
    return resp.ok() ? resp.value() : DescribeClientQuotasResponse{};
  }

  void create_topic(const std::string& name, int32_t partitions, int16_t version = 7,
                    int16_t expected_error = 0) {
    protocol::CreateTopicsRequest req;
    req.topics.push_back({name, partitions, 1, {}, {}, {}});
    auto resp = broker_->call<protocol::CreateTopicsResponse>(req, version);
    ASSERT_TRUE(resp.ok());
    EXPECT_EQ(resp->topics.at(0).error_code, expected_error)
        << resp->topics.at(0).error_message.value_or("");
    last_throttle_ = resp->throttle_time_ms;
  }

  // Produces `n` records of `size` bytes to t-0; returns the response's throttle time.
  int32_t produce(size_t n, size_t size) {
    protocol::Bytes batch = test::batch_of(std::vector<std::string>(n, std::string(size, 'x')));
    protocol::ProduceRequest req;
    req.acks = 1;
    req.timeout_ms = 1000;
    auto& td = req.topic_data.emplace_back();
    td.name = "t";
    td.partition_data.push_back(
        {0, protocol::RecordsView{batch.data(), batch.size(), nullptr}, {}});
    auto resp = broker_->call<protocol::ProduceResponse>(req, 9);
    EXPECT_TRUE(resp.ok()) << resp.status().to_string();
    EXPECT_EQ(resp->responses.at(0).partition_responses.at(0).error_code, 0);
    return resp->throttle_time_ms;
  }

  protocol::FetchResponse fetch(int32_t max_bytes) {
    protocol::FetchRequest req;
    req.max_wait_ms = 0;
    req.min_bytes = 0;
    req.max_bytes = max_bytes;
    req.session_id = 0;
    req.session_epoch = -1;
    auto& t = req.topics.emplace_back();
    t.topic = "t";
    t.partitions.push_back({0, -1, 0, -1, -1, max_bytes, {}, {}});
    auto resp = broker_->call<protocol::FetchResponse>(req, 11);
    EXPECT_TRUE(resp.ok()) << resp.status().to_string();
    return resp.ok() ? resp.value() : protocol::FetchResponse{};
  }

  std::unique_ptr<InProcessBroker> broker_;
  int32_t last_throttle_ = 0;
};

const Entity kThisClient{{"client-id", "in-process"}};

TEST_F(ClientQuotasTest, AlterThenDescribeWithKafkasMatchTypes) {
  EXPECT_EQ(
      alter({entry({{"user", "alice"}, {"client-id", std::nullopt}}, "producer_byte_rate", 1024),
             entry({{"client-id", "app"}}, "request_percentage", 12.5)}),
      (std::vector<int16_t>{0, 0}));
  auto exact = describe("client-id", 0, "app");
  ASSERT_EQ(exact.error_code, 0);
  ASSERT_TRUE(exact.entries.has_value());
  ASSERT_EQ(exact.entries->size(), 1u);
  EXPECT_EQ(exact.entries->at(0).values.at(0).key, "request_percentage");
  EXPECT_EQ(exact.entries->at(0).values.at(0).value, 12.5);
  // Default client id (match type 1), not strict: alice's user + default client-id entry.
  auto defaults = describe("client-id", 1, std::nullopt);
  ASSERT_EQ(defaults.entries->size(), 1u);
  ASSERT_EQ(defaults.entries->at(0).entity.size(), 2u);
  EXPECT_EQ(defaults.entries->at(0).entity.at(0).entity_name, "alice");
  EXPECT_FALSE(defaults.entries->at(0).entity.at(1).entity_name.has_value());
  // Strict leaves out entities with a user part.
  EXPECT_TRUE(describe("client-id", 1, std::nullopt, true).entries->empty());
  // Any client id, the default one included: alice's entry and "app".
  EXPECT_EQ(describe("client-id", 2, std::nullopt).entries->size(), 2u);
  // Removal.
  EXPECT_EQ(alter({entry({{"client-id", "app"}}, "request_percentage", 0, true)}),
            std::vector<int16_t>{0});
  EXPECT_TRUE(describe("client-id", 0, "app").entries->empty());
}

TEST_F(ClientQuotasTest, RefusalsAreInvalidRequestPerEntryAndChangeNothing) {
  const auto invalid = error_number(ErrorCode::INVALID_REQUEST);
  EXPECT_EQ(alter({entry({{"client-id", "a"}}, "producer_byte_rate", 1.5),
                   entry({{"client-id", "a"}}, "no_such_quota", 1),
                   entry({{"group", "g"}}, "producer_byte_rate", 1),
                   entry({{"client-id", "ok"}}, "consumer_byte_rate", 100)}),
            (std::vector<int16_t>{invalid, invalid, invalid, 0}));
  // Values no rate can have, as a hostile client may put them on the wire.
  EXPECT_EQ(alter({entry({{"client-id", "a"}}, "request_percentage",
                         std::numeric_limits<double>::infinity()),
                   entry({{"client-id", "a"}}, "controller_mutation_rate", std::nan("")),
                   entry({{"client-id", "a"}}, "consumer_byte_rate",
                         -std::numeric_limits<double>::infinity())}),
            (std::vector<int16_t>{invalid, invalid, invalid}));
  EXPECT_EQ(describe("client-id", 2, std::nullopt).entries->size(), 1u);
  // validate_only checks and writes nothing.
  EXPECT_EQ(alter({entry({{"client-id", "b"}}, "producer_byte_rate", 10)}, true),
            std::vector<int16_t>{0});
  EXPECT_TRUE(describe("client-id", 0, "b").entries->empty());
  // A bad filter fails the whole describe.
  auto bad = describe("group", 0, "g");
  EXPECT_EQ(bad.error_code, invalid);
  EXPECT_FALSE(bad.entries.has_value());
}

TEST_F(ClientQuotasTest, ProduceOverTheRateIsThrottledAndOthersAreNot) {
  create_topic("t", 1);
  EXPECT_EQ(produce(20, 1000), 0);  // no quota yet
  set_quota(kThisClient, "producer_byte_rate", 1024);
  // 20 KB at 1 KB/s over an 11 s window (padded to 10 s): about 1 s over the quota.
  const int32_t throttle = produce(20, 1000);
  EXPECT_GT(throttle, 0);
  // A quota for another client id does not touch this one: remove ours, set someone else's.
  ASSERT_EQ(alter({entry(kThisClient, "producer_byte_rate", 0, true),
                   entry({{"client-id", "other"}}, "producer_byte_rate", 1)}),
            (std::vector<int16_t>{0, 0}));
  EXPECT_EQ(produce(20, 1000), 0);
}

TEST_F(ClientQuotasTest, UserDefaultAppliesToAnonymousButClientIdWinsOverUserDefault) {
  create_topic("t", 1);
  set_quota({{"user", std::nullopt}}, "producer_byte_rate", 1024);
  EXPECT_GT(produce(20, 1000), 0);
  // Kafka's order: <default user> (6) beats <client-id> (7), so a generous client-id quota does
  // not lift the user default...
  set_quota(kThisClient, "producer_byte_rate", 1e12);
  EXPECT_GT(produce(20, 1000), 0);
  // ...while <default user> + <client-id> (4) does.
  set_quota({{"user", std::nullopt}, {"client-id", "in-process"}}, "producer_byte_rate", 1e12);
  EXPECT_EQ(produce(20, 1000), 0);
}

TEST_F(ClientQuotasTest, ThrottledFetchCarriesNoRecordsAndItsBytesDoNotCount) {
  create_topic("t", 1);
  for (int i = 0; i < 5; ++i) produce(10, 1000);
  set_quota(kThisClient, "consumer_byte_rate", 2000);
  // The cap: 2000 B/s * 10 windows = 20,000 bytes at most in one response: one batch of about
  // 10 KB, as a second would pass the cap.
  auto first = fetch(1 << 20);
  EXPECT_EQ(first.throttle_time_ms, 0);
  ASSERT_EQ(first.responses.size(), 1u);
  const auto& records = first.responses.at(0).partitions.at(0).records;
  ASSERT_TRUE(records.has_value());
  EXPECT_GT(records->size, 0u);
  EXPECT_LE(records->size, 20'000u);
  // The next one goes over: no partitions at all, a throttle time.
  auto second = fetch(1 << 20);
  EXPECT_GT(second.throttle_time_ms, 0);
  EXPECT_TRUE(second.responses.empty());
  // Its bytes were taken back: the throttle does not grow with further throttled fetches.
  auto third = fetch(1 << 20);
  EXPECT_TRUE(third.responses.empty());
  EXPECT_LE(third.throttle_time_ms, second.throttle_time_ms);
}

TEST_F(ClientQuotasTest, RequestPercentageThrottlesEvenCheapRequests) {
  set_quota(kThisClient, "request_percentage", 0.000001);
  protocol::MetadataRequest req;
  auto resp = broker_->call<protocol::MetadataResponse>(req, 12);
  ASSERT_TRUE(resp.ok());
  EXPECT_GT(resp->throttle_time_ms, 0);
  // Capped at one window (quota.window.size.seconds).
  EXPECT_LE(resp->throttle_time_ms, 1000);
}

TEST_F(ClientQuotasTest, ControllerMutationRateIsStrictFromCreateTopicsV6) {
  // 1 partition/s: the bucket holds 11 (quota.window.num * 1 s), so 20 partitions overdraw it.
  set_quota(kThisClient, "controller_mutation_rate", 1);
  create_topic("a", 20);
  EXPECT_GT(last_throttle_, 0);
  create_topic("b", 1, 6, error_number(ErrorCode::THROTTLING_QUOTA_EXCEEDED));
  EXPECT_GT(last_throttle_, 0);
  // v5 is permissive: accepted, then throttled.
  create_topic("c", 1, 5);
  EXPECT_GT(last_throttle_, 0);
}

}  // namespace
}  // namespace mirra::server
