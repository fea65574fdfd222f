// How a mirror partition's errors are handled (docs/mirroring-design.md §2, §3). Pure: unit-tested
// in tests/mirror/mirror_failure_test.cc.
//
// Three kinds: a transient error (leader moved, connection lost, source busy) is retried with a
// short backoff and never makes the partition FAILED; any other error makes it FAILED, which
// is retried automatically with exponential backoff and jitter up to
// mirror.failed.retry.max.attempts; a permanent one (tiered storage on the source, the source
// topic deleted or recreated, the source cluster replaced, a corrupt batch) waits for the
// operator (`mirra mirror --resume`).
#pragma once

#include <chrono>
#include <cstdint>

#include "base/status.h"
#include "mirror/mirror_config.h"

namespace mirra::mirror {

enum class FailureKind { transient, failed, permanent };

FailureKind classify_failure(ErrorCode code);

// The wait after the `attempt`-th transient error in a row (1, 2, ...): 100 ms doubling to 5 s.
std::chrono::milliseconds transient_backoff(int32_t attempt);

// The wait before the automatic retry of a FAILED partition after `retries` failed attempts
// (1, 2, ...): initial * 2^(retries-1), at most max, times a jitter factor in [0.8, 1.2]
// (`random01` in [0, 1) picks it), as Kafka's ExponentialBackoff does.
std::chrono::milliseconds failed_retry_backoff(const MirrorBrokerConfig& config, int32_t retries,
                                               double random01);

// Whether the cause recorded in a FAILED state waits for the operator.
bool permanent_cause(ErrorCode cause);

// Whether a FAILED partition with this cause and retry count is still retried automatically.
bool retried_automatically(const MirrorBrokerConfig& config, ErrorCode cause, int32_t retries);

}  // namespace mirra::mirror
