// ShareFetch and ShareAcknowledge through the whole request path of an in-process broker:
// sessions and their epochs, acquisition by several members, every acknowledgement type,
// lock expiry, the long poll, and the errors a client can provoke.
#include <gtest/gtest.h>

#include "protocol/messages/create_topics.h"
#include "protocol/messages/produce.h"
#include "protocol/messages/share_acknowledge.h"
#include "protocol/messages/share_fetch.h"
#include "protocol/records/record_set.h"
#include "server/in_process_broker.h"
#include "share/share_state.h"
#include "test_batches.h"

namespace mirra::server {
namespace {

using namespace protocol;

int16_t err(ErrorCode c) { return error_number(c); }

struct Acquired {
  int64_t first, last;
  int16_t count;
  bool operator==(const Acquired&) const = default;
};
using AckBatches = std::vector<std::tuple<int64_t, int64_t, int8_t>>;  // first, last, type

class ShareFetchTest : public ::testing::Test {
 protected:
  void SetUp() override { start({}); }

  void start(std::vector<std::string> overrides) {
    auto b = InProcessBroker::start(std::move(overrides));
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    broker_ = std::move(b.value());
    CreateTopicsRequest req;
    req.topics.push_back({"t", 2, 1, {}, {}, {}});
    auto resp = broker_->call<CreateTopicsResponse>(req, 7);
    ASSERT_TRUE(resp.ok());
    ASSERT_EQ(resp->topics.at(0).error_code, 0);
    topic_id_ = resp->topics.at(0).topic_id;
  }

  void produce(int count, int32_t partition = 0) {
    std::vector<std::string> values;
    for (int i = 0; i < count; ++i) values.push_back("v" + std::to_string(i));
    Bytes bytes = test::batch_of(values);
    ProduceRequest req;
    req.acks = 1;
    req.timeout_ms = 1000;
    auto& td = req.topic_data.emplace_back();
    td.name = "t";
    td.partition_data.push_back({partition, RecordsView{bytes.data(), bytes.size(), nullptr}, {}});
    auto resp = broker_->call<ProduceResponse>(req, 9);
    ASSERT_TRUE(resp.ok());
    ASSERT_EQ(resp->responses.at(0).partition_responses.at(0).error_code, 0);
  }

  ShareFetchRequest fetch_request(const std::string& member, int32_t epoch, int32_t max_records,
                                  const AckBatches& acks = {}, int32_t partition = 0) {
    ShareFetchRequest req;
    req.group_id = "g";
    req.member_id = member;
    req.share_session_epoch = epoch;
    req.max_wait_ms = 0;
    req.max_bytes = 1 << 20;
    req.max_records = max_records;
    req.batch_size = max_records;
    auto& t = req.topics.emplace_back();
    t.topic_id = topic_id_;
    auto& p = t.partitions.emplace_back();
    p.partition_index = partition;
    for (auto [first, last, type] : acks)
      p.acknowledgement_batches.push_back({first, last, {type}, {}});
    return req;
  }

  ShareFetchResponse fetch(const ShareFetchRequest& req, int16_t version = 1) {
    auto r = broker_->call<ShareFetchResponse>(req, version);
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return r.value();
  }

  static std::vector<Acquired> acquired(const ShareFetchResponse& r) {
    std::vector<Acquired> out;
    for (const auto& t : r.responses) {
      for (const auto& p : t.partitions) {
        for (const auto& a : p.acquired_records)
          out.push_back({a.first_offset, a.last_offset, a.delivery_count});
      }
    }
    return out;
  }

  // Every record offset in the response's batches.
  static std::vector<int64_t> record_offsets(const ShareFetchResponse& r) {
    std::vector<int64_t> out;
    for (const auto& t : r.responses) {
      for (const auto& p : t.partitions) {
        if (!p.records) continue;
        records::RecordSetIterator it(p.records->span());
        records::BatchView b;
        while (it.next(b) == records::RecordSetStep::batch) {
          for (int64_t o = b.base_offset(); o <= b.last_offset(); ++o) out.push_back(o);
        }
      }
    }
    return out;
  }

  static int16_t ack_error(const ShareFetchResponse& r) {
    return r.responses.at(0).partitions.at(0).acknowledge_error_code;
  }

  // Opens member's session (nothing in the log yet: the group starts at the end, "latest").
  void open(const std::string& member) {
    auto r = fetch(fetch_request(member, 0, 10));
    ASSERT_EQ(r.error_code, 0) << r.error_message.value_or("");
    EXPECT_EQ(r.acquisition_lock_timeout_ms, broker_->state().share->limits().lock_duration_ms);
    ASSERT_EQ(r.responses.size(), 1u);  // a partition new to the session is answered
    EXPECT_TRUE(acquired(r).empty());
  }

  std::unique_ptr<InProcessBroker> broker_;
  Uuid topic_id_;
};

TEST_F(ShareFetchTest, AMemberGetsNewRecordsOnceAndAcceptedOnesNeverAgain) {
  open("m");
  produce(5);
  auto r = fetch(fetch_request("m", 1, 100));
  ASSERT_EQ(r.error_code, 0);
  EXPECT_EQ(acquired(r), (std::vector<Acquired>{{0, 4, 1}}));
  EXPECT_EQ(record_offsets(r), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  r = fetch(fetch_request("m", 2, 100, {{0, 4, 1}}));
  EXPECT_EQ(ack_error(r), 0);
  EXPECT_TRUE(acquired(r).empty());
  produce(2);
  r = fetch(fetch_request("m", 3, 100));
  EXPECT_EQ(acquired(r), (std::vector<Acquired>{{5, 6, 1}}));
}

TEST_F(ShareFetchTest, MembersShareAPartitionAndReleasedRecordsComeBackCounted) {
  open("a");
  open("b");
  produce(5);
  EXPECT_EQ(acquired(fetch(fetch_request("a", 1, 2))), (std::vector<Acquired>{{0, 1, 1}}));
  EXPECT_EQ(acquired(fetch(fetch_request("b", 1, 100))), (std::vector<Acquired>{{2, 4, 1}}));
  // a releases 0 and rejects 1; b gets 0 back with its second delivery, 1 never again.
  auto r = fetch(fetch_request("a", 2, 0, {{0, 0, 2}, {1, 1, 3}}));
  EXPECT_EQ(ack_error(r), 0);
  r = fetch(fetch_request("b", 2, 100));
  EXPECT_EQ(acquired(r), (std::vector<Acquired>{{0, 0, 2}}));
  EXPECT_EQ(record_offsets(r), (std::vector<int64_t>{0, 1, 2, 3, 4}));  // the whole batch
}

TEST_F(ShareFetchTest, AcknowledgingWhatAnotherMemberHoldsIsRefused) {
  open("a");
  open("b");
  produce(3);
  fetch(fetch_request("a", 1, 100));
  EXPECT_EQ(ack_error(fetch(fetch_request("b", 1, 0, {{0, 2, 1}}))),
            err(ErrorCode::INVALID_RECORD_STATE));
  // Out of order or overlapping batches are malformed.
  EXPECT_EQ(ack_error(fetch(fetch_request("a", 2, 0, {{1, 2, 1}, {0, 0, 1}}))),
            err(ErrorCode::INVALID_REQUEST));
  EXPECT_EQ(ack_error(fetch(fetch_request("a", 3, 0, {{0, 2, 1}}))), 0);
}

TEST_F(ShareFetchTest, SessionEpochsAndIdsAreChecked) {
  EXPECT_EQ(fetch(fetch_request("m", 1, 10)).error_code, err(ErrorCode::SHARE_SESSION_NOT_FOUND));
  open("m");
  EXPECT_EQ(fetch(fetch_request("m", 2, 10)).error_code,
            err(ErrorCode::INVALID_SHARE_SESSION_EPOCH));
  EXPECT_EQ(fetch(fetch_request("m", 0, 10, {{0, 0, 1}})).error_code,
            err(ErrorCode::INVALID_REQUEST));  // an opening fetch carries no acknowledgements
  EXPECT_EQ(fetch(fetch_request("", 0, 10)).error_code, err(ErrorCode::INVALID_REQUEST));
  EXPECT_EQ(fetch(fetch_request(std::string(37, 'x'), 0, 10)).error_code,
            err(ErrorCode::INVALID_REQUEST));
  auto unknown = fetch_request("m", 1, 10);
  unknown.topics.at(0).topic_id = Uuid::from_bits(9, 9);
  auto r = fetch(unknown);
  ASSERT_EQ(r.error_code, 0);
  EXPECT_EQ(r.responses.at(0).partitions.at(0).error_code, err(ErrorCode::UNKNOWN_TOPIC_ID));
}

TEST_F(ShareFetchTest, RenewIsAVersion2AcknowledgementThatFetchesNothing) {
  open("m");
  produce(2);
  fetch(fetch_request("m", 1, 100));
  EXPECT_EQ(ack_error(fetch(fetch_request("m", 2, 0, {{0, 1, 4}}))),
            err(ErrorCode::INVALID_REQUEST));  // unknown in v1
  auto renew = fetch_request("m", 3, 0, {{0, 1, 4}});
  renew.is_renew_ack = true;
  renew.max_bytes = 0;
  auto r = fetch(renew, 2);
  ASSERT_EQ(r.error_code, 0);
  EXPECT_EQ(ack_error(r), 0);
  renew.share_session_epoch = 4;
  renew.max_wait_ms = 10;
  EXPECT_EQ(fetch(renew, 2).error_code, err(ErrorCode::INVALID_REQUEST));
}

TEST_F(ShareFetchTest, TheDefaultLockLastsThirtySeconds) {
  open("m");
  EXPECT_EQ(broker_->state().share->limits().lock_duration_ms, 30'000);
}

TEST_F(ShareFetchTest, ExpiredLocksHandRecordsToTheNextFetch) {
  start(
      {"group.share.min.record.lock.duration.ms=1000", "group.share.record.lock.duration.ms=1000"});
  open("a");
  open("b");
  produce(2);
  EXPECT_EQ(acquired(fetch(fetch_request("a", 1, 100))), (std::vector<Acquired>{{0, 1, 1}}));
  int32_t epoch = 1;
  std::vector<Acquired> got;
  ASSERT_TRUE(broker_->run_until([&] {
    got = acquired(fetch(fetch_request("b", epoch++, 100)));
    return !got.empty();
  }));
  EXPECT_EQ(got, (std::vector<Acquired>{{0, 1, 2}}));
  // a's acknowledgement comes too late.
  EXPECT_EQ(ack_error(fetch(fetch_request("a", 2, 0, {{0, 1, 1}}))),
            err(ErrorCode::INVALID_RECORD_STATE));
}

TEST_F(ShareFetchTest, AnEmptyFetchWaitsForAnAppend) {
  open("m");
  auto req = fetch_request("m", 1, 100);
  req.max_wait_ms = 10'000;
  auto call = broker_->start_call(req, 1);
  broker_->poll();
  EXPECT_FALSE(call->result.has_value());
  produce(1);
  broker_->run_until_done(*call);
  auto r = broker_->response_of<ShareFetchResponse>(*call, 1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(acquired(r.value()), (std::vector<Acquired>{{0, 0, 1}}));
}

TEST_F(ShareFetchTest, ShareAcknowledgeClosesTheSessionAndGivesBackTheRest) {
  open("a");
  open("b");
  produce(4);
  fetch(fetch_request("a", 1, 100));
  ShareAcknowledgeRequest ack;
  ack.group_id = "g";
  ack.member_id = "a";
  ack.share_session_epoch = -1;
  auto& t = ack.topics.emplace_back();
  t.topic_id = topic_id_;
  t.partitions.push_back({0, {{0, 1, {1}, {}}}, {}});
  auto r = broker_->call<ShareAcknowledgeResponse>(ack, 1);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->error_code, 0);
  EXPECT_EQ(r->responses.at(0).partitions.at(0).error_code, 0);
  // 0-1 accepted; 2-3 released by the close.
  EXPECT_EQ(acquired(fetch(fetch_request("b", 1, 100))), (std::vector<Acquired>{{2, 3, 2}}));
  EXPECT_EQ(broker_->call<ShareAcknowledgeResponse>(ack, 1)->error_code,
            err(ErrorCode::SHARE_SESSION_NOT_FOUND));
  ack.share_session_epoch = 0;
  EXPECT_EQ(broker_->call<ShareAcknowledgeResponse>(ack, 1)->error_code,
            err(ErrorCode::INVALID_SHARE_SESSION_EPOCH));
}

}  // namespace
}  // namespace mirra::server
