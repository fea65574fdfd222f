// Handler tests against a real in-process broker (server/in_process_broker.h): the data path
// (CreateTopics, Produce, Fetch with sessions and long polls, ListOffsets, DeleteTopics) and a
// restart on the same directory, and the leader epochs an unclean restart bumps.
#include "server/in_process_broker.h"

#include <gtest/gtest.h>

#include "cluster/partition_manager.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/delete_topics.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/metadata.h"
#include "protocol/messages/offset_for_leader_epoch.h"
#include "protocol/messages/produce.h"
#include "protocol/records/batch_builder.h"
#include "protocol/records/record_set.h"
#include "server/fetch_session.h"
#include "test_batches.h"

namespace mirra::server {
namespace {

using protocol::Bytes;

using test::batch_of;

class BrokerTest : public ::testing::Test {
 protected:
  void SetUp() override { start({}); }

  void start(std::vector<std::string> overrides) {
    auto b = InProcessBroker::start(std::move(overrides));
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    broker_ = std::move(b.value());
  }

  Uuid create_topic(const std::string& name, int32_t partitions) {
    protocol::CreateTopicsRequest req;
    req.topics.push_back({name, partitions, 1, {}, {}, {}});
    auto resp = broker_->call<protocol::CreateTopicsResponse>(req, 7);
    EXPECT_TRUE(resp.ok());
    EXPECT_EQ(resp->topics.at(0).error_code, 0) << resp->topics.at(0).error_message.value_or("");
    return resp->topics.at(0).topic_id;
  }

  protocol::ProduceRequest produce_request(const std::string& topic,
                                           std::vector<std::pair<int32_t, Bytes>>& parts) {
    protocol::ProduceRequest req;
    req.acks = 1;
    req.timeout_ms = 1000;
    auto& td = req.topic_data.emplace_back();
    td.name = topic;
    for (auto& [p, bytes] : parts) {
      td.partition_data.push_back(
          {p, protocol::RecordsView{bytes.data(), bytes.size(), nullptr}, {}});
    }
    return req;
  }

  // Produces one batch; returns its base offset (or -error code).
  int64_t produce(const std::string& topic, int32_t partition, std::vector<std::string> values) {
    std::vector<std::pair<int32_t, Bytes>> parts{{partition, batch_of(values)}};
    auto resp = broker_->call<protocol::ProduceResponse>(produce_request(topic, parts), 9);
    EXPECT_TRUE(resp.ok()) << resp.status().to_string();
    const auto& pr = resp->responses.at(0).partition_responses.at(0);
    return pr.error_code != 0 ? -pr.error_code : pr.base_offset;
  }

  protocol::FetchRequest fetch_request(const std::string& topic, int64_t offset,
                                       int32_t session_id = 0, int32_t epoch = -1) {
    protocol::FetchRequest req;
    req.max_wait_ms = 0;
    req.min_bytes = 0;
    req.max_bytes = 1 << 20;
    req.session_id = session_id;
    req.session_epoch = epoch;
    auto& t = req.topics.emplace_back();
    t.topic = topic;
    t.partitions.push_back({0, -1, offset, -1, -1, 1 << 20, {}, {}});
    return req;
  }

  // Values of the records in a fetched partition, with their offsets.
  static std::vector<std::pair<int64_t, std::string>> values_of(
      const protocol::FetchResponse::PartitionData& pd) {
    std::vector<std::pair<int64_t, std::string>> out;
    if (!pd.records) return out;
    records::RecordSetIterator it(pd.records->span(), /*validate=*/true);
    records::BatchView batch;
    std::vector<uint8_t> scratch;
    while (it.next(batch) == records::RecordSetStep::batch) {
      Status s = records::for_each_record(batch, scratch, [&](const records::RecordView& r) {
        out.emplace_back(batch.base_offset() + r.offset_delta,
                         r.value ? std::string(records::as_string(*r.value)) : "");
        return Status::OK();
      });
      EXPECT_TRUE(s.ok()) << s.to_string();
    }
    EXPECT_TRUE(it.status().ok()) << it.status().to_string();
    return out;
  }

  std::unique_ptr<InProcessBroker> broker_;
};

TEST_F(BrokerTest, ProduceThenFetchRecordForRecord) {
  create_topic("t", 1);
  EXPECT_EQ(produce("t", 0, {"a", "b"}), 0);
  EXPECT_EQ(produce("t", 0, {"c"}), 2);
  auto resp = broker_->call<protocol::FetchResponse>(fetch_request("t", 1), 12);
  ASSERT_TRUE(resp.ok()) << resp.status().to_string();
  const auto& pd = resp->responses.at(0).partitions.at(0);
  EXPECT_EQ(pd.error_code, 0);
  EXPECT_EQ(pd.high_watermark, 3);
  // The whole first batch comes back (fetches return whole batches); the client skips "a".
  std::vector<std::pair<int64_t, std::string>> want{{0, "a"}, {1, "b"}, {2, "c"}};
  EXPECT_EQ(values_of(pd), want);
}

TEST_F(BrokerTest, ProduceToUnknownPartitionFails) {
  create_topic("t", 1);
  EXPECT_EQ(produce("t", 5, {"x"}), -error_number(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION));
  EXPECT_EQ(produce("nope", 0, {"x"}), -error_number(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION));
}

TEST_F(BrokerTest, FetchOutOfRange) {
  create_topic("t", 1);
  produce("t", 0, {"a"});
  auto resp = broker_->call<protocol::FetchResponse>(fetch_request("t", 7), 11);
  ASSERT_TRUE(resp.ok());
  EXPECT_EQ(resp->responses.at(0).partitions.at(0).error_code,
            error_number(ErrorCode::OFFSET_OUT_OF_RANGE));
}

TEST_F(BrokerTest, FetchSessionsSendOnlyNews) {
  create_topic("t", 1);
  produce("t", 0, {"a"});
  auto full = broker_->call<protocol::FetchResponse>(fetch_request("t", 0, 0, 0), 12);
  ASSERT_TRUE(full.ok());
  const int32_t id = full->session_id;
  ASSERT_NE(id, 0);
  ASSERT_EQ(values_of(full->responses.at(0).partitions.at(0)).size(), 1u);

  // Incremental, offset moved to 1: nothing new, so no partition in the answer.
  auto inc = broker_->call<protocol::FetchResponse>(fetch_request("t", 1, id, 1), 12);
  ASSERT_TRUE(inc.ok());
  EXPECT_EQ(inc->error_code, 0);
  EXPECT_EQ(inc->session_id, id);
  EXPECT_TRUE(inc->responses.empty());

  // A new record is news; the request carries no partitions at all (the session has them).
  produce("t", 0, {"b"});
  protocol::FetchRequest empty = fetch_request("t", 1, id, 2);
  empty.topics.clear();
  auto news = broker_->call<protocol::FetchResponse>(empty, 12);
  ASSERT_TRUE(news.ok());
  ASSERT_EQ(news->responses.size(), 1u);
  std::vector<std::pair<int64_t, std::string>> want{{1, "b"}};
  EXPECT_EQ(values_of(news->responses[0].partitions.at(0)), want);

  auto stale = broker_->call<protocol::FetchResponse>(fetch_request("t", 2, id, 2), 12);
  ASSERT_TRUE(stale.ok());
  EXPECT_EQ(stale->error_code, error_number(ErrorCode::INVALID_FETCH_SESSION_EPOCH));
  auto unknown = broker_->call<protocol::FetchResponse>(fetch_request("t", 2, id + 1000, 1), 12);
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->error_code, error_number(ErrorCode::FETCH_SESSION_ID_NOT_FOUND));
}

// KIP-227: the epoch after INT32_MAX is 1 (the broker once overflowed into INT32_MIN here).
TEST_F(BrokerTest, FetchSessionEpochWrapsToOne) {
  create_topic("t", 1);
  auto full = broker_->call<protocol::FetchResponse>(fetch_request("t", 0, 0, 0), 12);
  ASSERT_TRUE(full.ok());
  const int32_t id = full->session_id;
  auto session = broker_->state().fetch_sessions->peek(id);
  ASSERT_NE(session, nullptr);
  session->next_epoch = INT32_MAX;
  auto last = broker_->call<protocol::FetchResponse>(fetch_request("t", 0, id, INT32_MAX), 12);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->error_code, 0);
  EXPECT_EQ(session->next_epoch, 1);
  auto wrapped = broker_->call<protocol::FetchResponse>(fetch_request("t", 0, id, 1), 12);
  ASSERT_TRUE(wrapped.ok());
  EXPECT_EQ(wrapped->error_code, 0);
  EXPECT_EQ(wrapped->session_id, id);
}

TEST_F(BrokerTest, FetchByTopicIdFromV13) {
  const Uuid id = create_topic("t", 1);
  produce("t", 0, {"a"});
  protocol::FetchRequest req = fetch_request("", 0);
  req.topics[0].topic_id = id;
  auto resp = broker_->call<protocol::FetchResponse>(req, 13);
  ASSERT_TRUE(resp.ok()) << resp.status().to_string();
  EXPECT_EQ(resp->responses.at(0).topic_id, id);
  EXPECT_EQ(values_of(resp->responses[0].partitions.at(0)).size(), 1u);
  req.topics[0].topic_id = Uuid::random();
  auto unknown = broker_->call<protocol::FetchResponse>(req, 13);
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->responses.at(0).partitions.at(0).error_code,
            error_number(ErrorCode::UNKNOWN_TOPIC_ID));
}

TEST_F(BrokerTest, LongPollWaitsForAnAppend) {
  create_topic("t", 1);
  protocol::FetchRequest req = fetch_request("t", 0);
  req.max_wait_ms = 60000;
  req.min_bytes = 1;
  auto call = broker_->start_call(req, 12);
  broker_->poll();
  // Nothing to read: the fetch is parked on the partition, not answered.
  for (int i = 0; i < 20; ++i) broker_->poll();
  EXPECT_FALSE(call->result.has_value());
  produce("t", 0, {"wake"});
  broker_->run_until_done(*call);
  auto resp = broker_->response_of<protocol::FetchResponse>(*call, 12);
  ASSERT_TRUE(resp.ok()) << resp.status().to_string();
  std::vector<std::pair<int64_t, std::string>> want{{0, "wake"}};
  EXPECT_EQ(values_of(resp->responses.at(0).partitions.at(0)), want);
}

TEST_F(BrokerTest, PipelinedProducesKeepTheirOrderPerPartition) {
  create_topic("t", 2);
  // Request 1 writes partitions 0 and 1, request 2 only partition 1: request 1's batch must get
  // the lower offset in partition 1 although request 2 reaches partition 1 in fewer steps.
  std::vector<std::pair<int32_t, Bytes>> first{{0, batch_of({"1-p0"})}, {1, batch_of({"1-p1"})}};
  std::vector<std::pair<int32_t, Bytes>> second{{1, batch_of({"2-p1"})}};
  auto a = broker_->start_call(produce_request("t", first), 9);
  auto b = broker_->start_call(produce_request("t", second), 9);
  broker_->run_until_done(*a);
  broker_->run_until_done(*b);
  auto ra = broker_->response_of<protocol::ProduceResponse>(*a, 9);
  auto rb = broker_->response_of<protocol::ProduceResponse>(*b, 9);
  ASSERT_TRUE(ra.ok() && rb.ok());
  EXPECT_EQ(ra->responses[0].partition_responses[1].base_offset, 0);
  EXPECT_EQ(rb->responses[0].partition_responses[0].base_offset, 1);
}

TEST_F(BrokerTest, ListOffsetsEarliestLatestAndTimestamp) {
  create_topic("t", 1);
  std::vector<std::pair<int32_t, Bytes>> p1{{0, batch_of({"a", "b"}, 1000)}};
  std::vector<std::pair<int32_t, Bytes>> p2{{0, batch_of({"c"}, 5000)}};
  ASSERT_TRUE(broker_->call<protocol::ProduceResponse>(produce_request("t", p1), 9).ok());
  ASSERT_TRUE(broker_->call<protocol::ProduceResponse>(produce_request("t", p2), 9).ok());
  auto offset_for = [&](int64_t ts) {
    protocol::ListOffsetsRequest req;
    req.replica_id = -1;
    auto& t = req.topics.emplace_back();
    t.name = "t";
    t.partitions.push_back({0, -1, ts, {}});
    auto resp = broker_->call<protocol::ListOffsetsResponse>(req, 7);
    EXPECT_TRUE(resp.ok());
    return resp->topics.at(0).partitions.at(0).offset;
  };
  EXPECT_EQ(offset_for(-2), 0);     // earliest
  EXPECT_EQ(offset_for(-1), 3);     // latest
  EXPECT_EQ(offset_for(-3), 2);     // max timestamp
  EXPECT_EQ(offset_for(2000), 2);   // first record at or after 2000
  EXPECT_EQ(offset_for(9000), -1);  // none
}

TEST_F(BrokerTest, DeleteTopicThenRecreateStartsEmpty) {
  const Uuid old_id = create_topic("t", 1);
  produce("t", 0, {"old"});
  protocol::DeleteTopicsRequest del;
  del.topic_names.push_back("t");
  auto resp = broker_->call<protocol::DeleteTopicsResponse>(del, 5);
  ASSERT_TRUE(resp.ok());
  EXPECT_EQ(resp->responses.at(0).error_code, 0);
  EXPECT_EQ(produce("t", 0, {"x"}), -error_number(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION));
  const Uuid new_id = create_topic("t", 1);
  EXPECT_NE(new_id, old_id);
  EXPECT_EQ(produce("t", 0, {"new"}), 0);
}

TEST_F(BrokerTest, RestartKeepsTopicsAndRecords) {
  const std::string dir = broker_->dir().string() + "-restart";
  broker_.reset();
  start({"log.dirs=" + dir});
  const Uuid id = create_topic("t", 2);
  produce("t", 0, {"a", "b"});
  broker_.reset();  // graceful stop: flush, checkpoints, metadata snapshot
  start({"log.dirs=" + dir});
  const auto* topic = broker_->state().metadata->image().topic("t");
  ASSERT_NE(topic, nullptr);
  EXPECT_EQ(topic->id, id);
  EXPECT_EQ(topic->partitions.size(), 2u);
  auto resp = broker_->call<protocol::FetchResponse>(fetch_request("t", 0), 12);
  ASSERT_TRUE(resp.ok());
  EXPECT_EQ(values_of(resp->responses.at(0).partitions.at(0)).size(), 2u);
  EXPECT_EQ(produce("t", 0, {"c"}), 2);
  broker_.reset();
  std::filesystem::remove_all(dir);
}

// Partition 0 of `topic`'s leader epoch as Metadata v12 shows it.
int32_t metadata_leader_epoch(InProcessBroker& broker, const std::string& topic) {
  protocol::MetadataRequest req;
  req.topics->push_back({{}, topic, {}});
  auto resp = broker.call<protocol::MetadataResponse>(req, 12);
  EXPECT_TRUE(resp.ok()) << resp.status().to_string();
  return resp->topics.at(0).partitions.at(0).leader_epoch;
}

// OffsetForLeaderEpoch v4 for partition 0: {error, epoch, end offset}.
std::tuple<int16_t, int32_t, int64_t> epoch_end(InProcessBroker& broker, const std::string& topic,
                                                int32_t epoch, int32_t current_epoch = -1) {
  protocol::OffsetForLeaderEpochRequest req;
  req.replica_id = -1;
  auto& t = req.topics.emplace_back();
  t.topic = topic;
  t.partitions.push_back({0, current_epoch, epoch, {}});
  auto resp = broker.call<protocol::OffsetForLeaderEpochResponse>(req, 4);
  EXPECT_TRUE(resp.ok()) << resp.status().to_string();
  const auto& p = resp->topics.at(0).partitions.at(0);
  return {p.error_code, p.leader_epoch, p.end_offset};
}

// docs/mirroring-design.md §2.4: after an unclean stop every leader epoch goes up by one, so
// the batches written from then on tell the old log's end apart from the new one's.
TEST_F(BrokerTest, UncleanRestartBumpsLeaderEpochs) {
  const std::filesystem::path dir = broker_->dir().string() + "-epochs";
  broker_.reset();
  start({"log.dirs=" + dir.string()});
  create_topic("t", 1);
  EXPECT_EQ(produce("t", 0, {"a", "b"}), 0);
  broker_.reset();  // clean: the epoch stays
  start({"log.dirs=" + dir.string()});
  EXPECT_EQ(metadata_leader_epoch(*broker_, "t"), 0);
  broker_.reset();
  // What a crash leaves: no clean-shutdown marker.
  ASSERT_TRUE(std::filesystem::remove(dir / cluster::kCleanShutdownFile));
  start({"log.dirs=" + dir.string()});
  EXPECT_EQ(metadata_leader_epoch(*broker_, "t"), 1);
  EXPECT_EQ(produce("t", 0, {"c"}), 2);
  auto fetched = broker_->call<protocol::FetchResponse>(fetch_request("t", 2), 12);
  ASSERT_TRUE(fetched.ok());
  const auto& records = fetched->responses.at(0).partitions.at(0).records;
  ASSERT_TRUE(records.has_value());
  records::RecordSetIterator it(records->span());
  records::BatchView batch;
  ASSERT_EQ(it.next(batch), records::RecordSetStep::batch);
  EXPECT_EQ(batch.partition_leader_epoch(), 1);
  // Epoch 0 ends where epoch 1 starts; the latest epoch ends at the log end.
  EXPECT_EQ(epoch_end(*broker_, "t", 0), std::make_tuple(int16_t{0}, 0, int64_t{2}));
  EXPECT_EQ(epoch_end(*broker_, "t", 1), std::make_tuple(int16_t{0}, 1, int64_t{3}));
  // A client still on epoch 0 is fenced.
  EXPECT_EQ(std::get<0>(epoch_end(*broker_, "t", 0, 0)),
            error_number(ErrorCode::FENCED_LEADER_EPOCH));
  broker_.reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mirra::server
