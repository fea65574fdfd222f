// PartitionManager: the broker's log manager. It opens, creates, reconfigures and removes the
// partition logs of one log directory, hands each to its shard, and keeps the directory's
// checkpoint files (storage/checkpoint.h) and housekeeping (retention, compaction, flush.ms)
// going.
//
// Threading: the manager itself lives on the core thread; every storage call goes to the
// partition's shard through run(), which also refreshes the partition's core-thread offsets
// and wakes long-polling fetches when they moved. Handlers use it; they never see segment
// files. Both rules are checked where assertions are on (base/assert.h): the manager's calls
// with MIRRA_ASSERT_OWNER, the log work with ShardPool::on_shard().
//
// The metadata image is the truth about which partitions exist: start-up opens (and creates)
// exactly those, renames any other partition directory to "<dir>.<id>-stray" with a warning,
// and finishes deletions that a crash interrupted ("<dir>.<id>-delete").
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "base/asio.h"
#include "base/assert.h"
#include "base/status.h"
#include "cluster/log_dir_health.h"
#include "cluster/log_writer.h"
#include "cluster/partition.h"
#include "cluster/shard_pool.h"
#include "cluster/topic_config.h"
#include "metadata/image.h"

namespace mirra::cluster {

// The marker of a clean shutdown in the log directory (docs/formats/checkpoints.md).
inline constexpr const char* kCleanShutdownFile = ".mirra_cleanshutdown";

struct PartitionManagerOptions {
  std::filesystem::path log_dir;
  BrokerConfigSources broker;  // for topic config defaults; the maps must outlive the manager
  std::chrono::milliseconds retention_check_interval{300000};  // log.retention.check.interval.ms
  std::chrono::milliseconds checkpoint_interval{60000};  // log.flush.offset.checkpoint.interval.ms
};

// The result of a job posted to a shard, awaited on the core thread.
template <typename R>
class Pending {
 public:
  explicit Pending(asio::any_io_executor core)
      : wake_(core, asio::steady_timer::time_point::max()) {}
  asio::awaitable<R> wait() {
    while (!result_) {
      asio::error_code ec;
      co_await wake_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    co_return std::move(*result_);
  }
  void set(R r) {
    result_.emplace(std::move(r));
    wake_.cancel();
  }

 private:
  std::optional<R> result_;
  asio::steady_timer wake_;
};

class PartitionManager {
 public:
  PartitionManager(asio::any_io_executor core, ShardPool& shards, PartitionManagerOptions options);
  PartitionManager(const PartitionManager&) = delete;
  PartitionManager& operator=(const PartitionManager&) = delete;

  // The log directory's state (full, offline), learnt from every job's outcome.
  const LogDirHealth& log_dir_health() const { return *health_; }

  // Start-up: opens every partition of the image (recovering them after a crash), cleans up
  // interrupted deletions and stray directories. A partition that cannot be opened stays
  // offline (its handlers answer KAFKA_STORAGE_ERROR) and is logged; the broker still starts.
  // The logs are opened on all shards at once. When the clean-shutdown marker is there
  // (kCleanShutdownFile, written by shutdown()), nothing is recovered; it is removed before
  // any log is opened, so a crash from then on is never taken for a clean stop.
  asio::awaitable<void> open_all(const metadata::MetadataImage& image);
  // Whether open_all() found the clean-shutdown marker (false before it ran). After an unclean
  // stop the broker bumps every leader epoch (TopicAdmin::bump_leader_epochs).
  bool opened_after_clean_shutdown() const { return opened_clean_; }

  std::shared_ptr<Partition> find(std::string_view topic, int32_t index) const;
  size_t partition_count() const;

  // After a metadata change is committed: creates/opens the topic's new partitions, applies a
  // new config, or closes and deletes the topic's logs. add_partitions fails
  // (KAFKA_STORAGE_ERROR naming the partitions and the first reason) when any new partition
  // could not be opened; those stay offline.
  asio::awaitable<Status> add_partitions(const metadata::TopicInfo& topic);
  asio::awaitable<void> reconfigure(const metadata::TopicInfo& topic);
  asio::awaitable<void> remove_topic(const std::string& topic);

  // Posts f(const storage::PartitionLog&) to the partition's shard at once and returns a handle
  // to await its result: a read. f returns a Status or a Result; a partition that is offline or
  // removed gives KAFKA_STORAGE_ERROR or UNKNOWN_TOPIC_OR_PARTITION without calling f. Posting
  // before awaiting matters: a request's jobs are queued in request order even when the handler
  // awaits them one by one, so pipelined produce requests stay in order per partition.
  // Every outcome goes to log_dir_health(); once the directory is offline every job gives
  // KAFKA_STORAGE_ERROR without calling f.
  template <typename F>
  auto start(std::shared_ptr<Partition> p, F f)
      -> std::shared_ptr<Pending<std::invoke_result_t<F&, const storage::PartitionLog&>>>;
  // start() and wait.
  template <typename F>
  auto run(std::shared_ptr<Partition> p, F f)
      -> asio::awaitable<std::invoke_result_t<F&, const storage::PartitionLog&>>;

  // Whether a read at `offset` up to `bound` of at most `max_bytes` (the first batch not
  // forced) would find nothing, judged on the core thread's copy of the partition's offsets,
  // without a round trip to its shard: the offset lies in the log and at or past the bound, or
  // there is no room. Anything that would end in an error (offline, deleted, out of range) is
  // left to the read. The copy is as of the last job the shard finished, so the answer is the
  // one a read just before an append still in flight would give.
  bool nothing_to_read(const Partition& p, int64_t offset, storage::ReadBound bound,
                       int64_t max_bytes = INT64_MAX) const;

  // The same for f(storage::PartitionLog&), which changes the log (append, marker, truncation,
  // log start). The one way to change a log after it is open: a partition that the read-only
  // check reports as mirrored gives that check's error (READ_ONLY_TOPIC) without calling f,
  // unless `writer` is the mirror's (cluster/log_writer.h).
  template <typename F>
  auto start_write(std::shared_ptr<Partition> p, LogWriter writer, F f)
      -> std::shared_ptr<Pending<std::invoke_result_t<F&, storage::PartitionLog&>>>;
  template <typename F>
  auto run_write(std::shared_ptr<Partition> p, LogWriter writer, F f)
      -> asio::awaitable<std::invoke_result_t<F&, storage::PartitionLog&>>;

  // OK when the partition may be written by others than its mirror, else why not. Set once by
  // the mirror manager, which knows which topics are mirrored; unset, every partition is
  // writable. Called on the core thread when a write is posted.
  using ReadOnlyCheck = std::function<Status(const Partition&)>;
  void set_read_only_check(ReadOnlyCheck check);
  // The mirror's writer: made once per manager (asserted), for the mirror manager.
  LogWriter take_mirror_writer();

  // Periodic retention/compaction and checkpoints, until shutdown().
  void start_housekeeping();
  // Stops housekeeping, closes every log (flush, producer snapshots) and writes the checkpoint
  // files, then the clean-shutdown marker if all of that succeeded; after this no partition is
  // usable.
  asio::awaitable<void> shutdown();

  // The storage config a topic's logs get (broker defaults + the topic's overrides).
  Result<storage::LogConfig> log_config_for(const metadata::TopicInfo& topic) const;

 private:
  std::filesystem::path dir_of(const Partition& p) const;
  struct OpenJob {
    std::shared_ptr<Partition> partition;
    storage::LogConfig config;
    storage::LogOpenOptions options;
  };
  struct OpenSummary {
    size_t failed = 0;
    Status first_failure;
    size_t recovered_partitions = 0;  // partitions with at least one segment scanned
    size_t recovered_segments = 0;
  };
  // Opens the logs on their shards, all posted at once; the partitions that fail are offline
  // and logged.
  asio::awaitable<OpenSummary> open_partitions(std::vector<OpenJob> jobs);
  asio::awaitable<void> housekeeping_loop();
  asio::awaitable<void> checkpoint_loop();
  asio::awaitable<void> apply_retention_all();
  asio::awaitable<Status> write_checkpoints();
  void clean_log_dir(const metadata::MetadataImage& image);
  // The manager's own upkeep of a log (its config, retention, closing): no writer's, since it
  // puts nothing at any offset; retention only moves the log start, as on the source.
  template <typename F>
  auto run_upkeep(std::shared_ptr<Partition> p, F f)
      -> asio::awaitable<std::invoke_result_t<F&, storage::PartitionLog&>> {
    co_return co_await post<storage::PartitionLog>(std::move(p), std::move(f))->wait();
  }
  // The shared part of start() and start_write(): posts f(L&) unless the partition is gone.
  template <typename L, typename F>
  auto post(std::shared_ptr<Partition> p, F f)
      -> std::shared_ptr<Pending<std::invoke_result_t<F&, L&>>>;

  asio::any_io_executor core_;
  ShardPool& shards_;
  PartitionManagerOptions options_;
  std::map<std::string, std::vector<std::shared_ptr<Partition>>, std::less<>> topics_;
  asio::steady_timer housekeeping_timer_;
  asio::steady_timer checkpoint_timer_;
  bool stopping_ = false;
  bool opened_clean_ = false;
  ReadOnlyCheck read_only_check_;
  bool mirror_writer_taken_ = false;
  // Shared with the jobs in flight, whose outcome reaches it after they ran.
  std::shared_ptr<LogDirHealth> health_;
  ThreadOwner owner_;  // the core thread
};

// The Status of a job's result (a Status or a Result).
template <typename R>
Status status_of(const R& result) {
  if constexpr (std::is_same_v<R, Status>) {
    return result;
  } else {
    return result.status();
  }
}

template <typename L, typename F>
auto PartitionManager::post(std::shared_ptr<Partition> p, F f)
    -> std::shared_ptr<Pending<std::invoke_result_t<F&, L&>>> {
  MIRRA_ASSERT_OWNER(owner_);
  using R = std::invoke_result_t<F&, L&>;
  auto pending = std::make_shared<Pending<R>>(core_);
  if (p->removed) {
    pending->set(R(Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                          fmt::format("{}-{} was deleted", p->topic, p->index))));
    return pending;
  }
  if (health_->offline()) {
    pending->set(R(Status(ErrorCode::KAFKA_STORAGE_ERROR,
                          fmt::format("{}-{}: log directory {} is offline ({})", p->topic, p->index,
                                      health_->dir().string(), health_->offline_reason()))));
    return pending;
  }
  if (!p->online()) {
    pending->set(
        R(Status(ErrorCode::KAFKA_STORAGE_ERROR,
                 fmt::format("{}-{} is offline: {}", p->topic, p->index, p->offline_reason))));
    return pending;
  }
  asio::post(shards_.executor(p->shard), [p, f = std::move(f), pending, core = core_,
                                          shards = &shards_, health = health_]() mutable {
    MIRRA_ASSERT(shards->on_shard(p->shard), "{}-{}'s log used off its shard", p->topic, p->index);
    L& log = *p->log;
    R result = f(log);
    const PartitionOffsets offsets = offsets_of(*p->log);
    asio::post(core, [p, pending, offsets, health, result = std::move(result)]() mutable {
      health->observe(status_of(result), std::is_same_v<R, Result<storage::AppendResult>>);
      if (!(offsets == p->offsets)) {
        p->offsets = offsets;
        p->wake_waiters();
      }
      pending->set(std::move(result));
    });
  });
  return pending;
}

template <typename F>
auto PartitionManager::start(std::shared_ptr<Partition> p, F f)
    -> std::shared_ptr<Pending<std::invoke_result_t<F&, const storage::PartitionLog&>>> {
  return post<const storage::PartitionLog>(std::move(p), std::move(f));
}

template <typename F>
auto PartitionManager::run(std::shared_ptr<Partition> p, F f)
    -> asio::awaitable<std::invoke_result_t<F&, const storage::PartitionLog&>> {
  co_return co_await start(std::move(p), std::move(f))->wait();
}

template <typename F>
auto PartitionManager::start_write(std::shared_ptr<Partition> p, LogWriter writer, F f)
    -> std::shared_ptr<Pending<std::invoke_result_t<F&, storage::PartitionLog&>>> {
  MIRRA_ASSERT_OWNER(owner_);
  using R = std::invoke_result_t<F&, storage::PartitionLog&>;
  if (!writer.is_mirror() && read_only_check_) {
    if (Status s = read_only_check_(*p); !s.ok()) {
      auto refused = std::make_shared<Pending<R>>(core_);
      refused->set(R(std::move(s)));
      return refused;
    }
  }
  return post<storage::PartitionLog>(std::move(p), std::move(f));
}

template <typename F>
auto PartitionManager::run_write(std::shared_ptr<Partition> p, LogWriter writer, F f)
    -> asio::awaitable<std::invoke_result_t<F&, storage::PartitionLog&>> {
  co_return co_await start_write(std::move(p), writer, std::move(f))->wait();
}

}  // namespace mirra::cluster
