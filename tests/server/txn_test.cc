// The transaction coordinator through the whole request path of an in-process broker:
// FindCoordinator for a transactional id, InitProducerId (idempotent, transactional, KIP-360
// bumps, timeouts), AddPartitionsToTxn's checks, the state machine as DescribeTransactions and
// ListTransactions show it, the markers EndTxn writes and the offsets they take, EndTxn's
// retries and invalid transitions, fencing (by a new instance and by the timeout sweep), and
// transactions and producer ids surviving a restart.
#include "txn/producer_id_manager.h"
#include "txn_fixture.h"

namespace mirra::server::txn_testing {
namespace {

using records::ControlType;

class TxnTest : public TxnFixture {};

TEST_F(TxnTest, FindCoordinatorAnswersThisNodeForATransactionalId) {
  FindCoordinatorResponse one = find_coordinator("tx");
  EXPECT_EQ(one.error_code, 0);
  EXPECT_EQ(one.node_id, 1);
  // v4+: several keys at once.
  FindCoordinatorRequest req;
  req.key_type = 1;
  req.coordinator_keys = {"a", "b"};
  auto many = broker_->call<FindCoordinatorResponse>(req, 4);
  ASSERT_TRUE(many.ok());
  ASSERT_EQ(many->coordinators.size(), 2u);
  for (const auto& c : many->coordinators) {
    EXPECT_EQ(c.error_code, 0) << c.key;
    EXPECT_EQ(c.node_id, 1);
  }
  EXPECT_EQ(find_coordinator("").error_code, err(ErrorCode::INVALID_REQUEST));
}

TEST_F(TxnTest, IdempotentProducersGetFreshIdsWithEpochZero) {
  InitProducerIdResponse a = init(std::nullopt);
  InitProducerIdResponse b = init(std::nullopt);
  // An id sent along (v3+) is ignored, as Kafka does: still a fresh one.
  InitProducerIdResponse c = init(std::nullopt, kLongTimeoutMs, b.producer_id, 0);
  for (const auto& r : {a, b, c}) {
    EXPECT_EQ(r.error_code, 0);
    EXPECT_EQ(r.producer_epoch, 0);
  }
  EXPECT_GE(a.producer_id, 0);
  EXPECT_LT(a.producer_id, b.producer_id);
  EXPECT_LT(b.producer_id, c.producer_id);
}

TEST_F(TxnTest, InitProducerIdBumpsTheEpochOfATransactionalId) {
  Producer first = init_txn("tx");
  EXPECT_GE(first.pid, 0);
  EXPECT_EQ(first.epoch, 0);
  Producer second = init_txn("tx");
  EXPECT_EQ(second.pid, first.pid);
  EXPECT_EQ(second.epoch, 1);
  auto d = describe("tx");
  EXPECT_EQ(d.error_code, 0);
  EXPECT_EQ(d.transaction_state, "Empty");
  EXPECT_EQ(d.producer_id, first.pid);
  EXPECT_EQ(d.producer_epoch, 1);
  EXPECT_EQ(d.transaction_timeout_ms, kLongTimeoutMs);
  EXPECT_EQ(describe("nobody").error_code, err(ErrorCode::TRANSACTIONAL_ID_NOT_FOUND));
}

TEST_F(TxnTest, InitProducerIdWithTheProducersIdAndEpochFollowsKip360) {
  Producer p = init_txn("tx");
  // The current id and epoch: bumped.
  InitProducerIdResponse bumped = init("tx", kLongTimeoutMs, p.pid, 0);
  EXPECT_EQ(bumped.error_code, 0);
  EXPECT_EQ(bumped.producer_id, p.pid);
  EXPECT_EQ(bumped.producer_epoch, 1);
  // The same request again (its answer was lost): the same answer, no second bump.
  InitProducerIdResponse retried = init("tx", kLongTimeoutMs, p.pid, 0);
  EXPECT_EQ(retried.error_code, 0);
  EXPECT_EQ(retried.producer_epoch, 1);
  ASSERT_EQ(init("tx", kLongTimeoutMs, p.pid, 1).producer_epoch, 2);
  // Neither the current nor the previous epoch, or another id: a fenced instance.
  // PRODUCER_FENCED is new in v4: v3 gets INVALID_PRODUCER_EPOCH, as Kafka answers (KIP-588).
  EXPECT_EQ(init("tx", kLongTimeoutMs, p.pid, 0).error_code, err(ErrorCode::PRODUCER_FENCED));
  EXPECT_EQ(init("tx", kLongTimeoutMs, p.pid + 1, 2).error_code, err(ErrorCode::PRODUCER_FENCED));
  EXPECT_EQ(init("tx", kLongTimeoutMs, p.pid, 0, 3).error_code,
            err(ErrorCode::INVALID_PRODUCER_EPOCH));
  EXPECT_EQ(describe("tx").producer_epoch, 2);
}

TEST_F(TxnTest, InitProducerIdRefusesATimeoutAboveTheMaximum) {
  EXPECT_EQ(init("tx", kMaxTimeoutMs + 1).error_code, err(ErrorCode::INVALID_TRANSACTION_TIMEOUT));
  EXPECT_EQ(init("tx", 0).error_code, err(ErrorCode::INVALID_TRANSACTION_TIMEOUT));
  EXPECT_EQ(describe("tx").error_code, err(ErrorCode::TRANSACTIONAL_ID_NOT_FOUND));
  EXPECT_EQ(init("tx", kMaxTimeoutMs).error_code, 0);
  EXPECT_EQ(init("", kMaxTimeoutMs).error_code, err(ErrorCode::INVALID_REQUEST));
}

TEST_F(TxnTest, AddPartitionsChecksTheProducer) {
  create_topic("t", 2);
  init_txn("tx");
  Producer p = init_txn("tx");  // epoch 1: epoch 0 is an older instance
  const std::vector<int16_t> fenced{err(ErrorCode::PRODUCER_FENCED)};
  EXPECT_EQ(add_partitions(p.with_epoch(0), "t", {0}), fenced);
  EXPECT_EQ(add_partitions(p.with_epoch(0), "t", {0}, 2), fenced);
  // PRODUCER_FENCED is new in v2: v0 and v1 get INVALID_PRODUCER_EPOCH, as Kafka answers.
  const std::vector<int16_t> old_epoch{err(ErrorCode::INVALID_PRODUCER_EPOCH)};
  EXPECT_EQ(add_partitions(p.with_epoch(0), "t", {0}, 1), old_epoch);
  EXPECT_EQ(add_partitions(p.with_epoch(0), "t", {0}, 0), old_epoch);
  const std::vector<int16_t> unmapped{err(ErrorCode::INVALID_PRODUCER_ID_MAPPING)};
  EXPECT_EQ(add_partitions(Producer{"nobody", p.pid, p.epoch}, "t", {0}), unmapped);
  EXPECT_EQ(add_partitions(Producer{"tx", p.pid + 1, p.epoch}, "t", {0}), unmapped);
  EXPECT_EQ(state_of("tx"), "Empty");
  EXPECT_EQ(add_partitions(p, "t", {0}, 1), std::vector<int16_t>{0});
  EXPECT_EQ(state_of("tx"), "Ongoing");
}

TEST_F(TxnTest, AddPartitionsWithAnUnknownPartitionAddsNone) {
  create_topic("t", 1);
  Producer p = init_txn("tx");
  // Kafka fails the unknown ones and does not attempt the others.
  EXPECT_EQ(add_partitions(p, "t", {0, 7}),
            (std::vector<int16_t>{err(ErrorCode::OPERATION_NOT_ATTEMPTED),
                                  err(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION)}));
  EXPECT_EQ(add_partitions(p, "missing", {0}),
            std::vector<int16_t>{err(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION)});
  auto d = describe("tx");
  EXPECT_EQ(d.transaction_state, "Empty");
  EXPECT_TRUE(d.topics.empty());
}

// v4+ (KIP-890's broker form) batches transactions: one only verified, one added, in one
// request. The add path awaits the coordinator inside the loop over transactions.
TEST_F(TxnTest, AddPartitionsV4VerifiesOneTransactionAndAddsToAnother) {
  create_topic("t", 2);
  Producer a = init_txn("a");
  Producer b = init_txn("b");
  AddPartitionsToTxnRequest req;
  req.transactions.push_back({"a", a.pid, a.epoch, true, {{"t", {0}, {}}}, {}});
  req.transactions.push_back({"b", b.pid, b.epoch, false, {{"t", {0, 1}, {}}}, {}});
  auto r = broker_->call<AddPartitionsToTxnResponse>(req, 4);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->results_by_transaction.size(), 2u);
  std::map<std::string, std::vector<int16_t>> errors;
  for (const auto& t : r->results_by_transaction) {
    for (const auto& topic : t.topic_results) {
      for (const auto& p : topic.results_by_partition) {
        errors[t.transactional_id].push_back(p.partition_error_code);
      }
    }
  }
  EXPECT_EQ(errors["a"], std::vector<int16_t>{err(ErrorCode::INVALID_TXN_STATE)});
  EXPECT_EQ(errors["b"], (std::vector<int16_t>{0, 0}));
  EXPECT_EQ(state_of("a"), "Empty");  // verify_only adds nothing
  EXPECT_EQ(state_of("b"), "Ongoing");
}

TEST_F(TxnTest, ACommitGoesFromEmptyThroughOngoingToCompleteCommit) {
  create_topic("t", 2);
  Producer p = init_txn("tx");
  EXPECT_EQ(describe("tx").transaction_start_time_ms, -1);
  ASSERT_EQ(add_partitions(p, "t", {0, 1}), (std::vector<int16_t>{0, 0}));
  auto ongoing = describe("tx");
  EXPECT_EQ(ongoing.transaction_state, "Ongoing");
  EXPECT_GT(ongoing.transaction_start_time_ms, 0);
  ASSERT_EQ(ongoing.topics.size(), 1u);
  EXPECT_EQ(ongoing.topics[0].topic, "t");
  EXPECT_EQ(ongoing.topics[0].partitions, (std::vector<int32_t>{0, 1}));
  // Adding a partition again changes nothing.
  EXPECT_EQ(add_partitions(p, "t", {1}), std::vector<int16_t>{0});
  EXPECT_EQ(describe("tx").transaction_start_time_ms, ongoing.transaction_start_time_ms);
  ASSERT_EQ(end_txn(p, true), 0);
  auto done = describe("tx");
  EXPECT_EQ(done.transaction_state, "CompleteCommit");
  EXPECT_EQ(done.producer_id, p.pid);
  EXPECT_EQ(done.producer_epoch, p.epoch);  // no KIP-890 bump at the end of a transaction
  EXPECT_TRUE(done.topics.empty());
  // The next transaction starts from CompleteCommit.
  EXPECT_EQ(add_partitions(p, "t", {0}), std::vector<int16_t>{0});
  EXPECT_EQ(state_of("tx"), "Ongoing");
}

TEST_F(TxnTest, ListTransactionsFiltersByStateAndProducerId) {
  create_topic("t", 1);
  Producer a = init_txn("a");  // stays Empty
  Producer b = init_txn("b");
  ASSERT_EQ(add_partitions(b, "t", {0}), std::vector<int16_t>{0});  // Ongoing
  Producer c = init_txn("c");
  ASSERT_EQ(add_partitions(c, "t", {0}), std::vector<int16_t>{0});
  ASSERT_EQ(end_txn(c, true), 0);  // CompleteCommit
  auto all = list_response({}, {});
  ASSERT_EQ(all.transaction_states.size(), 3u);
  EXPECT_EQ(all.transaction_states[0].transaction_state, "Empty");
  EXPECT_EQ(all.transaction_states[1].transaction_state, "Ongoing");
  EXPECT_EQ(all.transaction_states[2].transaction_state, "CompleteCommit");
  EXPECT_EQ(all.transaction_states[1].producer_id, b.pid);
  EXPECT_EQ(listed({"Ongoing"}), std::vector<std::string>{"b"});
  EXPECT_EQ(listed({"Empty", "CompleteCommit"}), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(listed({}, {b.pid, c.pid}), (std::vector<std::string>{"b", "c"}));
  EXPECT_TRUE(listed({"Ongoing"}, {a.pid}).empty());
  EXPECT_TRUE(listed({"CompleteAbort"}).empty());
  auto unknown = list_response({"Bogus", "Ongoing"}, {});
  EXPECT_EQ(unknown.error_code, 0);
  EXPECT_EQ(unknown.unknown_state_filters, std::vector<std::string>{"Bogus"});
  ASSERT_EQ(unknown.transaction_states.size(), 1u);
  EXPECT_EQ(unknown.transaction_states[0].transactional_id, "b");
  EXPECT_TRUE(listed({"Bogus"}).empty());  // only unknown names: nothing matches
}

TEST_F(TxnTest, ACommitWritesOneMarkerAfterTheRecordsOfEachPartition) {
  create_topic("t", 2);
  Producer p = init_txn("tx");
  ASSERT_EQ(add_partitions(p, "t", {0, 1}), (std::vector<int16_t>{0, 0}));
  ASSERT_EQ(produce(p, "t", 0, 0, {"a", "b"}), 0);
  ASSERT_EQ(produce(p, "t", 1, 0, {"c"}), 0);
  // The open transaction holds the last stable offset at its first record.
  EXPECT_EQ(latest_offset("t", 0, false), 2);
  EXPECT_EQ(latest_offset("t", 0, true), 0);
  ASSERT_EQ(end_txn(p, true), 0);
  // The marker takes the offset after the records, as in Kafka; the LSO moves to the end.
  for (int32_t part : {0, 1}) {
    std::vector<BatchInfo> log = batches("t", part);
    ASSERT_EQ(log.size(), 2u) << "partition " << part;
    const int64_t records_end = part == 0 ? 2 : 1;
    EXPECT_EQ(log[0].base_offset, 0);
    EXPECT_EQ(log[0].last_offset, records_end - 1);
    EXPECT_TRUE(log[0].transactional);
    EXPECT_FALSE(log[0].control);
    EXPECT_EQ(log[1].base_offset, records_end);
    EXPECT_EQ(log[1].last_offset, records_end);
    EXPECT_TRUE(log[1].control);
    EXPECT_TRUE(log[1].transactional);
    EXPECT_EQ(log[1].marker, ControlType::COMMIT);
    EXPECT_EQ(log[1].producer_id, p.pid);
    EXPECT_EQ(log[1].producer_epoch, p.epoch);
    EXPECT_EQ(latest_offset("t", part, false), records_end + 1);
    EXPECT_EQ(latest_offset("t", part, true), records_end + 1);
  }
  // The producer goes on in the same epoch; its next records follow the marker.
  ASSERT_EQ(add_partitions(p, "t", {0}), std::vector<int16_t>{0});
  EXPECT_EQ(produce(p, "t", 0, 2, {"d"}), 3);
}

TEST_F(TxnTest, AnAbortWritesAbortMarkersThatReadCommittedHonours) {
  create_topic("t", 1);
  Producer p = init_txn("tx");
  ASSERT_EQ(add_partitions(p, "t", {0}), std::vector<int16_t>{0});
  ASSERT_EQ(produce(p, "t", 0, 0, {"a", "b"}), 0);
  ASSERT_EQ(end_txn(p, false), 0);
  EXPECT_EQ(state_of("tx"), "CompleteAbort");
  std::vector<BatchInfo> log = batches("t", 0);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[1].base_offset, 2);
  EXPECT_EQ(log[1].marker, ControlType::ABORT);
  // A read-committed consumer is told which records to drop.
  FetchResponse::PartitionData pd = fetch("t", 0, 1);
  EXPECT_EQ(pd.last_stable_offset, 3);
  ASSERT_TRUE(pd.aborted_transactions.has_value());
  ASSERT_EQ(pd.aborted_transactions->size(), 1u);
  EXPECT_EQ(pd.aborted_transactions->at(0).producer_id, p.pid);
  EXPECT_EQ(pd.aborted_transactions->at(0).first_offset, 0);
}

TEST_F(TxnTest, EndTxnAnswersRetriesAndRefusesInvalidTransitions) {
  create_topic("t", 1);
  Producer p = init_txn("tx");
  EXPECT_EQ(end_txn(p, true), err(ErrorCode::INVALID_TXN_STATE));  // Empty: nothing to end
  EXPECT_EQ(end_txn(p, false), err(ErrorCode::INVALID_TXN_STATE));
  ASSERT_EQ(add_partitions(p, "t", {0}), std::vector<int16_t>{0});
  EXPECT_EQ(end_txn(p.with_epoch(p.epoch + 1), true), err(ErrorCode::PRODUCER_FENCED));
  // PRODUCER_FENCED is new in v2: v0 and v1 get INVALID_PRODUCER_EPOCH, as Kafka answers.
  EXPECT_EQ(end_txn(p.with_epoch(p.epoch + 1), true, 1), err(ErrorCode::INVALID_PRODUCER_EPOCH));
  EXPECT_EQ(end_txn(Producer{"nobody", p.pid, p.epoch}, true),
            err(ErrorCode::INVALID_PRODUCER_ID_MAPPING));
  ASSERT_EQ(end_txn(p, true), 0);
  // A retried commit (its answer lost) succeeds again and writes nothing more.
  EXPECT_EQ(end_txn(p, true), 0);
  EXPECT_EQ(end_txn(p, false), err(ErrorCode::INVALID_TXN_STATE));
  EXPECT_EQ(batches("t", 0).size(), 1u);  // the one COMMIT marker
  EXPECT_EQ(state_of("tx"), "CompleteCommit");
  // The same after an abort.
  ASSERT_EQ(add_partitions(p, "t", {0}), std::vector<int16_t>{0});
  ASSERT_EQ(end_txn(p, false), 0);
  EXPECT_EQ(end_txn(p, false), 0);
  EXPECT_EQ(end_txn(p, true), err(ErrorCode::INVALID_TXN_STATE));
  EXPECT_EQ(state_of("tx"), "CompleteAbort");
}

TEST_F(TxnTest, ANewInstanceAbortsTheOpenTransactionOfTheOldOne) {
  create_topic("t", 1);
  Producer old = init_txn("tx");
  ASSERT_EQ(add_partitions(old, "t", {0}), std::vector<int16_t>{0});
  ASSERT_EQ(produce(old, "t", 0, 0, {"a"}), 0);
  // Kafka fences with epoch + 1 (the abort marker's) and hands out epoch + 2.
  Producer next = init_txn("tx");
  EXPECT_EQ(next.pid, old.pid);
  EXPECT_EQ(next.epoch, old.epoch + 2);
  EXPECT_EQ(state_of("tx"), "Empty");
  std::vector<BatchInfo> log = batches("t", 0);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[1].marker, ControlType::ABORT);
  EXPECT_EQ(log[1].producer_epoch, old.epoch + 1);
  // The old instance can neither write nor end a transaction.
  EXPECT_EQ(produce(old, "t", 0, 1, {"late"}), -err(ErrorCode::INVALID_PRODUCER_EPOCH));
  EXPECT_EQ(end_txn(old, true), err(ErrorCode::PRODUCER_FENCED));
  EXPECT_EQ(add_partitions(next, "t", {0}), std::vector<int16_t>{0});
  EXPECT_EQ(produce(next, "t", 0, 0, {"b"}), 2);
}

TEST_F(TxnTest, TheSweepAbortsATimedOutTransactionAndFencesItsProducer) {
  create_topic("t", 1);
  Producer p = init_txn("tx", 100);
  ASSERT_EQ(add_partitions(p, "t", {0}), std::vector<int16_t>{0});
  ASSERT_EQ(produce(p, "t", 0, 0, {"a"}), 0);
  // The sweep runs every 50 ms (the fixture's setting).
  ASSERT_TRUE(eventually([&] { return state_of("tx") == "CompleteAbort"; }));
  auto d = describe("tx");
  EXPECT_EQ(d.producer_id, p.pid);
  EXPECT_EQ(d.producer_epoch, p.epoch + 1);
  std::vector<BatchInfo> log = batches("t", 0);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[1].marker, ControlType::ABORT);
  EXPECT_EQ(log[1].producer_epoch, p.epoch + 1);
  EXPECT_EQ(latest_offset("t", 0, true), 2);
  // The producer is fenced everywhere.
  EXPECT_EQ(produce(p, "t", 0, 1, {"late"}), -err(ErrorCode::INVALID_PRODUCER_EPOCH));
  EXPECT_EQ(add_partitions(p, "t", {0}), std::vector<int16_t>{err(ErrorCode::PRODUCER_FENCED)});
  EXPECT_EQ(end_txn(p, true), err(ErrorCode::PRODUCER_FENCED));
  // A new instance starts from the fenced epoch.
  EXPECT_EQ(init_txn("tx").epoch, p.epoch + 2);
}

TEST_F(TxnTest, OpenAndCompletedTransactionsSurviveARestart) {
  restart();
  create_topic("t", 1);
  Producer done = init_txn("done");
  ASSERT_EQ(add_partitions(done, "t", {0}), std::vector<int16_t>{0});
  ASSERT_EQ(end_txn(done, true), 0);
  Producer open = init_txn("open");
  ASSERT_EQ(add_partitions(open, "t", {0}), std::vector<int16_t>{0});
  ASSERT_EQ(produce(open, "t", 0, 0, {"a"}), 1);  // after done's marker
  const auto before = describe("open");
  restart();
  auto d = describe("done");
  EXPECT_EQ(d.transaction_state, "CompleteCommit");
  EXPECT_EQ(d.producer_id, done.pid);
  EXPECT_EQ(d.producer_epoch, done.epoch);
  auto o = describe("open");
  EXPECT_EQ(o.transaction_state, "Ongoing");
  EXPECT_EQ(o.producer_id, open.pid);
  EXPECT_EQ(o.producer_epoch, open.epoch);
  EXPECT_EQ(o.transaction_timeout_ms, kLongTimeoutMs);
  EXPECT_EQ(o.transaction_start_time_ms, before.transaction_start_time_ms);
  EXPECT_EQ(o.topics, before.topics);
  // The reloaded transaction is still the producer's to finish.
  ASSERT_EQ(end_txn(open, true), 0);
  std::vector<BatchInfo> log = batches("t", 0);
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[2].base_offset, 2);
  EXPECT_EQ(log[2].marker, ControlType::COMMIT);
  EXPECT_EQ(log[2].producer_id, open.pid);
}

TEST_F(TxnTest, ProducerIdsHandedOutBeforeARestartAreNotHandedOutAgain) {
  restart();
  std::vector<int64_t> before{init(std::nullopt).producer_id, init_txn("tx").pid,
                              init(std::nullopt).producer_id};
  restart();
  // The rest of the block reserved before the restart is skipped, as in Kafka.
  const int64_t after = init(std::nullopt).producer_id;
  EXPECT_EQ(after, txn::ProducerIdManager::kBlockSize);
  for (int64_t id : before) EXPECT_LT(id, after);
  Producer tx = init_txn("tx");
  EXPECT_EQ(tx.pid, before[1]);  // a transactional id keeps its producer id
  EXPECT_EQ(tx.epoch, 1);
  EXPECT_GT(init(std::nullopt).producer_id, after);
}

}  // namespace
}  // namespace mirra::server::txn_testing
