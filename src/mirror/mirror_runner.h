// MirrorRunner: one mirror's data path (docs/mirroring-design.md §2, §3). It owns the mirror's
// clients of the source cluster: one for admin calls and one per fetcher (mirror.num.fetchers).
// Every mirror partition belongs to one fetcher (by hash); each fetcher keeps one fetch loop per
// source broker that leads any of its partitions, so a slow or unreachable broker never holds
// up the others. A loop fetches its partitions read_committed at the destination's log end and
// appends each complete batch at its own offset after the producer-id rewrite
// (mirror_apply.cc). Fetches carry the source's leader epoch; when it moves (and once after the
// runner starts) the partition's log is compared with the source's and cut where they part
// before it is fetched again (mirror_epochs.cc).
//
// Errors (mirror_failure.h): a transient one backs the partition off briefly; any other makes
// it FAILED (durable), retried with exponential backoff and jitter; a permanent one waits for
// the operator. One partition's failure never stops another.
//
// The source and the destination are behind small interfaces (mirror_source.h, mirror_sink.h),
// so the whole data path runs against fakes in tests/mirror/mirror_runner_test.cc; each
// partition's pipeline and backoff is a PartitionPipeline (partition_pipeline.h).
//
// Threading: the core thread (checked: MIRRA_ASSERT_OWNER). The connections and loops run on
// the core executor; the real sink's appends go to the partitions' shards.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/assert.h"
#include "base/status.h"
#include "client/client.h"
#include "client/types.h"
#include "metrics/histogram.h"
#include "mirror/mirror_config.h"
#include "mirror/mirror_settings.h"
#include "mirror/mirror_sink.h"
#include "mirror/mirror_source.h"
#include "mirror/mirror_throttle.h"
#include "mirror/partition_pipeline.h"
#include "mirror/rate_meter.h"

namespace mirra::mirror {

// What describe shows of one partition besides its durable state (core thread).
struct PartitionMirrorStatus {
  int64_t source_log_start = -1;
  int64_t source_high_watermark = -1;
  Status last_error;  // of the last failed attempt; OK after a success
  // Requests, pending answers, retries and backoff.
  PartitionPipeline pipeline;
  // docs/mirroring-design.md §12: what was mirrored lately, the newest timestamp mirrored (the
  // time lag is measured from it) and the round trip of the last fetch that asked for the
  // partition (long polling included).
  RateMeter bytes;
  RateMeter records;
  int64_t newest_mirrored_timestamp = -1;
  int64_t fetch_latency_ms = -1;
  // docs/observability.md: since the runner started, for /metrics.
  int64_t bytes_total = 0;
  int64_t records_total = 0;
  int64_t last_fetch_wall_ms = -1;  // the last fetch answered without error for it
  metrics::Histogram fetch_latency;
  // docs/mirroring-design.md §2.4: the source leader epoch under which this log was last
  // compared with the source's (OffsetForLeaderEpoch); the fetches carry it as their current
  // leader epoch. kNotCompared until the first comparison after the runner starts.
  static constexpr int32_t kNotCompared = -2;
  int32_t compared_source_epoch = kNotCompared;
};

// The runtime a runner shares with the manager (or a test).
struct MirrorRunnerContext {
  asio::any_io_executor core;
  MirrorSink& sink;
  MirrorBrokerConfig broker;
  int32_t node_id = 1;
  // Time and chance, replaced in tests: the clock backoffs are measured on (empty: the steady
  // clock), and a uniform number in [0, 1) for the jitter of FAILED retries (empty: a random
  // engine's).
  std::function<SteadyTime()> now;
  std::function<double()> random01;
  // The broker's cap on mirror fetch traffic (mirror_throttle.h); null: none.
  MirrorThrottle* throttle = nullptr;
};

class MirrorRunner : public std::enable_shared_from_this<MirrorRunner> {
 public:
  // A runner over the real source (its bootstrap.servers through client::Client), with an
  // admin client of the source for the manager (source()).
  static Result<std::shared_ptr<MirrorRunner>> create(const MirrorRunnerContext& ctx,
                                                      std::string name, MirrorConfigs configs);
  // A runner over any source (tests: a fake); source() is not available.
  static Result<std::shared_ptr<MirrorRunner>> create(const MirrorRunnerContext& ctx,
                                                      std::string name, MirrorConfigs configs,
                                                      std::unique_ptr<MirrorSource> source);

  const std::string& name() const { return name_; }
  // The manager's admin client of the source (metadata, configs, ListMirrors, ...); only for a
  // runner made by the first create().
  client::Client& source() {
    MIRRA_ASSERT(admin_client_ != nullptr, "mirror {}: no admin client of the source", name_);
    return *admin_client_;
  }
  const MirrorConfigs& configs() const { return configs_; }
  const MirrorSettings& settings() const { return settings_; }

  // Starts the loops; stop() ends them (in-flight appends finish), stopped() waits for that.
  void start();
  void stop();
  asio::awaitable<void> stopped();
  // Topics were added, resumed or recovered: look at once instead of after the idle wait.
  void wake();
  // The operator resumed or recovered a partition: no backoff left, no errors remembered.
  void reset(const client::TopicPartition& tp);

  // The source topic was deleted or recreated (the topics sync, docs/mirroring-design.md §8):
  // every partition of `topic` not paused or failed over becomes FAILED with `why` (a permanent
  // cause: UNKNOWN_TOPIC_ID, INCONSISTENT_TOPIC_ID), durably, and is never fetched again; no
  // backoff retries it. Its data stays readable and it can be failed over.
  asio::awaitable<Status> fail_for_good(std::string topic, Status why);

  const std::map<client::TopicPartition, PartitionMirrorStatus>& status() const { return status_; }
  // Partitions the source has and the destination's topic lacks (added on the source after
  // the topic was added; they are not mirrored, docs/mirroring-design.md §8), with the source's
  // log end as of the last topic check (-1 unknown). Describe shows them.
  const std::map<client::TopicPartition, int64_t>& source_only() const { return source_only_; }

  // docs/quotas.md: the time this mirror spent throttled, in ms: partitions held back by this
  // broker's mirror.replication.throttled.rate, and waits the source's quotas asked of its
  // fetchers (throttle_time_ms). The rate in force (kUnthrottledRate: none).
  int64_t destination_throttled_ms() const;
  int64_t source_throttled_ms() const;
  int64_t throttled_rate() const;

 private:
  struct Fetcher {
    std::unique_ptr<SourceConnection> connection;
    std::set<int32_t> brokers;  // source brokers with a running loop
  };

  MirrorRunner(const MirrorRunnerContext& ctx, std::string name, MirrorConfigs configs,
               MirrorSettings settings, std::unique_ptr<MirrorSource> source);
  // With `admin_client` (the real source), the runner's admin connection borrows it.
  static Result<std::shared_ptr<MirrorRunner>> assemble(
      const MirrorRunnerContext& ctx, std::string name, MirrorConfigs configs,
      MirrorSettings settings, std::unique_ptr<MirrorSource> source,
      std::unique_ptr<client::Client> admin_client);
  Status connect();
  SteadyTime now() const { return ctx_.now(); }
  size_t fetcher_of(const client::TopicPartition& tp) const;
  // Whether the partition's durable state lets it be fetched (not paused, stopping, stopped
  // or FAILED for good).
  bool fetching(const MirrorStateKey& key) const;
  // The partitions of `fetcher` due now with their offsets, by source leader (-1 unknown), and
  // under kCompareEpochs those whose log must first be compared with the source's (their
  // current_leader_epoch: the source's epoch as the fetcher's metadata shows it).
  static constexpr int32_t kCompareEpochs = -2;
  std::map<int32_t, std::vector<client::FetchPosition>> due_positions(size_t fetcher);
  // When the next backed-off partition becomes due (max() if none).
  SteadyTime next_due() const;

  // mirror_runner.cc: the loops.
  asio::awaitable<void> supervise(size_t fetcher);
  asio::awaitable<void> fetch_from(size_t fetcher, int32_t broker);
  // One request of a loop and its answer, to be appended.
  struct Round {
    std::vector<client::FetchPosition> asked;
    std::vector<client::FetchedPartition> answers;  // in the order asked; empty if it failed
  };
  asio::awaitable<Round> fetch_round(size_t fetcher, std::vector<client::FetchPosition> positions);
  asio::awaitable<void> apply_round(Round round);
  // One answer of a round (which owns it and outlives this) with its bookkeeping.
  asio::awaitable<void> apply_answer(const client::FetchedPartition& answer, int64_t asked_offset);
  asio::awaitable<void> wait(asio::steady_timer& timer, SteadyTime until);
  void loop_ended();

  // mirror_runner_throttle.cc: the destination's cap. Whether `partition` of `t` counts
  // against it (updates throttled_), and whether it is to be held back now.
  bool held_back(const SinkTopic& t, const ThrottledReplicas& listed, int32_t partition,
                 bool exceeded);
  ThrottledReplicas throttled_replicas(const SinkTopic& t) const;
  bool throttle_exceeded();
  // One look of `fetcher` held back some partitions (or none): the time throttled.
  void note_held_back(size_t fetcher, bool any);
  // The bytes fetched for throttled partitions count against the cap.
  void record_throttled(const Round& round);
  // When a held-back partition may be fetched again (max() if none is held back).
  SteadyTime throttle_ends() const;
  int64_t now_ms() const;

  // mirror_apply.cc: one partition's answer.
  // `asked_offset`: where the request asked; the answer is dropped unless the log still ends
  // there (an earlier answer of a pipelined partition was not appended whole). True when the
  // answer was appended (or had nothing to append) as asked.
  asio::awaitable<bool> apply(const client::FetchedPartition& fetched, int64_t asked_offset);
  // An answer with nothing to append, for a partition MIRRORING without error whose log start
  // is not behind the source's: apply()'s outcome without its coroutines (most of a round's
  // answers when many partitions sit idle). False, having done nothing, for any other answer.
  bool handled_idle(const client::FetchedPartition& fetched, int64_t asked_offset);
  asio::awaitable<Status> copy(const SinkLog& log, const client::FetchedPartition& fetched);
  asio::awaitable<Status> append(const SinkLog& log, const client::FetchedPartition& fetched);
  asio::awaitable<Status> follow_log_start(const client::TopicPartition& tp,
                                           int64_t source_log_start);
  asio::awaitable<Status> raise_leader_epoch(const client::TopicPartition& tp,
                                             int32_t mirrored_epoch);
  asio::awaitable<Status> realign(const SinkLog& log, const client::TopicPartition& tp);
  // Checked right before each change of the destination's log, with no wait between the check
  // and the change being posted: a pause or a failover that began while an answer was being
  // handled (its leader-epoch raise, a truncation) stops the rest. A failover posts its own
  // truncation after its STOPPING is durable, so it always comes after ours, and nothing of
  // the mirror follows it.
  Status still_fetching(const client::TopicPartition& tp) const;
  // A fetch of the partition worked: MIRRORING (from PREPARING or a FAILED retry).
  asio::awaitable<void> succeeded(const client::TopicPartition& tp);
  // The partition's attempt failed with `s`: a backoff, or FAILED (durable).
  asio::awaitable<void> failed(const client::TopicPartition& tp, const Status& s);
  asio::awaitable<void> mark_failed(const client::TopicPartition& tp, const Status& s);

  // mirror_epochs.cc (§2.4): the partitions' logs compared with the source's where the source's
  // leader epoch moved (or not yet since the runner started), truncated where they diverge.
  asio::awaitable<void> compare_epochs(std::vector<client::FetchPosition> due);
  // One partition: true when its log matches the source's up to its end now; false when it
  // was cut to an intermediate point and must be compared again (Kafka's follower rule).
  asio::awaitable<Result<bool>> truncate_at_divergence(const client::TopicPartition& tp,
                                                       const LogEpochs& here,
                                                       const client::EpochEndOffset& source);
  // An error of the comparison: a source without OffsetForLeaderEpoch keeps today's behaviour.
  asio::awaitable<void> comparison_failed(const client::FetchPosition& pos, const Status& s);
  // Partitions the source added are noted in source_only_ (a deleted or recreated source topic
  // is the topics sync's: fail_for_good()).
  asio::awaitable<void> check_source_topics();
  asio::awaitable<void> note_source_only(const std::vector<SinkTopic>& topics,
                                         const client::ClusterMetadata& source);

  MirrorRunnerContext ctx_;
  std::string name_;
  MirrorConfigs configs_;
  MirrorSettings settings_;
  std::unique_ptr<MirrorSource> source_;
  std::unique_ptr<client::Client> admin_client_;  // the manager's; null with a fake source
  std::unique_ptr<SourceConnection> admin_;       // metadata and list offsets
  std::vector<Fetcher> fetchers_;
  std::vector<std::unique_ptr<asio::steady_timer>> idle_;  // one per fetcher's supervisor
  asio::steady_timer exited_;
  int live_loops_ = 0;
  bool stopping_ = false;
  std::minstd_rand random_;
  std::map<client::TopicPartition, PartitionMirrorStatus> status_;
  std::map<client::TopicPartition, int64_t> source_only_;
  bool epochs_unsupported_logged_ = false;
  // The destination's cap (mirror_runner_throttle.cc): partitions counting against it, which
  // fetchers' last look held some back, since when, and the time held back before that.
  std::set<client::TopicPartition> throttled_;
  std::vector<bool> held_;
  std::optional<SteadyTime> held_since_;
  int64_t held_ms_ = 0;
  ThreadOwner owner_;  // the core thread
};

}  // namespace mirra::mirror
