#include "mirror/partition_pipeline.h"

#include "base/assert.h"
#include "mirror/mirror_failure.h"

namespace mirra::mirror {

std::optional<int64_t> PartitionPipeline::fetch_offset(int64_t log_end, SteadyTime now) const {
  if (in_request_ || not_before_ > now) return std::nullopt;
  if (answers_pending_ == 0) return log_end;
  if (next_offset_ < 0) return std::nullopt;  // waits for its pending answers
  return next_offset_;
}

uint64_t PartitionPipeline::request_sent() {
  // One request per partition at a time: its answers must be appended in order.
  MIRRA_ASSERT(!in_request_, "a second request for a partition already in one");
  in_request_ = true;
  return generation_;
}

void PartitionPipeline::request_failed() {
  MIRRA_ASSERT(in_request_, "a request failed that was never sent");
  in_request_ = false;
  break_pipeline();
}

void PartitionPipeline::answer_received(uint64_t generation, std::optional<int64_t> end) {
  MIRRA_ASSERT(in_request_, "an answer to a request that was never sent");
  MIRRA_ASSERT(generation <= generation_, "an answer from a future generation");
  in_request_ = false;
  ++answers_pending_;
  // An answer to a request from before a break leaves the next offset alone: the partition
  // waits until the answer is handled (dropped) and is then asked at its log end.
  if (generation == generation_) next_offset_ = end.value_or(-1);
}

void PartitionPipeline::answer_handled(bool landed) {
  MIRRA_ASSERT(answers_pending_ > 0, "an answer handled that was never pending");
  if (!landed) break_pipeline();
  if (--answers_pending_ == 0) next_offset_ = -1;  // the next request asks at the log end
}

void PartitionPipeline::break_pipeline() {
  ++generation_;
  next_offset_ = -1;
}

void PartitionPipeline::transient_failure(SteadyTime now) {
  ++retries_;
  not_before_ = now + transient_backoff(retries_);
}

void PartitionPipeline::backoff_until(SteadyTime until) {
  retries_ = 0;
  not_before_ = until;
}

void PartitionPipeline::succeeded() {
  retries_ = 0;
  not_before_ = {};
}

}  // namespace mirra::mirror
