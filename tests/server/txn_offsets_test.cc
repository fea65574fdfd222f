// Offsets committed inside a transaction (AddOffsetsToTxn + TxnOffsetCommit) through the whole
// request path: held back from OffsetFetch (UNSTABLE_OFFSET_COMMIT with require_stable) until
// the transaction ends, applied by its commit, dropped by its abort, still held after a
// restart; and the producer checks of both requests.
#include "txn_fixture.h"

namespace mirra::server::txn_testing {
namespace {

constexpr int16_t kOffsetFetchV = 8;  // require_stable is v7+, groups v8+

// What OffsetFetch answers for one partition.
struct Fetched {
  int64_t offset = -1;
  int16_t error = 0;
};

class TxnOffsetsTest : public TxnFixture {
 protected:
  void SetUp() override {
    TxnFixture::SetUp();
    create_topic("t", 2);
    wait_for_group_coordinator();
  }

  // FindCoordinator creates __consumer_offsets; DescribeGroups answers once "g" is loaded.
  void wait_for_group_coordinator() {
    ASSERT_EQ(find_coordinator("g", 0).error_code, 0);
    ASSERT_TRUE(eventually([&] {
      DescribeGroupsRequest req;
      req.groups = {"g"};
      auto d = broker_->call<DescribeGroupsResponse>(req, 5);
      return d.ok() && d->groups.at(0).error_code == 0;
    }));
  }

  int16_t txn_commit(const Producer& p, int32_t partition, int64_t offset,
                     int16_t version = kTxnCommitV) {
    TxnOffsetCommitRequest req;
    req.transactional_id = p.id;
    req.group_id = "g";
    req.producer_id = p.pid;
    req.producer_epoch = p.epoch;
    auto& t = req.topics.emplace_back();
    t.name = "t";
    t.partitions.push_back({partition, offset, -1, std::string("txn"), {}});
    auto r = broker_->call<TxnOffsetCommitResponse>(req, version);
    EXPECT_TRUE(r.ok());
    return r->topics.at(0).partitions.at(0).error_code;
  }

  Fetched committed(int32_t partition, bool require_stable) {
    OffsetFetchRequest req;
    req.require_stable = require_stable;
    auto& g = req.groups.emplace_back();
    g.group_id = "g";
    g.topics.emplace();
    g.topics->push_back({"t", {partition}, {}});
    auto r = broker_->call<OffsetFetchResponse>(req, kOffsetFetchV);
    EXPECT_TRUE(r.ok());
    const auto& p = r->groups.at(0).topics.at(0).partitions.at(0);
    return {p.committed_offset, p.error_code};
  }

  // A transaction holding offset `offset` of t-`partition` for group "g".
  Producer begin_with_offset(int32_t partition, int64_t offset) {
    Producer p = init_txn("tx");
    EXPECT_EQ(add_offsets(p, "g"), 0);
    EXPECT_EQ(txn_commit(p, partition, offset), 0);
    return p;
  }

  void expect_unstable(int32_t partition) {
    EXPECT_EQ(committed(partition, true).error, err(ErrorCode::UNSTABLE_OFFSET_COMMIT));
  }

  void expect_stable(int32_t partition, int64_t offset) {
    Fetched f = committed(partition, true);
    EXPECT_EQ(f.error, 0);
    EXPECT_EQ(f.offset, offset);
  }
};

TEST_F(TxnOffsetsTest, AddOffsetsPutsTheGroupsPartitionIntoTheTransaction) {
  Producer p = init_txn("tx");
  ASSERT_EQ(add_offsets(p, "g"), 0);
  auto d = describe("tx");
  EXPECT_EQ(d.transaction_state, "Ongoing");
  ASSERT_EQ(d.topics.size(), 1u);
  EXPECT_EQ(d.topics[0].topic, "__consumer_offsets");
  EXPECT_EQ(d.topics[0].partitions.size(), 1u);
}

TEST_F(TxnOffsetsTest, OffsetsCountOnlyOnceTheTransactionCommits) {
  Producer p = begin_with_offset(0, 5);
  expect_unstable(0);
  // Without require_stable the offset is simply not there yet.
  Fetched plain = committed(0, false);
  EXPECT_EQ(plain.error, 0);
  EXPECT_EQ(plain.offset, -1);
  expect_stable(1, -1);  // the other partition is not held
  ASSERT_EQ(end_txn(p, true), 0);
  expect_stable(0, 5);
}

TEST_F(TxnOffsetsTest, OffsetsOfAnAbortedTransactionAreDropped) {
  Producer first = begin_with_offset(0, 5);
  ASSERT_EQ(end_txn(first, true), 0);
  Producer second = begin_with_offset(0, 9);
  expect_unstable(0);
  ASSERT_EQ(end_txn(second, false), 0);
  expect_stable(0, 5);
}

TEST_F(TxnOffsetsTest, OffsetsOfATimedOutTransactionAreDropped) {
  Producer p = init_txn("tx", 100);
  ASSERT_EQ(add_offsets(p, "g"), 0);
  ASSERT_EQ(txn_commit(p, 0, 5), 0);
  ASSERT_TRUE(eventually([&] { return state_of("tx") == "CompleteAbort"; }));
  expect_stable(0, -1);
}

TEST_F(TxnOffsetsTest, HeldOffsetsSurviveARestartAndCommitAfterIt) {
  restart();
  create_topic("t", 2);
  wait_for_group_coordinator();
  Producer p = begin_with_offset(1, 42);
  restart();
  wait_for_group_coordinator();
  EXPECT_EQ(state_of("tx"), "Ongoing");
  expect_unstable(1);
  ASSERT_EQ(end_txn(p, true), 0);
  expect_stable(1, 42);
}

TEST_F(TxnOffsetsTest, TxnOffsetCommitChecksTheProducerAndItsTransaction) {
  Producer p = init_txn("tx");
  // No AddOffsetsToTxn, no open transaction: Kafka's INVALID_TXN_STATE.
  EXPECT_EQ(txn_commit(p, 0, 5), err(ErrorCode::INVALID_TXN_STATE));
  ASSERT_EQ(add_offsets(p, "g"), 0);
  EXPECT_EQ(txn_commit(p.with_epoch(p.epoch + 1), 0, 5), err(ErrorCode::PRODUCER_FENCED));
  EXPECT_EQ(txn_commit(Producer{"nobody", p.pid, p.epoch}, 0, 5),
            err(ErrorCode::INVALID_PRODUCER_ID_MAPPING));
  expect_stable(0, -1);  // nothing held by the refused commits
}

TEST_F(TxnOffsetsTest, TxnOffsetCommitNeedsTheGroupsPartitionInTheTransaction) {
  Producer p = init_txn("tx");
  ASSERT_EQ(add_partitions(p, "t", {0}), std::vector<int16_t>{0});
  // Ongoing, but no AddOffsetsToTxn for the group: no marker would reach the offsets, which
  // would stay held (and that offsets partition's LSO stuck). Refused like a commit outside a
  // transaction.
  EXPECT_EQ(txn_commit(p, 0, 5), err(ErrorCode::INVALID_TXN_STATE));
  expect_stable(0, -1);
  ASSERT_EQ(add_offsets(p, "g"), 0);
  EXPECT_EQ(txn_commit(p, 0, 5), 0);
}

TEST_F(TxnOffsetsTest, AddOffsetsChecksTheProducer) {
  init_txn("tx");
  Producer p = init_txn("tx");
  EXPECT_EQ(add_offsets(p.with_epoch(0), "g"), err(ErrorCode::PRODUCER_FENCED));
  // PRODUCER_FENCED is new in v2: v0 and v1 get INVALID_PRODUCER_EPOCH, as Kafka answers.
  EXPECT_EQ(add_offsets(p.with_epoch(0), "g", 1), err(ErrorCode::INVALID_PRODUCER_EPOCH));
  EXPECT_EQ(add_offsets(Producer{"nobody", p.pid, p.epoch}, "g"),
            err(ErrorCode::INVALID_PRODUCER_ID_MAPPING));
  EXPECT_EQ(state_of("tx"), "Empty");
}

}  // namespace
}  // namespace mirra::server::txn_testing
