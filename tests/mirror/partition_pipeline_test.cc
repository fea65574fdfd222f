// PartitionPipeline (src/mirror/partition_pipeline.h) on a fake clock: the time is whatever
// the test passes.
#include "mirror/partition_pipeline.h"

#include <gtest/gtest.h>

#include "mirror/mirror_failure.h"

namespace mirra::mirror {
namespace {

using std::chrono::milliseconds;

// The fake clock: a fixed origin and explicit steps.
const SteadyTime kT0 = SteadyTime{} + std::chrono::hours(1);

TEST(PartitionPipeline, IdleAsksAtTheLogEnd) {
  PartitionPipeline p;
  EXPECT_EQ(p.fetch_offset(42, kT0), 42);
}

TEST(PartitionPipeline, OneRequestAtATime) {
  PartitionPipeline p;
  p.request_sent();
  EXPECT_TRUE(p.in_request());
  EXPECT_EQ(p.fetch_offset(0, kT0), std::nullopt);
}

TEST(PartitionPipeline, NextRequestAsksWhereThePendingAnswerEnds) {
  PartitionPipeline p;
  const uint64_t g = p.request_sent();
  p.answer_received(g, 10);  // batches 0..9, not appended yet
  EXPECT_EQ(p.answers_pending(), 1);
  EXPECT_EQ(p.fetch_offset(0, kT0), 10);  // not the log end (0)
  const uint64_t g2 = p.request_sent();
  p.answer_received(g2, 20);
  EXPECT_EQ(p.fetch_offset(0, kT0), 20);
  p.answer_handled(true);
  p.answer_handled(true);
  EXPECT_EQ(p.answers_pending(), 0);
  EXPECT_EQ(p.fetch_offset(20, kT0), 20);  // the log end again
}

TEST(PartitionPipeline, AnErrorAnswerMakesTheNextRequestWait) {
  PartitionPipeline p;
  const uint64_t g = p.request_sent();
  p.answer_received(g, std::nullopt);
  EXPECT_EQ(p.fetch_offset(0, kT0), std::nullopt);  // waits for it to be handled
  p.answer_handled(false);
  EXPECT_EQ(p.fetch_offset(0, kT0), 0);
}

// The livelock the generation prevents: after a break, an answer to a request sent before it
// must not set the next offset, or the partition would be asked at a stale offset forever.
TEST(PartitionPipeline, AnswersFromBeforeABreakNeverSetTheNextOffset) {
  PartitionPipeline p;
  const uint64_t first = p.request_sent();
  p.answer_received(first, 10);              // pending: asked at 0
  const uint64_t second = p.request_sent();  // asked at 10, in flight
  p.answer_handled(false);                   // the first did not land: break
  EXPECT_GT(p.generation(), first);
  p.answer_received(second, 20);                    // stale: must not make 20 the next offset
  EXPECT_EQ(p.fetch_offset(0, kT0), std::nullopt);  // waits for the stale answer
  p.answer_handled(false);                          // dropped
  EXPECT_EQ(p.fetch_offset(0, kT0), 0);             // asked at the log end, not at 20
}

TEST(PartitionPipeline, AFailedRequestBreaksThePipeline) {
  PartitionPipeline p;
  const uint64_t first = p.request_sent();
  p.answer_received(first, 10);
  p.request_sent();
  p.request_failed();
  EXPECT_FALSE(p.in_request());
  EXPECT_EQ(p.fetch_offset(0, kT0), std::nullopt);  // the pending answer first
  p.answer_handled(true);
  EXPECT_EQ(p.fetch_offset(10, kT0), 10);
}

TEST(PartitionPipeline, TransientFailuresBackOffAndDouble) {
  PartitionPipeline p;
  p.transient_failure(kT0);
  EXPECT_EQ(p.retries(), 1);
  EXPECT_EQ(p.not_before(), kT0 + transient_backoff(1));
  EXPECT_EQ(p.fetch_offset(0, kT0 + transient_backoff(1) - milliseconds(1)), std::nullopt);
  EXPECT_EQ(p.fetch_offset(0, kT0 + transient_backoff(1)), 0);
  p.transient_failure(kT0);
  EXPECT_EQ(p.not_before(), kT0 + milliseconds(200));
  p.succeeded();
  EXPECT_EQ(p.retries(), 0);
  EXPECT_EQ(p.fetch_offset(0, kT0), 0);
}

TEST(PartitionPipeline, AFailedRetryWaitsItsBackoffWithJitter) {
  MirrorBrokerConfig config;
  config.failed_retry_initial_backoff_ms = 1000;
  config.failed_retry_max_backoff_ms = 5000;
  PartitionPipeline p;
  p.transient_failure(kT0);
  // The third FAILED attempt: 1000 * 2^2 = 4000 ms, times 0.8 .. 1.2 by the jitter.
  const auto low = failed_retry_backoff(config, 3, 0.0);
  const auto high = failed_retry_backoff(config, 3, 1.0);
  EXPECT_EQ(low, milliseconds(3200));
  EXPECT_EQ(high, milliseconds(4800));
  p.backoff_until(kT0 + low);
  EXPECT_EQ(p.retries(), 0);  // the durable count takes over
  EXPECT_EQ(p.fetch_offset(0, kT0 + low - milliseconds(1)), std::nullopt);
  EXPECT_EQ(p.fetch_offset(0, kT0 + low), 0);
  // Capped at the maximum before the jitter.
  EXPECT_EQ(failed_retry_backoff(config, 10, 0.5), milliseconds(5000));
}

}  // namespace
}  // namespace mirra::mirror
