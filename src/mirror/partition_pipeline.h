// PartitionPipeline: where one mirror partition's fetches stand (docs/mirroring-design.md §2).
// A plain type, no I/O and no clock of its own: the caller passes the time, so the unit tests
// (tests/mirror/partition_pipeline_test.cc) drive it with a fake clock.
//
// Pipelining: a partition is in at most one request at a time, but the next request may go out
// while earlier answers still wait to be appended. It then asks where the latest answer's
// complete batches end instead of at the log end. When an answer does not land whole (an error,
// a truncation, a moved log start) or a request fails, the pipeline "breaks": the generation
// goes up, and answers to requests from before the break no longer set the next offset, so the
// partition waits until they are handled (dropped) and is then asked at its log end again. This
// is what keeps a chain of stale answers from being asked at a stale offset forever.
//
// Backoff: after a failure the partition is not fetched before `not_before()`.
//
// Threading: the mirror runner's (the core thread); not thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace mirra::mirror {

using SteadyTime = std::chrono::steady_clock::time_point;

class PartitionPipeline {
 public:
  // Where the next request may ask for the partition whose log ends at `log_end`, or nullopt
  // when none may go out at `now`: one is out already, its backoff has not ended, or pending
  // answers must be handled first (the latest one failed, or the pipeline broke).
  std::optional<int64_t> fetch_offset(int64_t log_end, SteadyTime now) const;

  // A request asking for the partition went out; returns the generation it belongs to, for
  // answer_received().
  uint64_t request_sent();
  // The request came back without an answer for the partition (the whole fetch failed).
  void request_failed();
  // The request came back with an answer, pending until answer_handled(). `end`: where the
  // answer's complete batches end (the next request asks there), nullopt for an error answer.
  void answer_received(uint64_t generation, std::optional<int64_t> end);
  // A pending answer was handled; `landed`: appended (or nothing to append) where it asked.
  void answer_handled(bool landed);

  // Failures and backoff. A transient failure backs off by transient_backoff(retries);
  // backoff_until() sets the wait itself (a FAILED partition's retry) and forgets the count,
  // as the durable state's count is the one that matters from then on.
  void transient_failure(SteadyTime now);
  void backoff_until(SteadyTime until);
  // A fetch worked, or the operator resumed the partition: no backoff, no retries.
  void succeeded();

  bool in_request() const { return in_request_; }
  int32_t answers_pending() const { return answers_pending_; }
  uint64_t generation() const { return generation_; }
  int32_t retries() const { return retries_; }
  SteadyTime not_before() const { return not_before_; }

 private:
  void break_pipeline();

  bool in_request_ = false;
  int32_t answers_pending_ = 0;
  int64_t next_offset_ = -1;  // where the latest answer ends; -1: ask at the log end
  uint64_t generation_ = 0;   // breaks so far
  int32_t retries_ = 0;       // transient failures since the last success
  SteadyTime not_before_{};
};

}  // namespace mirra::mirror
