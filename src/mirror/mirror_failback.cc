// MirrorManager's restart of a topic that already exists here with the source's topic id
// (docs/mirroring-design.md §6): a STOPPED topic of this mirror mirrored again after a failover, or
// the original topic of the cluster that was the source before a failover (failback). Nothing is
// truncated before the loop check has passed. From the first change to the last the topic is
// read-only (restarting_topics_), and the transactions open on it are ended before anything is
// truncated: a producer must not commit records the truncation dropped.
#include <fmt/format.h>

#include "base/log.h"
#include "mirror/mirror_admin.h"
#include "mirror/mirror_manager.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

// Holds a topic in a set for the scope's lifetime.
class ScopedMember {
 public:
  ScopedMember(std::set<std::string, std::less<>>& set, std::string name)
      : set_(set), name_(std::move(name)) {
    set_.insert(name_);
  }
  ScopedMember(const ScopedMember&) = delete;
  ScopedMember& operator=(const ScopedMember&) = delete;
  ~ScopedMember() { set_.erase(name_); }

 private:
  std::set<std::string, std::less<>>& set_;
  std::string name_;
};

}  // namespace

asio::awaitable<Status> MirrorManager::check_no_loop(MirrorRunner& runner,
                                                     const std::string& topic) {
  // Named, not a braced list inside co_await: g++ 12 miscompiles those.
  std::optional<std::vector<std::string>> names(std::in_place, 1, topic);
  auto listed = co_await runner.source().list_mirrors(true, std::move(names));
  if (!listed.ok()) {
    // A source that is not Mirra has no mirrors, so no loop; anything else must not truncate.
    if (listed.status().code() == ErrorCode::UNSUPPORTED_VERSION) co_return Status::OK();
    co_return Status(
        listed.status().code(),
        fmt::format("cannot check the source for a mirroring loop: {}", listed.status().message()));
  }
  for (const client::MirrorListing& m : listed.value()) {
    for (const client::MirrorTopicListing& t : m.topics) {
      if (t.name == topic && t.state != static_cast<int8_t>(MirrorState::stopped)) {
        co_return Status(ErrorCode::INVALID_REQUEST,
                         fmt::format("topic {} on the source is itself mirrored by the source's "
                                     "mirror {}: mirroring it back would be a loop; fail it "
                                     "over there first",
                                     topic, m.name));
      }
    }
  }
  co_return Status::OK();
}

asio::awaitable<Result<PartitionRestart>> MirrorManager::truncate_for_restart(
    const metadata::TopicInfo& topic, int32_t partition, int64_t point) {
  auto handle = partitions_.find(topic.name, partition);
  if (handle == nullptr) {
    co_return Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                     fmt::format("{}-{} is not open", topic.name, partition));
  }
  auto done = co_await partitions_.run_write(
      handle, writer_, [point](storage::PartitionLog& log) -> Result<PartitionRestart> {
        PartitionRestart r;
        const int64_t end = log.log_end_offset();
        Status s = point < log.log_start_offset() ? log.truncate_fully_and_start_at(point)
                                                  : log.truncate_to(point);
        if (!s.ok()) return s;
        r.truncated_to = log.log_end_offset();
        r.discarded = std::max<int64_t>(0, end - r.truncated_to);
        return r;
      });
  if (!done.ok()) co_return done.status();
  handle->wake_waiters();
  done->partition = partition;
  co_return done.value();
}

asio::awaitable<Status> MirrorManager::end_transactions_on(MirrorRunner& runner,
                                                           const std::string& topic,
                                                           const std::vector<int32_t>& partitions) {
  if (!end_transactions_) co_return Status::OK();
  const std::string why =
      fmt::format("topic {} is restarted as a mirror topic of mirror {}", topic, runner.name());
  // Named before the co_await (g++ 12, src/cluster/README.md).
  auto ending = end_transactions_(topic, partitions, why);
  Status s = co_await std::move(ending);
  if (s.ok()) co_return s;
  co_return Status(s.code(),
                   fmt::format("cannot end the transactions open on {}: {}", topic, s.message()));
}

asio::awaitable<AddedTopic> MirrorManager::restart_topic(MirrorRunner& runner,
                                                         const metadata::TopicInfo& topic,
                                                         const std::string& source_cluster_id) {
  AddedTopic out{topic.name, topic.id, Status::OK(), {}};
  if (Status s = co_await check_no_loop(runner, topic.name); !s.ok()) {
    out.status = s;
    co_return out;
  }
  std::vector<int32_t> partitions;
  for (const metadata::PartitionInfo& p : topic.partitions) partitions.push_back(p.partition);
  // What the source recorded when it failed over from us; unknown to a source that is not Mirra.
  auto theirs =
      co_await runner.source().last_mirrored_offsets(store_.cluster_id(), topic.id, partitions);
  // No client write lands between here and the PREPARING states that make the topic read-only
  // for good; a crash in between leaves it writable, as it was (the restart is asked again).
  const ScopedMember read_only(restarting_topics_, topic.name);
  if (Status s = co_await end_transactions_on(runner, topic.name, partitions); !s.ok()) {
    out.status = s;
    co_return out;
  }
  for (size_t i = 0; i < partitions.size(); ++i) {
    const MirrorStateKey key{topic.id, partitions[i]};
    int64_t point = theirs.ok() ? theirs.value()[i] : -1;
    if (point < 0) {
      const MirrorStateValue* mine = states_.get(key);
      if (mine != nullptr && mine->mirror == runner.name() && mine->last_mirrored_offset >= 0) {
        point = mine->last_mirrored_offset;  // our own failover of this mirror
      }
    }
    if (point < 0) point = 0;  // no LMO known: copy everything again
    auto restart = co_await truncate_for_restart(topic, partitions[i], point);
    if (!restart.ok()) {
      out.status = restart.status();
      co_return out;
    }
    MIRRA_LOG_INFO("mirror {}: restarting {}-{} at offset {} ({} offset(s) above it discarded)",
                   runner.name(), topic.name, partitions[i], restart->truncated_to,
                   restart->discarded);
    out.restarts.push_back(restart.value());
  }
  if (Status s = co_await topics_.set_mirror_name(topic.name, runner.name()); !s.ok()) {
    out.status = s;
    co_return out;
  }
  for (int32_t p : partitions) {
    Status s = co_await write_state({topic.id, p}, runner.name(), MirrorState::preparing, -1,
                                    source_cluster_id);
    if (!s.ok()) {
      out.status = s;
      co_return out;
    }
  }
  co_return out;
}

}  // namespace mirra::mirror
