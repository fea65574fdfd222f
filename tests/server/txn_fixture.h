// The fixture of the transaction coordinator's tests (txn_test.cc, txn_offsets_test.cc): an
// in-process broker with short timeouts, and one helper per request a transactional producer
// or an admin sends, each answering the error code (or the decoded response) the test checks.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "protocol/messages/add_offsets_to_txn.h"
#include "protocol/messages/add_partitions_to_txn.h"
#include "protocol/messages/create_topics.h"
#include "protocol/messages/describe_groups.h"
#include "protocol/messages/describe_transactions.h"
#include "protocol/messages/end_txn.h"
#include "protocol/messages/fetch.h"
#include "protocol/messages/find_coordinator.h"
#include "protocol/messages/init_producer_id.h"
#include "protocol/messages/list_offsets.h"
#include "protocol/messages/list_transactions.h"
#include "protocol/messages/offset_fetch.h"
#include "protocol/messages/produce.h"
#include "protocol/messages/txn_offset_commit.h"
#include "protocol/records/batch_builder.h"
#include "protocol/records/record_set.h"
#include "server/in_process_broker.h"

namespace mirra::server::txn_testing {

using namespace protocol;

// The newest versions of the producer's requests (PRODUCER_FENCED is known to all of them).
constexpr int16_t kInitV = 5;
constexpr int16_t kAddPartitionsV = 3;
constexpr int16_t kAddOffsetsV = 3;
constexpr int16_t kEndTxnV = 4;
constexpr int16_t kTxnCommitV = 3;
constexpr int32_t kMaxTimeoutMs = 300000;  // transaction.max.timeout.ms of the fixture
constexpr int32_t kLongTimeoutMs = 60000;  // never reached by a test

inline int16_t err(ErrorCode c) { return error_number(c); }

// A transactional producer as the coordinator knows it.
struct Producer {
  std::string id;
  int64_t pid = -1;
  int16_t epoch = -1;
  // The same producer with another epoch (an older instance, or one from the future).
  Producer with_epoch(int16_t e) const { return {id, pid, e}; }
};

// A batch as Fetch returned it.
struct BatchInfo {
  int64_t base_offset = -1;
  int64_t last_offset = -1;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  bool transactional = false;
  bool control = false;
  std::optional<records::ControlType> marker;  // for control batches
};

class TxnFixture : public ::testing::Test {
 protected:
  void SetUp() override { start({}); }
  void TearDown() override {
    broker_.reset();
    if (!restart_dir_.empty()) std::filesystem::remove_all(restart_dir_);
  }

  void start(std::vector<std::string> extra) {
    std::vector<std::string> o{"transaction.state.log.num.partitions=3",
                               "offsets.topic.num.partitions=3",
                               "transaction.abort.timed.out.transaction.cleanup.interval.ms=50",
                               "transaction.max.timeout.ms=" + std::to_string(kMaxTimeoutMs),
                               "group.initial.rebalance.delay.ms=0"};
    o.insert(o.end(), extra.begin(), extra.end());
    auto b = InProcessBroker::start(o);
    ASSERT_TRUE(b.ok()) << b.status().to_string();
    broker_ = std::move(b.value());
    // FindCoordinator creates __transaction_state; the coordinator loads it in the background
    // and answers ListTransactions with COORDINATOR_LOAD_IN_PROGRESS until it is done.
    ASSERT_EQ(find_coordinator("tx").error_code, 0);
    ASSERT_TRUE(eventually([&] { return list_response({}, {}).error_code == 0; }));
  }

  // Stops the broker and starts a new one on the same directory, which the fixture owns from
  // then on (the first broker's temporary directory goes with it).
  void restart() {
    if (restart_dir_.empty()) {
      restart_dir_ = broker_->dir().string() + "-restart";
      broker_.reset();
      start({"log.dirs=" + restart_dir_});
      return;
    }
    broker_.reset();
    start({"log.dirs=" + restart_dir_});
  }

  // Runs the broker's loop until `done` holds, for at most 10 s.
  template <typename F>
  bool eventually(F done) {
    return broker_->run_until(done);
  }

  void create_topic(const std::string& name, int32_t partitions) {
    CreateTopicsRequest req;
    req.topics.push_back({name, partitions, 1, {}, {}, {}});
    auto resp = broker_->call<CreateTopicsResponse>(req, 7);
    ASSERT_TRUE(resp.ok());
    ASSERT_EQ(resp->topics.at(0).error_code, 0);
  }

  FindCoordinatorResponse find_coordinator(const std::string& key, int8_t key_type = 1) {
    FindCoordinatorRequest req;
    req.key = key;
    req.key_type = key_type;
    auto r = broker_->call<FindCoordinatorResponse>(req, 3);
    EXPECT_TRUE(r.ok());
    return r.value();
  }

  InitProducerIdResponse init(std::optional<std::string> id, int32_t timeout_ms = kLongTimeoutMs,
                              int64_t producer_id = -1, int16_t epoch = -1,
                              int16_t version = kInitV) {
    InitProducerIdRequest req;
    req.transactional_id = std::move(id);
    req.transaction_timeout_ms = timeout_ms;
    req.producer_id = producer_id;
    req.producer_epoch = epoch;
    auto r = broker_->call<InitProducerIdResponse>(req, version);
    EXPECT_TRUE(r.ok());
    return r.value();
  }

  // InitProducerId for a transactional id, which must succeed.
  Producer init_txn(const std::string& id, int32_t timeout_ms = kLongTimeoutMs) {
    InitProducerIdResponse r = init(id, timeout_ms);
    EXPECT_EQ(r.error_code, 0);
    return {id, r.producer_id, r.producer_epoch};
  }

  // AddPartitionsToTxn (v0-3, the producer's form): the error of each partition, in order.
  std::vector<int16_t> add_partitions(const Producer& p, const std::string& topic,
                                      std::vector<int32_t> partitions,
                                      int16_t version = kAddPartitionsV) {
    AddPartitionsToTxnRequest req;
    req.v3_and_below_transactional_id = p.id;
    req.v3_and_below_producer_id = p.pid;
    req.v3_and_below_producer_epoch = p.epoch;
    req.v3_and_below_topics.push_back({topic, partitions, {}});
    auto r = broker_->call<AddPartitionsToTxnResponse>(req, version);
    EXPECT_TRUE(r.ok());
    std::vector<int16_t> out;
    for (const auto& t : r->results_by_topic_v3_and_below) {
      for (const auto& p : t.results_by_partition) out.push_back(p.partition_error_code);
    }
    return out;
  }

  int16_t add_offsets(const Producer& p, const std::string& group, int16_t version = kAddOffsetsV) {
    AddOffsetsToTxnRequest req{p.id, p.pid, p.epoch, group, {}};
    auto r = broker_->call<AddOffsetsToTxnResponse>(req, version);
    EXPECT_TRUE(r.ok());
    return r->error_code;
  }

  int16_t end_txn(const Producer& p, bool commit, int16_t version = kEndTxnV) {
    EndTxnRequest req{p.id, p.pid, p.epoch, commit, {}};
    auto r = broker_->call<EndTxnResponse>(req, version);
    EXPECT_TRUE(r.ok());
    return r->error_code;
  }

  // Produces one transactional batch; its base offset, or -error code.
  int64_t produce(const Producer& p, const std::string& topic, int32_t partition, int32_t sequence,
                  const std::vector<std::string>& values) {
    records::BatchOptions opts;
    opts.producer_id = p.pid;
    opts.producer_epoch = p.epoch;
    opts.base_sequence = sequence;
    opts.transactional = true;
    records::BatchBuilder b(opts);
    for (const std::string& v : values) {
      records::RecordInput r;
      r.value = records::as_bytes(v);
      r.timestamp = 1000;
      EXPECT_TRUE(b.append(r).ok());
    }
    auto batch = b.finish();
    EXPECT_TRUE(batch.ok());
    ProduceRequest req;
    req.transactional_id = p.id;
    req.acks = -1;
    req.timeout_ms = 1000;
    auto& td = req.topic_data.emplace_back();
    td.name = topic;
    td.partition_data.push_back(
        {partition, RecordsView{batch->data(), batch->size(), nullptr}, {}});
    auto resp = broker_->call<ProduceResponse>(req, 9);
    EXPECT_TRUE(resp.ok()) << resp.status().to_string();
    const auto& pr = resp->responses.at(0).partition_responses.at(0);
    return pr.error_code != 0 ? -pr.error_code : pr.base_offset;
  }

  FetchResponse::PartitionData fetch(const std::string& topic, int32_t partition,
                                     int8_t isolation = 0) {
    FetchRequest req;
    req.max_wait_ms = 0;
    req.min_bytes = 0;
    req.max_bytes = 1 << 20;
    req.isolation_level = isolation;
    auto& t = req.topics.emplace_back();
    t.topic = topic;
    t.partitions.push_back({partition, -1, 0, -1, -1, 1 << 20, {}, {}});
    auto resp = broker_->call<FetchResponse>(req, 12);
    EXPECT_TRUE(resp.ok()) << resp.status().to_string();
    return resp->responses.at(0).partitions.at(0);
  }

  // Every batch of the partition (read uncommitted), markers with their type.
  std::vector<BatchInfo> batches(const std::string& topic, int32_t partition) {
    FetchResponse::PartitionData pd = fetch(topic, partition);
    EXPECT_EQ(pd.error_code, 0);
    std::vector<BatchInfo> out;
    if (!pd.records) return out;
    records::RecordSetIterator it(pd.records->span(), /*validate=*/true);
    records::BatchView batch;
    std::vector<uint8_t> scratch;
    while (it.next(batch) == records::RecordSetStep::batch) {
      BatchInfo& b = out.emplace_back();
      b.base_offset = batch.base_offset();
      b.last_offset = batch.last_offset();
      b.producer_id = batch.producer_id();
      b.producer_epoch = batch.producer_epoch();
      b.transactional = batch.is_transactional();
      b.control = batch.is_control();
      if (!b.control) continue;
      Status s = records::for_each_record(batch, scratch, [&](const records::RecordView& r) {
        auto marker = records::parse_control_record(r);
        if (!marker.ok()) return marker.status();
        b.marker = static_cast<records::ControlType>(marker->type);
        return Status::OK();
      });
      EXPECT_TRUE(s.ok()) << s.to_string();
    }
    EXPECT_TRUE(it.status().ok()) << it.status().to_string();
    return out;
  }

  // ListOffsets latest: the log end (read uncommitted) or the last stable offset (committed).
  int64_t latest_offset(const std::string& topic, int32_t partition, bool read_committed) {
    ListOffsetsRequest req;
    req.replica_id = -1;
    req.isolation_level = read_committed ? 1 : 0;
    auto& t = req.topics.emplace_back();
    t.name = topic;
    t.partitions.push_back({partition, -1, -1, {}});
    auto resp = broker_->call<ListOffsetsResponse>(req, 7);
    EXPECT_TRUE(resp.ok());
    EXPECT_EQ(resp->topics.at(0).partitions.at(0).error_code, 0);
    return resp->topics.at(0).partitions.at(0).offset;
  }

  DescribeTransactionsResponse::TransactionState describe(const std::string& id) {
    DescribeTransactionsRequest req;
    req.transactional_ids = {id};
    auto r = broker_->call<DescribeTransactionsResponse>(req, 0);
    EXPECT_TRUE(r.ok());
    return r->transaction_states.at(0);
  }

  std::string state_of(const std::string& id) { return describe(id).transaction_state; }

  ListTransactionsResponse list_response(std::vector<std::string> states,
                                         std::vector<int64_t> producer_ids) {
    ListTransactionsRequest req;
    req.state_filters = std::move(states);
    req.producer_id_filters = std::move(producer_ids);
    auto r = broker_->call<ListTransactionsResponse>(req, 1);
    EXPECT_TRUE(r.ok());
    return r.value();
  }

  // The transactional ids ListTransactions answers, in its order (sorted by id).
  std::vector<std::string> listed(std::vector<std::string> states,
                                  std::vector<int64_t> producer_ids = {}) {
    ListTransactionsResponse r = list_response(std::move(states), std::move(producer_ids));
    std::vector<std::string> out;
    for (const auto& t : r.transaction_states) out.push_back(t.transactional_id);
    return out;
  }

  std::unique_ptr<InProcessBroker> broker_;
  std::string restart_dir_;
};

}  // namespace mirra::server::txn_testing
