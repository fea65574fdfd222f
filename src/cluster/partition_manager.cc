#include "cluster/partition_manager.h"

#include <fmt/format.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/when_all.h"
#include "storage/checkpoint.h"
#include "storage/durable_file.h"
#include "storage/file_cache.h"

namespace mirra::cluster {
namespace {

constexpr std::string_view kMirraLogComponent = "log-manager";
namespace fs = std::filesystem;

// Renames a partition directory out of the way: "<dir>.<id>-<suffix>", as Kafka names
// directories being deleted ("-delete") or not belonging to any topic ("-stray").
Result<fs::path> rename_aside(const fs::path& dir, const Uuid& id, std::string_view suffix) {
  fs::path target = dir;
  target += fmt::format(".{}-{}", id.to_string(), suffix);
  std::error_code ec;
  fs::rename(dir, target, ec);
  if (ec) {
    return Status(ErrorCode::KAFKA_STORAGE_ERROR,
                  fmt::format("cannot rename {}: {}", dir.string(), ec.message()));
  }
  return target;
}

void remove_dir(const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) MIRRA_LOG_WARN("cannot delete {}: {}", dir.string(), ec.message());
}

// Closes a deleted partition's log on its shard and deletes its directory. Queued behind every
// job already posted for the partition, so none of them loses its log.
asio::awaitable<void> close_and_delete(ShardPool& shards, std::shared_ptr<Partition> p,
                                       fs::path dir) {
  co_await run_on(shards.executor(p->shard), [&]() {
    MIRRA_ASSERT(shards.on_shard(p->shard), "{}-{} removed off its shard", p->topic, p->index);
    if (p->log) {
      if (Status s = p->log->close(); !s.ok()) MIRRA_LOG_WARN("{}", s.message());
      p->log.reset();
    }
    auto moved = rename_aside(dir, p->topic_id, "delete");
    if (moved.ok()) remove_dir(moved.value());
  });
}

// Whether the last run stopped cleanly; the marker is removed (durably) before anything is
// opened, so that a crash of this run is not taken for a clean stop by the next one.
bool take_clean_shutdown_marker(const fs::path& log_dir) {
  const fs::path marker = log_dir / kCleanShutdownFile;
  std::error_code ec;
  if (!fs::exists(marker, ec)) {
    MIRRA_LOG_INFO("no clean-shutdown marker in {}: recovering logs above their recovery points",
                   log_dir.string());
    return false;
  }
  if (!fs::remove(marker, ec) || !storage::durable::fsync_dir(log_dir).ok()) {
    MIRRA_LOG_WARN("cannot remove {}: {}; recovering logs as after a crash", marker.string(),
                   ec ? ec.message() : "fsync of the directory failed");
    return false;
  }
  return true;
}

// Writes the marker once every log is closed and checkpointed (shutdown()).
void leave_clean_shutdown_marker(const fs::path& log_dir) {
  const fs::path marker = log_dir / kCleanShutdownFile;
  if (Status s = storage::durable::write_file_atomically(marker, {}); !s.ok()) {
    MIRRA_LOG_WARN("cannot write {}: {}; the next start recovers the logs", marker.string(),
                   s.message());
  }
}

struct OpenedLog {
  Status status;
  PartitionOffsets offsets;
  size_t recovered_segments = 0;
};

// On the partition's shard: opens its log and records the topic id, unless partition.metadata
// already holds it (a clean start writes nothing in the partition directories).
OpenedLog open_log(Partition& p, const fs::path& dir, const storage::LogConfig& config,
                   const storage::LogOpenOptions& options) {
  auto log = storage::PartitionLog::open(dir, config, options);
  if (!log.ok()) return {log.status(), {}};
  auto recorded = storage::read_partition_metadata(dir);
  if (!recorded.ok() || !recorded.value() || *recorded.value() != p.topic_id) {
    if (Status s = storage::write_partition_metadata(dir, p.topic_id); !s.ok()) return {s, {}};
  }
  p.log = std::move(log.value());
  return {Status::OK(), offsets_of(*p.log), p.log->recovered_segments()};
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

PartitionOffsets offsets_of(const storage::PartitionLog& log) {
  return PartitionOffsets{log.log_start_offset(), log.high_watermark(), log.last_stable_offset(),
                          log.log_end_offset(), log.size_bytes()};
}

void Partition::wake_waiters() {
  for (auto& w : waiters_) {
    if (auto t = w.lock()) t->cancel();
  }
  waiters_.clear();
}

PartitionManager::PartitionManager(asio::any_io_executor core, ShardPool& shards,
                                   PartitionManagerOptions options)
    : core_(core),
      shards_(shards),
      options_(std::move(options)),
      housekeeping_timer_(core),
      checkpoint_timer_(core),
      health_(std::make_shared<LogDirHealth>(options_.log_dir)) {}

void PartitionManager::set_read_only_check(ReadOnlyCheck check) {
  MIRRA_ASSERT_OWNER(owner_);
  read_only_check_ = std::move(check);
}

LogWriter PartitionManager::take_mirror_writer() {
  MIRRA_ASSERT_OWNER(owner_);
  MIRRA_ASSERT(!mirror_writer_taken_, "the mirror's log writer is made once per manager");
  mirror_writer_taken_ = true;
  return LogWriter(LogWriter::Kind::mirror);
}

fs::path PartitionManager::dir_of(const Partition& p) const {
  return options_.log_dir / storage::partition_dir_name({p.topic, p.index});
}

Result<storage::LogConfig> PartitionManager::log_config_for(
    const metadata::TopicInfo& topic) const {
  return build_log_config(topic.configs, options_.broker);
}

std::shared_ptr<Partition> PartitionManager::find(std::string_view topic, int32_t index) const {
  MIRRA_ASSERT_OWNER(owner_);
  auto it = topics_.find(topic);
  if (it == topics_.end() || index < 0 || static_cast<size_t>(index) >= it->second.size()) {
    return nullptr;
  }
  return it->second[static_cast<size_t>(index)];
}

size_t PartitionManager::partition_count() const {
  MIRRA_ASSERT_OWNER(owner_);
  size_t n = 0;
  for (const auto& [name, parts] : topics_) n += parts.size();
  return n;
}

// Start-up clean-up, before any log is open: finishes interrupted deletions and moves aside
// directories that belong to no topic of the image (or to an older topic of the same name).
void PartitionManager::clean_log_dir(const metadata::MetadataImage& image) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(options_.log_dir, ec)) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    if (ends_with(name, "-delete")) {
      MIRRA_LOG_INFO("finishing the deletion of {}", name);
      remove_dir(entry.path());
      continue;
    }
    if (ends_with(name, "-stray")) continue;
    auto tp = storage::parse_partition_dir_name(name);
    // Not a partition directory, or the metadata log (metadata/metadata_log.h).
    if (!tp || tp->topic.rfind("__cluster_metadata", 0) == 0) continue;
    const metadata::TopicInfo* topic = image.topic(tp->topic);
    auto id = storage::read_partition_metadata(entry.path());
    const bool belongs = topic != nullptr && tp->partition >= 0 &&
                         static_cast<size_t>(tp->partition) < topic->partitions.size() && id.ok() &&
                         (!id.value() || *id.value() == topic->id);
    if (belongs) continue;
    const Uuid stray_id = id.ok() && id.value() ? *id.value() : Uuid::random();
    auto moved = rename_aside(entry.path(), stray_id, "stray");
    if (moved.ok()) {
      MIRRA_LOG_WARN("{} belongs to no current topic: moved to {}", name,
                     moved.value().filename().string());
    } else {
      MIRRA_LOG_WARN("{}", moved.status().message());
    }
  }
}

asio::awaitable<void> PartitionManager::open_all(const metadata::MetadataImage& image) {
  MIRRA_ASSERT_OWNER(owner_);
  const auto started = std::chrono::steady_clock::now();
  clean_log_dir(image);
  const bool clean = take_clean_shutdown_marker(options_.log_dir);
  opened_clean_ = clean;
  auto recovery =
      storage::read_offset_checkpoint(options_.log_dir / storage::kRecoveryPointCheckpoint);
  auto starts = storage::read_offset_checkpoint(options_.log_dir / storage::kLogStartCheckpoint);
  if (!recovery.ok()) MIRRA_LOG_WARN("{}; recovering every partition", recovery.status().message());
  if (!starts.ok()) MIRRA_LOG_WARN("{}", starts.status().message());
  std::vector<OpenJob> jobs;
  for (const auto& [name, topic] : image.topics()) {
    auto config = log_config_for(topic);
    for (const metadata::PartitionInfo& pi : topic.partitions) {
      auto p = std::make_shared<Partition>(name, topic.id, pi.partition,
                                           shards_.shard_for(topic.id, pi.partition));
      p->leader_epoch = pi.leader_epoch;
      topics_[name].push_back(p);
      if (!config.ok()) {
        p->offline_reason = config.status().message();
        continue;
      }
      storage::LogOpenOptions opts;
      opts.clean_shutdown = clean;
      const storage::TopicPartition tp{name, pi.partition};
      if (recovery.ok()) {
        if (auto it = recovery->find(tp); it != recovery->end()) opts.recovery_point = it->second;
      }
      if (starts.ok()) {
        if (auto it = starts->find(tp); it != starts->end()) opts.log_start_offset = it->second;
      }
      jobs.push_back({p, config.value(), opts});
    }
  }
  const OpenSummary summary = co_await open_partitions(std::move(jobs));
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  MIRRA_LOG_INFO(
      "opened {} partition(s) of {} topic(s) in {} in {} ms after {} shutdown: {} segment(s) of "
      "{} partition(s) recovered, {} offline; at most {} log files open",
      partition_count(), topics_.size(), options_.log_dir.string(), took.count(),
      clean ? "a clean" : "an unclean", summary.recovered_segments, summary.recovered_partitions,
      summary.failed, storage::FileCache::instance().capacity());
}

asio::awaitable<PartitionManager::OpenSummary> PartitionManager::open_partitions(
    std::vector<OpenJob> jobs) {
  std::vector<std::shared_ptr<Pending<OpenedLog>>> pending;
  pending.reserve(jobs.size());
  for (const OpenJob& job : jobs) {
    auto done = std::make_shared<Pending<OpenedLog>>(core_);
    pending.push_back(done);
    asio::post(shards_.executor(job.partition->shard), [this, job, done] {
      Partition& p = *job.partition;
      MIRRA_ASSERT(shards_.on_shard(p.shard), "{}-{} opened off its shard", p.topic, p.index);
      OpenedLog opened = open_log(p, dir_of(p), job.config, job.options);
      asio::post(core_,
                 [done, opened = std::move(opened)]() mutable { done->set(std::move(opened)); });
    });
  }
  OpenSummary summary;
  for (size_t i = 0; i < pending.size(); ++i) {
    OpenedLog opened = co_await pending[i]->wait();
    Partition& p = *jobs[i].partition;
    if (!opened.status.ok()) {
      p.offline_reason = opened.status.message();
      MIRRA_LOG_ERROR("partition {}-{} is offline: {}", p.topic, p.index, p.offline_reason);
      if (summary.failed++ == 0) {
        summary.first_failure = Status(ErrorCode::KAFKA_STORAGE_ERROR, p.offline_reason);
      }
      continue;
    }
    p.offsets = opened.offsets;
    summary.recovered_segments += opened.recovered_segments;
    if (opened.recovered_segments > 0) ++summary.recovered_partitions;
  }
  co_return summary;
}

bool PartitionManager::nothing_to_read(const Partition& p, int64_t offset, storage::ReadBound bound,
                                       int64_t max_bytes) const {
  MIRRA_ASSERT_OWNER(owner_);
  if (p.removed || !p.online() || health_->offline()) return false;
  const PartitionOffsets& o = p.offsets;
  if (offset < o.log_start || offset > o.log_end) return false;
  if (max_bytes <= 0) return true;
  const int64_t limit = bound == storage::ReadBound::last_stable_offset ? o.last_stable
                                                                        : o.high_watermark;
  return offset >= limit;
}

asio::awaitable<Status> PartitionManager::add_partitions(const metadata::TopicInfo& topic) {
  MIRRA_ASSERT_OWNER(owner_);
  auto config = log_config_for(topic);
  auto& parts = topics_[topic.name];
  std::vector<OpenJob> jobs;
  for (size_t i = parts.size(); i < topic.partitions.size(); ++i) {
    const int32_t index = static_cast<int32_t>(i);
    auto p = std::make_shared<Partition>(topic.name, topic.id, index,
                                         shards_.shard_for(topic.id, index));
    p->leader_epoch = topic.partitions[i].leader_epoch;
    parts.push_back(p);
    if (!config.ok()) {
      p->offline_reason = config.status().message();
      continue;
    }
    jobs.push_back({p, config.value(), {}});
  }
  if (!config.ok()) co_return Status(ErrorCode::KAFKA_STORAGE_ERROR, config.status().message());
  const size_t count = jobs.size();
  const OpenSummary summary = co_await open_partitions(std::move(jobs));
  if (summary.failed == 0) co_return Status::OK();
  co_return Status(ErrorCode::KAFKA_STORAGE_ERROR,
                   fmt::format("{} of the {} new partition(s) of {} could not be opened and are "
                               "offline: {}",
                               summary.failed, count, topic.name, summary.first_failure.message()));
}

asio::awaitable<void> PartitionManager::reconfigure(const metadata::TopicInfo& topic) {
  MIRRA_ASSERT_OWNER(owner_);
  auto config = log_config_for(topic);
  if (!config.ok()) {
    MIRRA_LOG_ERROR("topic {}: new config not applied: {}", topic.name, config.status().message());
    co_return;
  }
  auto it = topics_.find(topic.name);
  if (it == topics_.end()) co_return;
  // A copy: the topic can be removed (or grow) while a job is awaited.
  const std::vector<std::shared_ptr<Partition>> parts = it->second;
  for (const auto& p : parts) {
    // An offline or deleted partition has no log to reconfigure; it gets the config when
    // it is opened again.
    Status ignored = co_await run_upkeep(p, [&](storage::PartitionLog& log) -> Status {
      log.update_config(config.value());
      return Status::OK();
    });
    (void)ignored;
  }
}

asio::awaitable<void> PartitionManager::remove_topic(const std::string& topic) {
  MIRRA_ASSERT_OWNER(owner_);
  auto it = topics_.find(topic);
  if (it == topics_.end()) co_return;
  std::vector<std::shared_ptr<Partition>> parts = std::move(it->second);
  topics_.erase(it);
  // Every shard at once: closing a log flushes it, and one partition after the other a topic
  // of 1,000 partitions took half a minute to delete.
  std::vector<asio::awaitable<void>> removals;
  for (auto& p : parts) {
    p->removed = true;
    p->wake_waiters();
    removals.push_back(close_and_delete(shards_, p, dir_of(*p)));
  }
  co_await when_all(std::move(removals));
}

void PartitionManager::start_housekeeping() {
  MIRRA_ASSERT_OWNER(owner_);
  asio::co_spawn(core_, housekeeping_loop(), asio::detached);
  asio::co_spawn(core_, checkpoint_loop(), asio::detached);
}

asio::awaitable<void> PartitionManager::housekeeping_loop() {
  while (!stopping_) {
    housekeeping_timer_.expires_after(options_.retention_check_interval);
    asio::error_code ec;
    co_await housekeeping_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (stopping_) break;
    co_await apply_retention_all();
  }
}

asio::awaitable<void> PartitionManager::apply_retention_all() {
  MIRRA_ASSERT_OWNER(owner_);
  std::vector<std::shared_ptr<Partition>> all;
  for (const auto& [name, parts] : topics_) all.insert(all.end(), parts.begin(), parts.end());
  for (auto& p : all) {
    if (stopping_) break;
    Status s = co_await run_upkeep(p, [](storage::PartitionLog& log) -> Status {
      const int64_t now = now_ms();
      // Compaction runs on the shard for now: it blocks this shard's other partitions while
      // it works (compaction.h offers a three-step API for a separate cleaner thread).
      if (log.config().cleanup_compact) return log.compact(now);
      return log.apply_retention(now);
    });
    if (!s.ok() && s.code() != ErrorCode::UNKNOWN_TOPIC_OR_PARTITION &&
        s.code() != ErrorCode::KAFKA_STORAGE_ERROR) {
      MIRRA_LOG_WARN("housekeeping of {}-{}: {}", p->topic, p->index, s.message());
    }
  }
}

asio::awaitable<void> PartitionManager::checkpoint_loop() {
  while (!stopping_) {
    checkpoint_timer_.expires_after(options_.checkpoint_interval);
    asio::error_code ec;
    co_await checkpoint_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (stopping_) break;
    if (Status s = co_await write_checkpoints(); !s.ok()) MIRRA_LOG_WARN("{}", s.message());
  }
}

asio::awaitable<Status> PartitionManager::write_checkpoints() {
  MIRRA_ASSERT_OWNER(owner_);
  struct Points {
    int64_t recovery_point;
    int64_t log_start;
  };
  // Every job posted first, then awaited: topics_ is not iterated across an await (a topic
  // deleted meanwhile would pull its entry from under the loop), and the shards answer
  // side by side. A partition deleted meanwhile answers UNKNOWN_TOPIC_OR_PARTITION: left out.
  std::vector<std::pair<std::shared_ptr<Partition>, std::shared_ptr<Pending<Result<Points>>>>>
      asked;
  for (const auto& [name, parts] : topics_) {
    for (const auto& p : parts) {
      asked.emplace_back(p, start(p, [](const storage::PartitionLog& log) -> Result<Points> {
                           return Points{log.recovery_point(), log.log_start_offset()};
                         }));
    }
  }
  storage::OffsetCheckpoint recovery;
  storage::OffsetCheckpoint starts;
  for (auto& [p, pending] : asked) {
    const Result<Points> points = co_await pending->wait();
    if (!points.ok()) continue;
    recovery[{p->topic, p->index}] = points->recovery_point;
    starts[{p->topic, p->index}] = points->log_start;
  }
  const fs::path dir = options_.log_dir;
  co_return co_await run_on(shards_.executor(0), [&]() -> Status {
    if (Status s =
            storage::write_offset_checkpoint(dir / storage::kRecoveryPointCheckpoint, recovery);
        !s.ok()) {
      return s;
    }
    return storage::write_offset_checkpoint(dir / storage::kLogStartCheckpoint, starts);
  });
}

asio::awaitable<void> PartitionManager::shutdown() {
  MIRRA_ASSERT_OWNER(owner_);
  stopping_ = true;
  housekeeping_timer_.cancel();
  checkpoint_timer_.cancel();
  // Posted to every shard at once; awaited in order.
  std::vector<std::pair<std::shared_ptr<Partition>, std::shared_ptr<Pending<Status>>>> closing;
  for (auto& [name, parts] : topics_) {
    for (auto& p : parts) {
      closing.emplace_back(p, post<storage::PartitionLog>(
                                  p, [](storage::PartitionLog& log) { return log.close(); }));
    }
  }
  // An offline partition was never opened (recovered) by this run: the next one must look at
  // it again, so any failure means no marker.
  bool clean = true;
  for (auto& [p, pending] : closing) {
    Status s = co_await pending->wait();
    clean = clean && s.ok();
    if (!s.ok() && s.code() != ErrorCode::KAFKA_STORAGE_ERROR) {
      MIRRA_LOG_WARN("closing {}-{}: {}", p->topic, p->index, s.message());
    }
  }
  if (Status s = co_await write_checkpoints(); !s.ok()) {
    MIRRA_LOG_WARN("{}", s.message());
    clean = false;
  }
  for (auto& [name, parts] : topics_) {
    for (auto& p : parts) p->removed = true;
  }
  if (clean) leave_clean_shutdown_marker(options_.log_dir);
}

}  // namespace mirra::cluster
