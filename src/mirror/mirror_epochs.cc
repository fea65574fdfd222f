// MirrorRunner's comparison of a destination log with the source's by leader epochs
// (docs/mirroring-design.md §2.4), as Kafka's followers do it: when the source's leader epoch
// of a partition moved (an unclean restart of a Mirra source bumps it, a Kafka source moves it
// on every leader change), and once after the runner starts, the source is asked where the
// epoch of our last batch ends (OffsetForLeaderEpoch), and what we hold beyond that is cut
// before anything more is fetched. Otherwise a source that lost a tail and wrote as many new
// records would leave the two logs different at equal offsets with nothing to show it.
#include <algorithm>

#include <fmt/format.h>

#include "base/log.h"
#include "mirror/mirror_runner.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

}  // namespace

asio::awaitable<void> MirrorRunner::compare_epochs(std::vector<client::FetchPosition> due) {
  MIRRA_ASSERT_OWNER(owner_);
  std::vector<client::EpochQuery> queries;
  std::vector<client::FetchPosition> asked;
  std::vector<LogEpochs> ours;
  for (client::FetchPosition& pos : due) {
    auto epochs = co_await ctx_.sink.leader_epochs(pos.tp);
    if (!epochs.ok()) {
      const Status why = epochs.status();  // named, not a temporary inside co_await (g++ 12)
      co_await failed(pos.tp, why);
      continue;
    }
    if (epochs->entries.empty()) {  // no batch with an epoch here: nothing to compare
      status_[pos.tp].compared_source_epoch = pos.current_leader_epoch;
      continue;
    }
    // The epoch of our last batch, not the partition's: the partition's epoch is raised to
    // the highest mirrored one and may be above every batch we hold.
    queries.push_back({pos.tp, epochs->entries.back().epoch, -1});
    asked.push_back(std::move(pos));
    ours.push_back(std::move(epochs.value()));
  }
  if (queries.empty()) co_return;
  auto answers = co_await admin_->offset_for_leader_epoch(std::move(queries));
  if (!answers.ok()) {
    const Status why = answers.status();
    for (const client::FetchPosition& pos : asked) co_await comparison_failed(pos, why);
    co_return;
  }
  for (size_t i = 0; i < asked.size() && i < answers->size(); ++i) {
    const client::EpochEndOffset& answer = answers.value()[i];
    if (!answer.status.ok()) {
      co_await comparison_failed(asked[i], answer.status);
      continue;
    }
    auto matched = co_await truncate_at_divergence(asked[i].tp, ours[i], answer);
    if (!matched.ok()) {
      const Status why = matched.status();
      // INVALID_MIRROR_STATE: paused or failed over meanwhile, no failure of the partition.
      if (why.code() != ErrorCode::INVALID_MIRROR_STATE) co_await failed(asked[i].tp, why);
      continue;
    }
    if (matched.value()) status_[asked[i].tp].compared_source_epoch = asked[i].current_leader_epoch;
  }
}

asio::awaitable<Result<bool>> MirrorRunner::truncate_at_divergence(
    const client::TopicPartition& tp, const LogEpochs& here, const client::EpochEndOffset& source) {
  // UNDEFINED: the source knows no epoch at or below ours (a source that keeps no epochs, or
  // one whose log no longer reaches back that far). Nothing to compare: fetching on from our
  // log end, where a shorter source log still shows as OFFSET_OUT_OF_RANGE (§2.5).
  if (source.leader_epoch < 0 || source.end_offset < 0) co_return true;
  const auto [epoch_here, end_here] =
      storage::epoch_end_offset(here.entries, source.leader_epoch, here.log_end);
  // Kafka's follower rule: when we hold the source's epoch, the logs agree up to where it
  // ends on the side that ends first; when we do not, we agree at most up to where our last
  // epoch below it ends, and compare again from there.
  const bool same_epoch = epoch_here == source.leader_epoch;
  int64_t to = same_epoch ? std::min(end_here, source.end_offset) : end_here;
  to = std::min(to, here.log_end);
  if (to >= here.log_end || to < 0) co_return true;
  MIRRA_LOG_WARN(
      "mirror {}: {}: the source's leader epoch {} ends at {}; this log holds epoch {} up to "
      "{}: the logs differ from {}, discarding {} offset(s) above it",
      name_, client::to_string(tp), source.leader_epoch, source.end_offset, epoch_here, end_here,
      to, here.log_end - to);
  if (Status s = still_fetching(tp); !s.ok()) co_return s;
  Status cut;  // no co_await inside ?: (g++ 12)
  if (to < here.log_start) {
    cut = co_await ctx_.sink.restart_at(tp, to);
  } else {
    cut = co_await ctx_.sink.truncate_to(tp, to);
  }
  if (!cut.ok()) co_return cut;
  co_return same_epoch;
}

asio::awaitable<void> MirrorRunner::comparison_failed(const client::FetchPosition& pos,
                                                      const Status& s) {
  if (s.code() != ErrorCode::UNSUPPORTED_VERSION) {
    co_await failed(pos.tp, s);
    co_return;
  }
  if (!epochs_unsupported_logged_) {
    epochs_unsupported_logged_ = true;
    MIRRA_LOG_WARN(
        "mirror {}: the source does not support OffsetForLeaderEpoch: a source that lost a "
        "log tail and wrote as many new records cannot be told apart ({})",
        name_, s.message());
  }
  status_[pos.tp].compared_source_epoch = pos.current_leader_epoch;
}

}  // namespace mirra::mirror
