// MirrorRunner and throttling (docs/quotas.md, docs/mirroring-design.md §10): the destination's
// mirror.replication.throttled.rate holds back the partitions listed in their topic's
// mirror.replication.throttled.replicas while the broker's cap is exceeded; the source's quotas
// are honoured by the fetchers' connections themselves (client/broker_connection.h), which
// count the time they waited.
#include <algorithm>

#include "mirror/mirror_runner.h"

namespace mirra::mirror {

int64_t MirrorRunner::now_ms() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(now().time_since_epoch()).count();
}

ThrottledReplicas MirrorRunner::throttled_replicas(const SinkTopic& t) const {
  if (ctx_.throttle == nullptr || t.throttled_replicas.empty()) return {};
  auto parsed =
      parse_throttled_replicas(kMirrorThrottledReplicasKey, t.throttled_replicas, ctx_.node_id);
  // The value was checked when it was set (cluster/topic_config.cc).
  return parsed.ok() ? parsed.value() : ThrottledReplicas{};
}

bool MirrorRunner::throttle_exceeded() {
  return ctx_.throttle != nullptr && ctx_.throttle->exceeded(now_ms());
}

bool MirrorRunner::held_back(const SinkTopic& t, const ThrottledReplicas& listed, int32_t partition,
                             bool exceeded) {
  client::TopicPartition tp{t.name, partition};
  if (!listed.contains(partition)) {
    throttled_.erase(tp);
    return false;
  }
  throttled_.insert(std::move(tp));
  return exceeded;
}

void MirrorRunner::note_held_back(size_t fetcher, bool any) {
  if (held_.size() <= fetcher) held_.resize(fetcher + 1, false);
  held_[fetcher] = any;
  const bool held_now = std::find(held_.begin(), held_.end(), true) != held_.end();
  if (held_now && !held_since_) held_since_ = now();
  if (!held_now && held_since_) {
    held_ms_ += std::chrono::duration_cast<std::chrono::milliseconds>(now() - *held_since_).count();
    held_since_.reset();
  }
}

void MirrorRunner::record_throttled(const Round& round) {
  if (ctx_.throttle == nullptr) return;
  int64_t bytes = 0;
  for (const client::FetchedPartition& answer : round.answers) {
    if (throttled_.count(answer.tp) != 0) bytes += static_cast<int64_t>(answer.records.size());
  }
  ctx_.throttle->record(bytes, now_ms());
}

SteadyTime MirrorRunner::throttle_ends() const {
  if (!held_since_ || ctx_.throttle == nullptr) return SteadyTime::max();
  return now() + std::chrono::milliseconds(std::max<int64_t>(1, ctx_.throttle->wait_ms(now_ms())));
}

int64_t MirrorRunner::destination_throttled_ms() const {
  int64_t total = held_ms_;
  if (held_since_) {
    total += std::chrono::duration_cast<std::chrono::milliseconds>(now() - *held_since_).count();
  }
  return total;
}

int64_t MirrorRunner::source_throttled_ms() const {
  int64_t total = 0;
  for (const Fetcher& f : fetchers_) total += f.connection->throttled_ms();
  return total;
}

int64_t MirrorRunner::throttled_rate() const {
  return ctx_.throttle != nullptr ? ctx_.throttle->limit() : kUnthrottledRate;
}

}  // namespace mirra::mirror
