#include "mirror/mirror_sync.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/clock.h"
#include "base/log.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

}  // namespace

std::string_view to_string(SyncKind kind) {
  switch (kind) {
    case SyncKind::kTopics:
      return "topics";
    case SyncKind::kConfigs:
      return "configs";
    case SyncKind::kPartitions:
      return "partitions";
    case SyncKind::kGroups:
      return "groups";
    case SyncKind::kAcls:
      return "acls";
    case SyncKind::kShareGroups:
      return "share-groups";
  }
  return "unknown";
}

std::string sync_client_id(const std::string& mirror, int32_t node_id) {
  return fmt::format("mirra-mirror-{}-b{}-sync", mirror, node_id);
}

MirrorSync::MirrorSync(MirrorSyncContext ctx, std::string mirror, MirrorSettings settings,
                       std::unique_ptr<SyncSource> source)
    : ctx_(std::move(ctx)),
      mirror_(std::move(mirror)),
      settings_(std::move(settings)),
      source_(std::move(source)),
      wakeup_(ctx_.core, SteadyTime::max()),
      exited_(ctx_.core, SteadyTime::max()) {
  if (!ctx_.wall_ms) ctx_.wall_ms = [] { return now_ms(); };
  if (!ctx_.now) ctx_.now = [] { return std::chrono::steady_clock::now(); };
  MIRRA_ASSERT(source_ != nullptr, "mirror {}: a sync needs a source", mirror_);
}

void MirrorSync::start() {
  MIRRA_ASSERT_OWNER(owner_);
  MIRRA_ASSERT(!running_ && !stopping_, "mirror {}: the sync was started twice", mirror_);
  running_ = true;
  asio::co_spawn(
      ctx_.core, [self = shared_from_this()]() { return self->loop(); }, asio::detached);
}

void MirrorSync::stop() {
  MIRRA_ASSERT_OWNER(owner_);
  stopping_ = true;
  wakeup_.cancel();
  source_->close();
}

asio::awaitable<void> MirrorSync::stopped() {
  if (!running_) co_return;
  asio::error_code ec;
  co_await exited_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

void MirrorSync::wake() {
  // Moved into the past, also while no round waits: such a wake is not lost.
  wakeup_.expires_at(SteadyTime::min());
}

asio::awaitable<void> MirrorSync::loop() {
  MIRRA_ASSERT_OWNER(owner_);
  while (!stopping_) {
    co_await run_round();
    if (stopping_) break;
    if (wakeup_.expiry() == SteadyTime::min()) {  // woken during the round: again at once
      wakeup_.expires_at(SteadyTime::max());
      continue;
    }
    wakeup_.expires_after(ctx_.interval);
    asio::error_code ec;
    co_await wakeup_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    wakeup_.expires_at(SteadyTime::max());
  }
  running_ = false;
  exited_.cancel();
}

asio::awaitable<void> MirrorSync::run_round() {
  MIRRA_ASSERT_OWNER(owner_);
  // One Metadata call for the round: the topic, config and partition syncs all work from it.
  round_metadata_ = co_await source_->metadata(std::nullopt);
  round_groups_.reset();  // listed by the first group kind that needs it (select_groups())
  // Each kind is awaited alone and recorded alone: one kind's failure never skips another.
  for (SyncKind kind : kSyncKinds) {
    if (stopping_) co_return;
    const SteadyTime began = now();
    SyncRound round;
    // Topics, configs and partitions work from the round's Metadata: without it they are not
    // run, and its error is theirs (describe shows it per kind). Groups, share groups and ACLs
    // need none.
    const bool needs_metadata = kind == SyncKind::kTopics || kind == SyncKind::kConfigs ||
                                kind == SyncKind::kPartitions;
    if (needs_metadata && !round_metadata_.ok()) {
      round.status = Status(round_metadata_.status().code(),
                            "the source's Metadata failed: " + round_metadata_.status().message());
      record(kind, round, began);
      continue;
    }
    switch (kind) {
      case SyncKind::kTopics:
        round = co_await sync_topics();
        break;
      case SyncKind::kConfigs:
        round = co_await sync_configs();
        break;
      case SyncKind::kPartitions:
        round = co_await sync_partitions();
        break;
      case SyncKind::kGroups:
        round = co_await sync_groups();
        break;
      case SyncKind::kShareGroups:
        round = co_await sync_share_groups();
        break;
      case SyncKind::kAcls:
        round = co_await sync_acls();
        break;
    }
    if (stopping_) co_return;  // a cancelled call is not the source's failure
    record(kind, round, began);
  }
}

std::vector<SinkTopic> MirrorSync::synced_topics() const {
  std::vector<SinkTopic> out;
  for (SinkTopic& t : ctx_.sink.topics(mirror_)) {
    const bool synced = std::none_of(t.partitions.begin(), t.partitions.end(), [&](int32_t p) {
      const MirrorStateValue* v = ctx_.sink.state({t.id, p});
      if (v == nullptr) return false;
      const auto state = static_cast<MirrorState>(v->state);
      return state == MirrorState::paused || state == MirrorState::stopping ||
             state == MirrorState::stopped;
    });
    if (synced) out.push_back(std::move(t));
  }
  return out;
}

void MirrorSync::record(SyncKind kind, const SyncRound& round, SteadyTime began) {
  SyncKindStatus& st = status_.of(kind);
  const int64_t at = wall_ms();
  ++st.runs;
  st.last_run_ms = at;
  st.last_duration_us =
      std::chrono::duration_cast<std::chrono::microseconds>(now() - began).count();
  st.looked_at = round.looked_at;
  st.changed = round.changed;
  st.changed_total += round.changed;
  if (round.status.ok()) {
    st.last_success_ms = at;
    if (!st.last_error.ok()) {
      MIRRA_LOG_INFO("mirror {}: the {} sync works again", mirror_, to_string(kind));
    }
    st.last_error = Status::OK();
    return;
  }
  ++st.failures;
  // One log line per change of the error, not one per round.
  if (st.last_error.code() != round.status.code() ||
      st.last_error.message() != round.status.message()) {
    MIRRA_LOG_WARN("mirror {}: the {} sync failed: {}", mirror_, to_string(kind),
                   round.status.message());
  }
  st.last_error = round.status;
  st.last_error_ms = at;
}

}  // namespace mirra::mirror
