// MirrorRunner: one mirror's data path (docs/mirroring-design.md §2, §3). It owns the mirror's clients of
// the source cluster: one for admin calls and one per fetcher (mirror.num.fetchers). Every
// mirror partition belongs to one fetcher (by hash); each fetcher keeps one fetch loop per
// source broker that leads any of its partitions, so a slow or unreachable broker never holds
// up the others. A loop fetches its partitions read_committed at the destination's log end and
// appends each complete batch at its own offset after the producer-id rewrite
// (mirror_apply.cc).
//
// Errors (mirror_failure.h): a transient one backs the partition off briefly; any other makes
// it FAILED (durable), retried with exponential backoff and jitter; a permanent one waits for
// the operator. One partition's failure never stops another.
//
// Threading: the core thread. The clients and loops run on the core executor; appends go to
// the partitions' shards through PartitionManager::run().
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/status.h"
#include "client/client.h"
#include "client/fetch_sessions.h"
#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "cluster/topic_admin.h"
#include "mirror/mirror_config.h"
#include "mirror/mirror_state_store.h"
#include "mirror/rate_meter.h"

namespace mirra::mirror {

using SteadyTime = std::chrono::steady_clock::time_point;

// What describe shows of one partition besides its durable state, and when it may be fetched
// next (core thread).
struct PartitionMirrorStatus {
  int64_t source_log_start = -1;
  int64_t source_high_watermark = -1;
  int32_t retries = 0;      // transient failures since the last success
  Status last_error;        // of the last failed attempt; OK after a success
  SteadyTime not_before{};  // backoff: not fetched before this
  // Pipelining (mirror_runner.cc): a partition is in at most one request at a time
  // (`requested`), but the next request may go out while earlier answers wait to be appended
  // (`answers_pending`). It then asks at `next_offset`, where the latest answer's complete
  // batches end, instead of at the log end; -1 while it must wait for the pending answers to be
  // handled: the latest one failed, or an answer did not land whole and the pipeline broke
  // (`generation` counts the breaks; answers to requests from before one never set
  // next_offset, so the partition is asked at the log end once they are handled).
  bool requested = false;
  int32_t answers_pending = 0;
  int64_t next_offset = -1;
  uint64_t generation = 0;
  // docs/mirroring-design.md §12: what was mirrored lately, the newest timestamp mirrored (the time lag is
  // measured from it) and the round trip of the last fetch that asked for the partition (long
  // polling included).
  RateMeter bytes;
  RateMeter records;
  int64_t newest_mirrored_timestamp = -1;
  int64_t fetch_latency_ms = -1;
};

// The runtime a runner shares with the manager.
struct MirrorRunnerContext {
  asio::any_io_executor core;
  cluster::MetadataStore& store;
  cluster::PartitionManager& partitions;
  cluster::TopicAdmin& topics;
  MirrorStateStore& states;
  MirrorBrokerConfig broker;
  int32_t node_id = 1;
};

class MirrorRunner : public std::enable_shared_from_this<MirrorRunner> {
 public:
  static Result<std::shared_ptr<MirrorRunner>> create(const MirrorRunnerContext& ctx,
                                                      std::string name, MirrorConfigs configs);

  const std::string& name() const { return name_; }
  // The admin client of the source (metadata, configs, ListMirrors, ...).
  client::Client& source() { return *admin_; }
  const MirrorConfigs& configs() const { return configs_; }
  // The value of a mirror config, or its default.
  std::string config(const std::string& key) const;

  // Starts the loops; stop() ends them (in-flight appends finish), stopped() waits for that.
  void start();
  void stop();
  asio::awaitable<void> stopped();
  // Topics were added, resumed or recovered: look at once instead of after the idle wait.
  void wake();
  // The operator resumed or recovered a partition: no backoff left, no errors remembered.
  void reset(const client::TopicPartition& tp);

  const std::map<client::TopicPartition, PartitionMirrorStatus>& status() const {
    return status_;
  }

 private:
  struct Fetcher {
    std::unique_ptr<client::Client> client;
    // KIP-227 sessions with the source brokers (the loops of one fetcher share them, one
    // session per broker).
    std::unique_ptr<client::FetchSessions> sessions;
    std::set<int32_t> brokers;  // source brokers with a running loop
  };

  MirrorRunner(const MirrorRunnerContext& ctx, std::string name, MirrorConfigs configs);
  size_t fetcher_of(const client::TopicPartition& tp) const;
  // Whether the partition's durable state lets it be fetched (not paused, stopping, stopped
  // or FAILED for good).
  bool fetching(const MirrorStateKey& key) const;
  // The partitions of `fetcher` due now, with their source leader (-1 unknown).
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
  // Bookkeeping of an answer no longer pending (appended, handled or dropped).
  void answer_done(const client::TopicPartition& tp);
  // An answer of the partition did not land whole (or its request failed): the next request
  // waits for the pending answers and asks at the log end.
  void break_pipeline(const client::TopicPartition& tp);
  asio::awaitable<void> wait(asio::steady_timer& timer, SteadyTime until);
  void loop_ended();

  // mirror_apply.cc: one partition's answer.
  // `asked_offset`: where the request asked; the answer is dropped unless the log still ends
  // there (an earlier answer of a pipelined partition was not appended whole). True when the
  // answer was appended (or had nothing to append) as asked.
  asio::awaitable<bool> apply(const client::FetchedPartition& fetched, int64_t asked_offset);
  asio::awaitable<Status> copy(const std::shared_ptr<cluster::Partition>& p,
                               const client::FetchedPartition& fetched);
  asio::awaitable<Status> append(const std::shared_ptr<cluster::Partition>& p,
                                 const client::FetchedPartition& fetched);
  asio::awaitable<Status> follow_log_start(const std::shared_ptr<cluster::Partition>& p,
                                           int64_t source_log_start);
  asio::awaitable<Status> raise_leader_epoch(const std::shared_ptr<cluster::Partition>& p,
                                             int32_t mirrored_epoch);
  asio::awaitable<Status> realign(const std::shared_ptr<cluster::Partition>& p,
                                  const client::TopicPartition& tp);
  // A fetch of the partition worked: MIRRORING (from PREPARING or a FAILED retry).
  asio::awaitable<void> succeeded(const client::TopicPartition& tp);
  // The partition's attempt failed with `s`: a backoff, or FAILED (durable).
  asio::awaitable<void> failed(const client::TopicPartition& tp, const Status& s);
  asio::awaitable<void> mark_failed(const client::TopicPartition& tp, const Status& s);
  // The source topics still exist with the ids mirrored (else FAILED for good).
  asio::awaitable<void> check_source_topics();

  MirrorRunnerContext ctx_;
  std::string name_;
  MirrorConfigs configs_;
  std::unique_ptr<client::Client> admin_;
  std::vector<Fetcher> fetchers_;
  std::vector<std::unique_ptr<asio::steady_timer>> idle_;  // one per fetcher's supervisor
  asio::steady_timer exited_;
  int live_loops_ = 0;
  bool stopping_ = false;
  std::minstd_rand random_;
  std::map<client::TopicPartition, PartitionMirrorStatus> status_;
};

}  // namespace mirra::mirror
