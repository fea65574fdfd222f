// MirrorRunner's data path against a fake source cluster and a fake destination
// (fake_source.h, fake_sink.h): pipelining, stale answers, out-of-range restarts, lost source
// tails (shorter, or rewritten under a new leader epoch), leaders moving, corrupt batches, FAILED
// and its backoff, pause and failover with work in flight. Everything runs on one io_context driven
// by the test; the tests wait for conditions, never for fixed times, except where they check that
// something does NOT happen within a window (`idle_for`).
#include "mirror/mirror_runner.h"

#include <gtest/gtest.h>

#include <functional>

#include "fake_sink.h"
#include "fake_source.h"

namespace mirra::mirror {
namespace {

using namespace std::chrono_literals;
using test::FakeSink;
using test::FakeSourceCluster;

const client::TopicPartition kP0{"orders", 0};
const client::TopicPartition kP1{"orders", 1};

class MirrorRunnerTest : public ::testing::Test {
 protected:
  MirrorRunnerTest() {
    broker_.failed_retry_initial_backoff_ms = 40;
    broker_.failed_retry_max_backoff_ms = 1000;
    broker_.failed_retry_max_attempts = 5;
    broker_.metadata_refresh_interval_ms = 3600 * 1000;
  }

  ~MirrorRunnerTest() override {
    if (runner_ != nullptr) stop_runner();
  }

  // Both sides hold `orders` with `partitions` partitions, of mirror "m".
  void add_topic(int32_t partitions) {
    source_.add_topic("orders", topic_id_, partitions);
    sink_.add_topic("m", "orders", topic_id_, partitions);
  }

  // `batches` batches of 5 records each.
  void produce(const client::TopicPartition& tp, int batches, int32_t leader_epoch = 0) {
    for (int i = 0; i < batches; ++i) source_.produce(tp, 5, leader_epoch);
  }

  // An unclean restart of the source: 50 offsets of epoch 0 (10 batches) lose the last 20, the
  // leader epoch moves to 1, and 4 new batches end the log at 50 again.
  void lose_tail_and_rewrite_it(const client::TopicPartition& tp) {
    ASSERT_EQ(source_.log_end(tp), 50);
    source_.lose_tail(tp, 30);
    source_.set_leader_epoch(tp, 1);
    produce(tp, 4, /*leader_epoch=*/1);
    ASSERT_EQ(source_.log_end(tp), 50);
  }

  // mirror.fetch.max.bytes of 1: one batch per answer, so that copying takes many pipelined
  // rounds.
  void start(MirrorThrottle* throttle = nullptr) {
    MirrorRunnerContext ctx{io_.get_executor(), sink_,   broker_, 1, {},
                            [] { return 0.5; }, throttle};
    const MirrorConfigs configs = {{"bootstrap.servers", "source:9092"},
                                   {"mirror.fetch.max.wait.ms", "20"},
                                   {"mirror.fetch.max.bytes", "1"}};
    auto r = MirrorRunner::create(ctx, "m", configs, source_.source());
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    runner_ = std::move(r.value());
    runner_->start();
  }

  bool run_until(const std::function<bool()>& done, std::chrono::seconds limit = 30s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      io_.restart();
      io_.run_for(2ms);
    }
    return true;
  }

  // Runs the loops for a while, to see that something does not happen.
  void idle_for(std::chrono::milliseconds window) {
    const auto until = std::chrono::steady_clock::now() + window;
    run_until([&] { return std::chrono::steady_clock::now() >= until; });
  }

  // The destination holds exactly the source's batches, byte for byte (non-idempotent
  // batches: the producer-id rewrite leaves them as they are).
  bool identical(const client::TopicPartition& tp) {
    const auto log = sink_.log(tp);
    return log->log_start == source_.log_start(tp) && log->log_end == source_.log_end(tp) &&
           sink_.partition(tp).batches == source_.batches(tp);
  }

  size_t fetches_of(const client::TopicPartition& tp) const {
    size_t n = 0;
    for (const auto& f : source_.fetches()) {
      for (const auto& pos : f.positions) n += pos.tp == tp;
    }
    return n;
  }

  // The offsets the source was asked for the partition, in order.
  std::vector<int64_t> asked(const client::TopicPartition& tp) const {
    std::vector<int64_t> out;
    for (const auto& f : source_.fetches()) {
      for (const auto& pos : f.positions) {
        if (pos.tp == tp) out.push_back(pos.offset);
      }
    }
    return out;
  }

  void stop_runner() {
    runner_->stop();
    bool stopped = false;
    asio::co_spawn(
        io_,
        [&]() -> asio::awaitable<void> {
          co_await runner_->stopped();
          stopped = true;
        },
        asio::detached);
    ASSERT_TRUE(run_until([&] { return stopped; })) << "the runner's loops did not end";
    runner_.reset();
  }

  const PartitionMirrorStatus& status(const client::TopicPartition& tp) {
    return runner_->status().at(tp);
  }

  asio::io_context io_;
  FakeSourceCluster source_{io_.get_executor()};
  FakeSink sink_{io_.get_executor()};
  MirrorBrokerConfig broker_;
  Uuid topic_id_ = Uuid::random();
  std::shared_ptr<MirrorRunner> runner_;
};

TEST_F(MirrorRunnerTest, CopiesEveryBatchAtItsOffsetsAndGoesMirroring) {
  add_topic(2);
  produce(kP0, 10);
  produce(kP1, 7);
  start();
  ASSERT_TRUE(run_until([&] { return identical(kP0) && identical(kP1); }));
  ASSERT_TRUE(run_until([&] { return sink_.state_of(kP0) == MirrorState::mirroring; }));
  // Data written while mirroring arrives too (the long poll ends when it does).
  produce(kP0, 3, /*leader_epoch=*/2);
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  EXPECT_EQ(sink_.log(kP0)->leader_epoch, 2);  // raised to the highest mirrored epoch
  EXPECT_EQ(status(kP0).source_high_watermark, 65);
}

// Answer 1 (offsets 0-4) is being appended while request 2 (asked at 5) is out. Answer 1's
// append fails, then answer 2 arrives: it must be dropped (appending it would leave a hole at
// 0-4 for good), and the requests after it must ask at the log end, 0, not where answer 2 ends
// (the livelock: stale answers asked again and again at stale offsets).
TEST_F(MirrorRunnerTest, TwoAnswersInFlightAndTheFirstFails) {
  add_topic(1);
  produce(kP0, 10);
  sink_.hold_appends();
  source_.hold_fetches_from(1);
  start();
  ASSERT_TRUE(run_until([&] { return sink_.held_appends() == 1 && source_.held_fetches() == 1; }));
  ASSERT_EQ(asked(kP0), (std::vector<int64_t>{0, 5}));  // pipelined: 5 before 0-4 landed
  sink_.fail_next_append(kP0, Status(ErrorCode::REQUEST_TIMED_OUT, "injected"));
  sink_.release_appends();
  ASSERT_TRUE(run_until([&] { return status(kP0).pipeline.generation() > 0; }));
  source_.release_fetches();
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  ASSERT_FALSE(sink_.appends().empty());
  EXPECT_EQ(sink_.appends().front().second, 0);  // nothing landed above the hole
  const std::vector<int64_t> offsets = asked(kP0);
  EXPECT_EQ(offsets[2], 0) << "asked again at the log end after the failed append";
}

// A request fails as a whole while an earlier answer waits to be appended. That answer still
// lands; the next request asks at the log end, and the partition catches up in a bounded
// number of fetches (the livelock of stale answers re-asked at a stale offset).
TEST_F(MirrorRunnerTest, AStaleAnswerIsDroppedAndThePartitionAskedAtItsLogEnd) {
  add_topic(1);
  produce(kP0, 10);
  source_.hold_fetches();
  sink_.hold_appends();
  start();
  ASSERT_TRUE(run_until([&] { return source_.held_fetches() == 1; }));
  source_.fail_next_fetch(Status(ErrorCode::NETWORK_EXCEPTION, "injected"));
  source_.release_fetches();
  ASSERT_TRUE(run_until([&] { return sink_.held_appends() == 1 && fetches_of(kP0) == 2; }));
  sink_.release_appends();
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  const std::vector<int64_t> offsets = asked(kP0);
  ASSERT_GE(offsets.size(), 3u);
  EXPECT_EQ(offsets[1], 5);  // the failed request
  EXPECT_EQ(offsets[2], 5);  // the log end once answer 1 landed
  EXPECT_LE(offsets.size(), 25u) << "10 batches took " << offsets.size() << " fetches";
  EXPECT_EQ(sink_.state_of(kP0), MirrorState::mirroring);
}

TEST_F(MirrorRunnerTest, OutOfRangeRestartsAtTheSourceLogStart) {
  add_topic(1);
  produce(kP0, 10);
  source_.delete_records(kP0, 25);
  start();
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  EXPECT_EQ(sink_.log(kP0)->log_start, 25);
  EXPECT_EQ(asked(kP0).front(), 0);
  EXPECT_EQ(sink_.appends().front().second, 25);
}

// An unclean restart of the source lost its tail: the destination drops what the source no
// longer has, then mirrors what the source writes anew at those offsets.
TEST_F(MirrorRunnerTest, ASourceLogEndBelowTheDestinationsTruncatesTheDestination) {
  add_topic(1);
  produce(kP0, 10);
  start();
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  source_.lose_tail(kP0, 30);
  ASSERT_TRUE(run_until([&] { return sink_.log(kP0)->log_end == 30; }));
  produce(kP0, 2, /*leader_epoch=*/1);
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  EXPECT_EQ(sink_.log(kP0)->log_end, 40);
  EXPECT_EQ(sink_.state_of(kP0), MirrorState::mirroring);
}

// The source lost its tail and wrote it anew in one larger batch that straddles our log end:
// the batch the source answers starts below our end, so what we hold from its base offset on
// is no longer the source's and is replaced.
TEST_F(MirrorRunnerTest, ASourceBatchStartingBelowOurLogEndReplacesOurTail) {
  add_topic(1);
  produce(kP0, 10);
  start();
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  source_.lose_tail(kP0, 30);
  source_.produce(kP0, 25, /*leader_epoch=*/1);  // 30..54: our end, 50, is inside it
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  EXPECT_EQ(sink_.log(kP0)->log_end, 55);
  EXPECT_EQ(sink_.partition(kP0).batches.count(30), 1u);
}

// Issue 16 point 7 (docs/mirroring-design.md §2.4): the source lost its tail in an unclean
// restart, which moved its leader epoch, and wrote as many records as it lost: its log ends
// where ours does, so only the epochs tell. The fetch in flight is fenced, our log compared
// with the source's (OffsetForLeaderEpoch) and cut where epoch 0 now ends, and the new
// batches are copied.
TEST_F(MirrorRunnerTest, ASourceThatRewroteAsManyRecordsAsItLostIsCutWhereTheyDiffer) {
  add_topic(1);
  produce(kP0, 10);
  start();
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  lose_tail_and_rewrite_it(kP0);
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  EXPECT_EQ(sink_.log(kP0)->log_end, 50);
  const std::vector<int64_t> offsets = asked(kP0);
  EXPECT_NE(std::find(offsets.begin(), offsets.end(), 30), offsets.end());
  EXPECT_EQ(sink_.state_of(kP0), MirrorState::mirroring);
}

// The same divergence while the mirror was not running: compared once when fetching starts.
TEST_F(MirrorRunnerTest, ADivergenceWhileTheMirrorWasDownIsFoundAtStart) {
  add_topic(1);
  produce(kP0, 10);
  start();
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  stop_runner();
  lose_tail_and_rewrite_it(kP0);
  start();
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
}

// A leader epoch that moves with nothing lost (a leader change) costs one comparison and cuts
// nothing: fetching goes on at our log end.
TEST_F(MirrorRunnerTest, AMovedEpochWithTheSameLogCutsNothing) {
  add_topic(1);
  produce(kP0, 10);
  start();
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  const size_t queries = source_.epoch_queries();
  const size_t before = asked(kP0).size();
  source_.set_leader_epoch(kP0, 1);
  ASSERT_TRUE(run_until([&] { return source_.epoch_queries() > queries; }));
  produce(kP0, 1, /*leader_epoch=*/1);
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  const std::vector<int64_t> offsets = asked(kP0);
  for (size_t i = before; i < offsets.size(); ++i) EXPECT_GE(offsets[i], 50);
  EXPECT_EQ(sink_.log(kP0)->log_end, 55);
  EXPECT_EQ(source_.epoch_queries(), queries + 1);
}

// A source without OffsetForLeaderEpoch: mirrored as before (never FAILED for it).
TEST_F(MirrorRunnerTest, ASourceWithoutOffsetForLeaderEpochIsMirroredAsBefore) {
  add_topic(1);
  source_.refuse_offset_for_leader_epoch();
  produce(kP0, 4);
  start();
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  source_.set_leader_epoch(kP0, 1);
  produce(kP0, 2, /*leader_epoch=*/1);
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  EXPECT_EQ(sink_.state_of(kP0), MirrorState::mirroring);
}

TEST_F(MirrorRunnerTest, ALeaderMovingBetweenSourceBrokersIsFollowed) {
  add_topic(1);
  produce(kP0, 4);
  start();
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  source_.set_leader(kP0, 2);
  produce(kP0, 4);
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  const auto& last = source_.fetches().back();
  EXPECT_EQ(last.broker, 2);
  EXPECT_NE(sink_.state_of(kP0), MirrorState::failed);  // a moved leader is transient
}

TEST_F(MirrorRunnerTest, ACorruptBatchFailsOnlyItsPartitionForGood) {
  add_topic(2);
  produce(kP0, 4);
  produce(kP1, 4);
  source_.corrupt(kP0, 10);
  start();
  ASSERT_TRUE(run_until([&] { return sink_.state_of(kP0) == MirrorState::failed; }));
  ASSERT_TRUE(run_until([&] { return identical(kP1); }));
  EXPECT_EQ(sink_.log(kP0)->log_end, 10);  // the batches before the corrupt one
  EXPECT_EQ(sink_.state_value(kP0)->last_error_code, error_number(ErrorCode::CORRUPT_MESSAGE));
  // Not retried: it waits for the operator, while the other partition goes on.
  const size_t asked_p0 = fetches_of(kP0);
  produce(kP1, 2);
  ASSERT_TRUE(run_until([&] { return identical(kP1); }));
  idle_for(3 * std::chrono::milliseconds(broker_.failed_retry_initial_backoff_ms));
  EXPECT_EQ(fetches_of(kP0), asked_p0);
}

TEST_F(MirrorRunnerTest, TieredStorageOnTheSourceWaitsForTheOperator) {
  add_topic(1);
  produce(kP0, 2);
  source_.fail_partition(kP0, Status(ErrorCode::OFFSET_MOVED_TO_TIERED_STORAGE, "tiered"));
  start();
  ASSERT_TRUE(run_until([&] { return sink_.state_of(kP0) == MirrorState::failed; }));
  EXPECT_EQ(sink_.state_value(kP0)->last_error_code,
            error_number(ErrorCode::OFFSET_MOVED_TO_TIERED_STORAGE));
  const size_t asked_once = fetches_of(kP0);
  idle_for(3 * std::chrono::milliseconds(broker_.failed_retry_initial_backoff_ms));
  EXPECT_EQ(fetches_of(kP0), asked_once);
  EXPECT_EQ(sink_.log(kP0)->log_end, 0);
}

// FAILED twice, retried after 40 ms then 80 ms (the jitter is fixed at its middle), then
// MIRRORING with the retries reset.
TEST_F(MirrorRunnerTest, FailedIsRetriedWithBackoffAndRecovers) {
  add_topic(1);
  produce(kP0, 3);
  source_.fail_partition(kP0, Status(ErrorCode::UNKNOWN_SERVER_ERROR, "boom"), 2);
  start();
  ASSERT_TRUE(run_until([&] { return sink_.state_of(kP0) == MirrorState::failed; }));
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  ASSERT_TRUE(run_until([&] { return sink_.state_of(kP0) == MirrorState::mirroring; }));
  EXPECT_EQ(sink_.state_value(kP0)->retries, 0);
  EXPECT_EQ(status(kP0).last_error.code(), ErrorCode::NONE);
  std::vector<std::chrono::steady_clock::time_point> times;
  for (const auto& f : source_.fetches()) times.push_back(f.at);
  ASSERT_GE(times.size(), 3u);
  EXPECT_GE(times[1] - times[0], 40ms);
  EXPECT_GE(times[2] - times[1], 80ms);
}

TEST_F(MirrorRunnerTest, PauseWithAnAnswerInFlightThenResume) {
  add_topic(1);
  produce(kP0, 4);
  source_.hold_fetches();
  start();
  ASSERT_TRUE(run_until([&] { return source_.held_fetches() == 1; }));
  sink_.set_state(kP0, MirrorState::paused);
  source_.release_fetches();
  ASSERT_TRUE(run_until([&] {
    return !status(kP0).pipeline.in_request() && status(kP0).pipeline.answers_pending() == 0;
  }));
  EXPECT_TRUE(sink_.appends().empty()) << "an answer landed on a PAUSED partition";
  const size_t asked_while_paused = fetches_of(kP0);
  runner_->wake();
  idle_for(100ms);
  EXPECT_EQ(fetches_of(kP0), asked_while_paused);
  sink_.set_state(kP0, MirrorState::mirroring);  // resume, as ResumeMirrorTopics does
  runner_->reset(kP0);
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  EXPECT_EQ(sink_.appends().front().second, 0);
}

// The failover's first step (STOPPING) arrives while an append is in flight: that append
// finishes, and nothing is appended or fetched after it, the answer already back included.
TEST_F(MirrorRunnerTest, FailoverWhileAnAppendIsInFlight) {
  add_topic(1);
  produce(kP0, 10);
  sink_.hold_appends();
  start();
  ASSERT_TRUE(run_until([&] { return sink_.held_appends() == 1 && fetches_of(kP0) >= 2; }));
  sink_.set_state(kP0, MirrorState::stopping);
  sink_.release_appends();
  ASSERT_TRUE(run_until([&] { return status(kP0).pipeline.answers_pending() == 0; }));
  const size_t fetched = fetches_of(kP0);
  runner_->wake();
  idle_for(100ms);
  EXPECT_EQ(sink_.appends().size(), 1u);
  EXPECT_EQ(sink_.log(kP0)->log_end, 5);
  EXPECT_EQ(fetches_of(kP0), fetched);
  EXPECT_EQ(sink_.state_of(kP0), MirrorState::stopping);  // not overwritten by the runner
}

// The failover's STOPPING lands while the runner awaits the leader-epoch raise that comes
// before an append: the append must not follow (the failover truncates to the LSO and records
// the LMO from the log it sees; nothing of the mirror may land after that).
TEST_F(MirrorRunnerTest, FailoverDuringTheLeaderEpochRaiseStopsTheAppend) {
  add_topic(1);
  produce(kP0, 2, /*leader_epoch=*/3);
  sink_.on_raise_leader_epoch = [&] { sink_.set_state(kP0, MirrorState::stopping); };
  start();
  ASSERT_TRUE(run_until([&] { return sink_.log(kP0)->leader_epoch == 3; }));
  ASSERT_TRUE(run_until([&] { return status(kP0).pipeline.answers_pending() == 0; }));
  runner_->wake();
  idle_for(100ms);
  EXPECT_TRUE(sink_.appends().empty()) << "appended after the failover began";
  EXPECT_EQ(sink_.state_of(kP0), MirrorState::stopping);
}

// The topics sync fails a topic whose source topic was deleted (docs/mirroring-design.md §8):
// FAILED for good, durably, never fetched or retried again; what was mirrored stays.
TEST_F(MirrorRunnerTest, ATopicFailedForGoodIsNeverFetchedAgain) {
  add_topic(2);
  produce(kP0, 2);
  start();
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  std::optional<Status> done;
  asio::co_spawn(
      io_,
      [&]() -> asio::awaitable<void> {
        done = co_await runner_->fail_for_good(
            "orders",
            Status(ErrorCode::UNKNOWN_TOPIC_ID, "topic orders was deleted on the source"));
      },
      asio::detached);
  ASSERT_TRUE(run_until([&] { return done.has_value(); }));
  ASSERT_TRUE(done->ok()) << done->to_string();
  for (const auto& tp : {kP0, kP1}) {
    EXPECT_EQ(sink_.state_of(tp), MirrorState::failed);
    EXPECT_EQ(sink_.state_value(tp)->last_error, "topic orders was deleted on the source");
    EXPECT_EQ(status(tp).last_error.code(), ErrorCode::UNKNOWN_TOPIC_ID);
  }
  const size_t fetched = fetches_of(kP0) + fetches_of(kP1);
  produce(kP0, 1);
  runner_->wake();
  idle_for(300ms);  // several backoffs' worth: no retry comes
  EXPECT_EQ(fetches_of(kP0) + fetches_of(kP1), fetched);
  EXPECT_EQ(sink_.log(kP0)->log_end, 10);  // what was mirrored stays
  EXPECT_EQ(sink_.state_of(kP0), MirrorState::failed);
}

// A source topic recreated with another id is another topic: never fetched at our offsets,
// whatever the topics sync has said yet.
TEST_F(MirrorRunnerTest, ASourceTopicWithAnotherIdIsNotFetched) {
  add_topic(1);
  produce(kP0, 2);
  start();
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  // Led by another broker: the next fetch finds the leader moved and the fetcher's metadata
  // refreshed, with the new id (the fake source answers by name, as if by the old id).
  source_.delete_topic("orders");
  source_.add_topic("orders", Uuid::random(), 1, /*leader=*/2);
  produce(kP0, 5);
  runner_->wake();
  idle_for(300ms);
  EXPECT_EQ(sink_.log(kP0)->log_end, 10);
  for (const auto& f : source_.fetches()) EXPECT_NE(f.broker, 2) << "fetched the new topic";
}

// Answers with no records for a MIRRORING partition take a shortcut (handled_idle): it must
// still note the source's offsets and follow a log start moved with no new data, and the
// partition must stay MIRRORING and go on copying when data comes.
TEST_F(MirrorRunnerTest, AnIdlePartitionTracksTheSourceAndFollowsItsLogStart) {
  add_topic(2);
  produce(kP0, 2);
  produce(kP1, 2);
  start();
  ASSERT_TRUE(run_until([&] {
    return identical(kP0) && identical(kP1) && sink_.state_of(kP0) == MirrorState::mirroring &&
           sink_.state_of(kP1) == MirrorState::mirroring;
  }));
  const size_t before = fetches_of(kP1);
  ASSERT_TRUE(run_until([&] { return fetches_of(kP1) >= before + 3; }));  // idle rounds
  EXPECT_EQ(sink_.state_of(kP1), MirrorState::mirroring);
  EXPECT_EQ(status(kP1).source_high_watermark, 10);
  EXPECT_TRUE(status(kP1).last_error.ok());

  source_.delete_records(kP1, 5);
  ASSERT_TRUE(run_until([&] { return sink_.log(kP1)->log_start == 5; }));
  EXPECT_EQ(status(kP1).source_log_start, 5);
  EXPECT_EQ(sink_.state_of(kP1), MirrorState::mirroring);
  produce(kP1, 1);
  ASSERT_TRUE(run_until([&] { return identical(kP1); }));
  EXPECT_EQ(status(kP1).source_high_watermark, 15);
}

// Issue 15 point 7: partitions added on the source after the topic was added are not mirrored
// (docs/mirroring-design.md §8) and were invisible. The topic check notes them with the source's
// log end, for describe.
TEST_F(MirrorRunnerTest, PartitionsAddedOnTheSourceAreNotedWithTheirLogEnd) {
  add_topic(1);
  const client::TopicPartition p2{"orders", 2};
  source_.add_topic("orders", topic_id_, 3);  // two partitions more on the source only
  produce(kP1, 3);
  produce(kP0, 1);
  start();
  ASSERT_TRUE(run_until([&] { return runner_->source_only().size() == 2; }));
  EXPECT_EQ(runner_->source_only().at(kP1), 15);
  EXPECT_EQ(runner_->source_only().at(p2), 0);
  EXPECT_FALSE(runner_->source_only().count(kP0));
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));  // the mirrored one is copied
  EXPECT_FALSE(sink_.log(kP1).has_value());
}

}  // namespace
}  // namespace mirra::mirror

namespace mirra::mirror {
namespace {

// docs/quotas.md: over mirror.replication.throttled.rate only the listed partitions wait; the
// cap raised, they go on.
TEST_F(MirrorRunnerTest, OverTheCapOnlyTheListedPartitionsAreHeldBack) {
  add_topic(2);
  produce(kP0, 10);
  produce(kP1, 10);
  sink_.set_throttled_replicas("orders", "0:1,1:2");  // partition 1 is broker 2's, not ours
  int64_t limit = 1;                                  // byte per second: one answer overdraws it
  MirrorThrottle throttle([&] { return limit; });
  start(&throttle);
  ASSERT_TRUE(run_until([&] { return identical(kP1); }));
  idle_for(200ms);
  EXPECT_LE(fetches_of(kP0), 1u) << "partition 0 was fetched over the cap";
  EXPECT_FALSE(identical(kP0));
  EXPECT_GT(runner_->destination_throttled_ms(), 0);
  EXPECT_EQ(runner_->throttled_rate(), 1);
  limit = kUnthrottledRate;
  ASSERT_TRUE(run_until([&] { return identical(kP0); }));
  const int64_t held = runner_->destination_throttled_ms();
  idle_for(100ms);
  EXPECT_EQ(runner_->destination_throttled_ms(), held) << "still counted as held back";
}

TEST(MirrorThrottle, TokenBucketOfOneSecond) {
  int64_t limit = 1000;
  MirrorThrottle t([&] { return limit; });
  EXPECT_FALSE(t.exceeded(0));
  t.record(1000, 0);  // the first second's burst
  EXPECT_FALSE(t.exceeded(0));
  t.record(500, 0);
  EXPECT_EQ(t.wait_ms(0), 500);
  EXPECT_TRUE(t.exceeded(250));
  EXPECT_FALSE(t.exceeded(500));
  limit = kUnthrottledRate;
  t.record(1'000'000, 500);
  EXPECT_FALSE(t.exceeded(500));
  limit = 0;  // nothing at all
  EXPECT_TRUE(t.exceeded(600));
}

TEST(MirrorThrottle, ParsesRatesAndThrottledReplicas) {
  EXPECT_EQ(parse_throttled_rate(" 5000000 ").value(), 5000000);
  EXPECT_EQ(parse_throttled_rate("-1").status().code(), ErrorCode::INVALID_CONFIG);
  EXPECT_EQ(parse_throttled_rate("5MB").status().code(), ErrorCode::INVALID_CONFIG);
  auto all = parse_throttled_replicas(kMirrorThrottledReplicasKey, " * ", 1);
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->contains(7));
  auto some = parse_throttled_replicas(kMirrorThrottledReplicasKey, "0:1, 2:1,3:2", 1);
  ASSERT_TRUE(some.ok());
  EXPECT_EQ(some->partitions, (std::set<int32_t>{0, 2}));
  EXPECT_TRUE(parse_throttled_replicas(kMirrorThrottledReplicasKey, "", 1)->partitions.empty());
  for (const char* bad : {"0", "0:", ":1", "a:1", "0:1:2", "-1:1", "*,0:1"}) {
    EXPECT_EQ(parse_throttled_replicas(kMirrorThrottledReplicasKey, bad, 1).status().code(),
              ErrorCode::INVALID_CONFIG)
        << bad;
  }
}

}  // namespace
}  // namespace mirra::mirror
