#include "mirror/mirror_failure.h"

#include <algorithm>
#include <cmath>

namespace mirra::mirror {

FailureKind classify_failure(ErrorCode code) {
  switch (code) {
    case ErrorCode::NONE:
      return FailureKind::transient;
    // docs/mirroring-design.md §2.1: these lead to a metadata refresh and a retry, never to
    // FAILED by themselves.
    case ErrorCode::NOT_LEADER_OR_FOLLOWER:
    case ErrorCode::LEADER_NOT_AVAILABLE:
    case ErrorCode::FENCED_LEADER_EPOCH:
    case ErrorCode::UNKNOWN_LEADER_EPOCH:
    case ErrorCode::UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode::UNKNOWN_TOPIC_ID:  // deleted or not known yet: the topic check tells
    case ErrorCode::NETWORK_EXCEPTION:
    case ErrorCode::REQUEST_TIMED_OUT:
    case ErrorCode::FETCH_SESSION_ID_NOT_FOUND:
    case ErrorCode::INVALID_FETCH_SESSION_EPOCH:
    case ErrorCode::OFFSET_NOT_AVAILABLE:
    case ErrorCode::REPLICA_NOT_AVAILABLE:
    case ErrorCode::BROKER_NOT_AVAILABLE:
    case ErrorCode::COORDINATOR_LOAD_IN_PROGRESS:
    case ErrorCode::THROTTLING_QUOTA_EXCEEDED:
      return FailureKind::transient;
    // docs/mirroring-design.md §3.2: what no retry can fix.
    case ErrorCode::OFFSET_MOVED_TO_TIERED_STORAGE:
    case ErrorCode::CORRUPT_MESSAGE:
    case ErrorCode::INCONSISTENT_TOPIC_ID:
    case ErrorCode::INCONSISTENT_CLUSTER_ID:
      return FailureKind::permanent;
    default:
      return FailureKind::failed;
  }
}

std::chrono::milliseconds transient_backoff(int32_t attempt) {
  const int32_t doublings = std::clamp(attempt - 1, 0, 6);
  return std::chrono::milliseconds(std::min<int64_t>(5000, int64_t{100} << doublings));
}

std::chrono::milliseconds failed_retry_backoff(const MirrorBrokerConfig& config, int32_t retries,
                                               double random01) {
  const double exponent = std::max(0, retries - 1);
  const double term = config.failed_retry_initial_backoff_ms * std::pow(2.0, exponent);
  const double capped = std::min<double>(term, config.failed_retry_max_backoff_ms);
  const double jitter = 0.8 + 0.4 * std::clamp(random01, 0.0, 1.0);
  return std::chrono::milliseconds(static_cast<int64_t>(capped * jitter));
}

bool permanent_cause(ErrorCode cause) {
  // UNKNOWN_TOPIC_ID is transient in a fetch answer, but a FAILED state records it only when
  // the topics sync found the source topic gone (MirrorRunner::fail_for_good).
  return cause == ErrorCode::UNKNOWN_TOPIC_ID || classify_failure(cause) == FailureKind::permanent;
}

bool retried_automatically(const MirrorBrokerConfig& config, ErrorCode cause, int32_t retries) {
  return !permanent_cause(cause) && retries < config.failed_retry_max_attempts;
}

}  // namespace mirra::mirror
