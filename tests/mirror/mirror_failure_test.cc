// How mirror partition errors are classified and backed off (mirror/mirror_failure.h).
#include "mirror/mirror_failure.h"

#include <gtest/gtest.h>

namespace mirra::mirror {
namespace {

using std::chrono::milliseconds;

TEST(MirrorFailure, LeaderMovesAndLostConnectionsAreTransient) {
  for (ErrorCode c : {ErrorCode::NOT_LEADER_OR_FOLLOWER, ErrorCode::FENCED_LEADER_EPOCH,
                      ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, ErrorCode::NETWORK_EXCEPTION,
                      ErrorCode::LEADER_NOT_AVAILABLE, ErrorCode::REQUEST_TIMED_OUT,
                      ErrorCode::UNKNOWN_TOPIC_ID}) {
    EXPECT_EQ(classify_failure(c), FailureKind::transient) << error_name(c);
    EXPECT_FALSE(permanent_cause(c) && c != ErrorCode::UNKNOWN_TOPIC_ID) << error_name(c);
  }
}

TEST(MirrorFailure, WhatNoRetryFixesWaitsForTheOperator) {
  for (ErrorCode c : {ErrorCode::OFFSET_MOVED_TO_TIERED_STORAGE, ErrorCode::CORRUPT_MESSAGE,
                      ErrorCode::INCONSISTENT_TOPIC_ID, ErrorCode::INCONSISTENT_CLUSTER_ID}) {
    EXPECT_EQ(classify_failure(c), FailureKind::permanent) << error_name(c);
    EXPECT_TRUE(permanent_cause(c)) << error_name(c);
  }
  // A deleted source topic is found by the topic check, which records UNKNOWN_TOPIC_ID.
  EXPECT_TRUE(permanent_cause(ErrorCode::UNKNOWN_TOPIC_ID));
}

TEST(MirrorFailure, OtherErrorsFailAndAreRetried) {
  const MirrorBrokerConfig config;
  for (ErrorCode c : {ErrorCode::KAFKA_STORAGE_ERROR, ErrorCode::TOPIC_AUTHORIZATION_FAILED,
                      ErrorCode::UNKNOWN_SERVER_ERROR}) {
    EXPECT_EQ(classify_failure(c), FailureKind::failed) << error_name(c);
    EXPECT_TRUE(retried_automatically(config, c, 1));
    EXPECT_TRUE(retried_automatically(config, c, config.failed_retry_max_attempts - 1));
    EXPECT_FALSE(retried_automatically(config, c, config.failed_retry_max_attempts));
  }
  EXPECT_FALSE(retried_automatically(config, ErrorCode::CORRUPT_MESSAGE, 1));
}

TEST(MirrorFailure, FailedRetriesBackOffExponentiallyWithJitterUpToTheMax) {
  MirrorBrokerConfig config;
  config.failed_retry_initial_backoff_ms = 1000;
  config.failed_retry_max_backoff_ms = 10000;
  EXPECT_EQ(failed_retry_backoff(config, 1, 0.5), milliseconds(1000));
  EXPECT_EQ(failed_retry_backoff(config, 2, 0.5), milliseconds(2000));
  EXPECT_EQ(failed_retry_backoff(config, 4, 0.5), milliseconds(8000));
  EXPECT_EQ(failed_retry_backoff(config, 5, 0.5), milliseconds(10000));   // capped
  EXPECT_EQ(failed_retry_backoff(config, 60, 0.5), milliseconds(10000));  // no overflow
  // The jitter spans +-20%.
  EXPECT_EQ(failed_retry_backoff(config, 1, 0.0), milliseconds(800));
  EXPECT_EQ(failed_retry_backoff(config, 1, 0.999999), milliseconds(1199));
}

TEST(MirrorFailure, TransientBackoffDoublesToFiveSeconds) {
  EXPECT_EQ(transient_backoff(1), milliseconds(100));
  EXPECT_EQ(transient_backoff(2), milliseconds(200));
  EXPECT_EQ(transient_backoff(6), milliseconds(3200));
  EXPECT_EQ(transient_backoff(7), milliseconds(5000));
  EXPECT_EQ(transient_backoff(1000), milliseconds(5000));
}

}  // namespace
}  // namespace mirra::mirror
