// MirrorRunner's handling of one partition's fetch answer (docs/mirroring-design.md §2, §3): the
// copy of its batches, the log start, an out-of-range position, the leader-epoch invariant, and the
// state transitions of success and failure.
#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "base/clock.h"
#include "base/failpoint.h"
#include "base/log.h"
#include "mirror/mirror_admin.h"
#include "mirror/mirror_failure.h"
#include "mirror/mirror_runner.h"
#include "protocol/records/record_set.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

struct MirroredBatches {
  std::span<const uint8_t> bytes;  // the complete batches, rewritten
  int64_t first_offset = -1;
  int32_t max_leader_epoch = -1;
  int64_t records = 0;
  int64_t max_timestamp = -1;
};

// The complete batches of a fetched record set with every producer id rewritten (§2) in place,
// in the fetch response's own buffer: no copy. The CRC is patched, not recomputed, so a corrupt
// source batch stays corrupt and the append's validation refuses it (CORRUPT_MESSAGE). A batch
// the fetch limit cut short is left for the next fetch.
Result<MirroredBatches> rewrite_in_place(std::span<uint8_t> fetched) {
  MirroredBatches out;
  records::RecordSetIterator it(fetched);
  records::BatchView batch;
  size_t end = 0;
  for (;;) {
    const records::RecordSetStep step = it.next(batch);
    if (step == records::RecordSetStep::error) return it.status();
    if (step != records::RecordSetStep::batch) break;
    const size_t at = static_cast<size_t>(batch.bytes().data() - fetched.data());
    if (out.first_offset < 0) out.first_offset = batch.base_offset();
    out.max_leader_epoch = std::max(out.max_leader_epoch, batch.partition_leader_epoch());
    out.records += batch.record_count();
    out.max_timestamp = std::max(out.max_timestamp, batch.max_timestamp());
    if (Status s = records::rewrite_producer_id(fetched.subspan(at, batch.size())); !s.ok()) {
      return s;
    }
    end = at + batch.size();
  }
  out.bytes = fetched.first(end);
  return out;
}

// What still_fetching() answers when a partition was paused or failed over while its answer
// was being handled: the answer is dropped, which is no failure of the partition.
constexpr ErrorCode kNotFetchedAnyMore = ErrorCode::INVALID_MIRROR_STATE;

MirrorStateValue next_state(const MirrorStateValue& v, MirrorState state) {
  MirrorStateValue next = v;
  if (v.state != static_cast<int8_t>(state)) next.previous_state = v.state;
  next.state = static_cast<int8_t>(state);
  return next;
}

}  // namespace

asio::awaitable<bool> MirrorRunner::apply(const client::FetchedPartition& f, int64_t asked_offset) {
  MIRRA_ASSERT_OWNER(owner_);
  const std::optional<SinkLog> log = ctx_.sink.log(f.tp);
  if (!log) co_return false;  // removed meanwhile
  // Paused or failed over while the fetch was out: nothing may land now (§5 step 2).
  if (!fetching({log->topic_id, f.tp.partition})) co_return false;
  // A pipelined request asked where the previous answer ended; that answer did not land whole
  // (an error, a truncation, a moved log start), so this one belongs nowhere. append_mirrored
  // would take it, as gaps are legal mirrored offsets; dropped, it is asked again at the log end.
  if (asked_offset != log->log_end) co_return false;
  Status s = f.status;
  if (s.code() == ErrorCode::OFFSET_OUT_OF_RANGE) {
    s = co_await realign(*log, f.tp);
    if (s.code() == kNotFetchedAnyMore) co_return false;
    if (s.ok()) {
      co_await succeeded(f.tp);
      co_return false;  // the log moved: asked again where it now ends
    }
  } else if (s.ok()) {
    s = co_await copy(*log, f);
  }
  if (s.code() == kNotFetchedAnyMore) co_return false;  // paused or failed over meanwhile
  if (s.ok()) {
    co_await succeeded(f.tp);
  } else {
    co_await failed(f.tp, s);
  }
  co_return s.ok();
}

bool MirrorRunner::handled_idle(const client::FetchedPartition& f, int64_t asked_offset) {
  MIRRA_ASSERT_OWNER(owner_);
  if (!f.status.ok() || !f.records.empty()) return false;
  const std::optional<SinkLog> log = ctx_.sink.log(f.tp);
  if (!log || asked_offset != log->log_end || f.log_start_offset > log->log_start) return false;
  const MirrorStateValue* v = ctx_.sink.state({log->topic_id, f.tp.partition});
  if (v == nullptr || static_cast<MirrorState>(v->state) != MirrorState::mirroring) return false;
  PartitionMirrorStatus& st = status_[f.tp];
  if (!st.last_error.ok()) return false;
  // What copy() and succeeded() would do with it: note the source's offsets, clear any backoff.
  st.source_high_watermark = f.high_watermark;
  st.source_log_start = f.log_start_offset;
  st.pipeline.succeeded();
  st.pipeline.answer_handled(true);
  return true;
}

Status MirrorRunner::still_fetching(const client::TopicPartition& tp) const {
  const std::optional<Uuid> id = ctx_.sink.topic_id(tp.topic);
  if (id && fetching({*id, tp.partition})) return Status::OK();
  return Status(kNotFetchedAnyMore,
                fmt::format("{} was paused or failed over meanwhile", client::to_string(tp)));
}

asio::awaitable<Status> MirrorRunner::copy(const SinkLog& log, const client::FetchedPartition& f) {
  PartitionMirrorStatus& st = status_[f.tp];
  st.source_high_watermark = f.high_watermark;
  st.source_log_start = f.log_start_offset;
  if (Status s = co_await append(log, f); !s.ok()) co_return s;
  co_return co_await follow_log_start(f.tp, f.log_start_offset);
}

asio::awaitable<Status> MirrorRunner::append(const SinkLog& log,
                                             const client::FetchedPartition& f) {
  if (f.records.empty()) co_return Status::OK();
  auto batches = rewrite_in_place(f.writable_records());
  if (!batches.ok()) co_return batches.status();
  if (batches->bytes.empty()) co_return Status::OK();
  if (failpoints_active()) {  // tests: a storage error of this partition's appends
    Status injected = failpoint(fmt::format("mirror.append.{}-{}", f.tp.topic, f.tp.partition));
    if (!injected.ok()) co_return injected;
  }
  // We fetched at our log end, which is a batch boundary once we hold a batch (an empty log
  // may start inside a source batch, after DeleteRecords there). A source batch that starts
  // below it means the source's log no longer matches ours from there (it lost its tail and
  // wrote anew): what we hold from that offset on is not the source's any more.
  const bool holds_batches = log.log_end > log.log_start;
  if (holds_batches && batches->first_offset < log.log_end &&
      batches->first_offset >= log.log_start) {
    const int64_t from = batches->first_offset;
    MIRRA_LOG_WARN(
        "mirror {}: {}: the source's batch at {} starts below this log's end {}; "
        "the source's log changed there: discarding {} offset(s) from {}",
        name_, client::to_string(f.tp), from, log.log_end, log.log_end - from, from);
    if (Status s = still_fetching(f.tp); !s.ok()) co_return s;
    if (Status cut = co_await ctx_.sink.truncate_to(f.tp, from); !cut.ok()) co_return cut;
  }
  // The epoch first: a consumer that sees the batches must find the partition's epoch at or
  // above theirs (KIP-320 validation on the destination).
  if (Status s = co_await raise_leader_epoch(f.tp, batches->max_leader_epoch); !s.ok()) {
    co_return s;
  }
  // The sink keeps the response buffer alive until the append is done.
  if (Status s = still_fetching(f.tp); !s.ok()) co_return s;
  if (Status s = co_await ctx_.sink.append(f.tp, batches->bytes, f.buffer); !s.ok()) co_return s;
  PartitionMirrorStatus& st = status_[f.tp];
  const int64_t now = steady_ms();
  st.bytes.add(static_cast<int64_t>(batches->bytes.size()), now);
  st.records.add(batches->records, now);
  st.bytes_total += static_cast<int64_t>(batches->bytes.size());
  st.records_total += batches->records;
  st.newest_mirrored_timestamp = std::max(st.newest_mirrored_timestamp, batches->max_timestamp);
  co_return Status::OK();
}

asio::awaitable<Status> MirrorRunner::raise_leader_epoch(const client::TopicPartition& tp,
                                                         int32_t mirrored_epoch) {
  const std::optional<SinkLog> log = ctx_.sink.log(tp);
  if (!log || mirrored_epoch <= log->leader_epoch) co_return Status::OK();
  MIRRA_LOG_INFO("mirror {}: {}: leader epoch raised from {} to the mirrored {}", name_,
                 client::to_string(tp), log->leader_epoch, mirrored_epoch);
  co_return co_await ctx_.sink.raise_leader_epoch(tp, mirrored_epoch);
}

asio::awaitable<Status> MirrorRunner::follow_log_start(const client::TopicPartition& tp,
                                                       int64_t source_log_start) {
  const std::optional<SinkLog> log = ctx_.sink.log(tp);  // after the append
  if (!log || source_log_start <= log->log_start) co_return Status::OK();
  if (Status s = still_fetching(tp); !s.ok()) co_return s;
  if (source_log_start > log->log_end) {
    co_return co_await ctx_.sink.restart_at(tp, source_log_start);
  }
  co_return co_await ctx_.sink.advance_log_start(tp, source_log_start);
}

asio::awaitable<Status> MirrorRunner::realign(const SinkLog& log,
                                              const client::TopicPartition& tp) {
  // Named, not a braced list inside co_await: g++ 12 miscompiles those.
  std::vector<client::OffsetQuery> query{{tp, client::kEarliestTimestamp},
                                         {tp, client::kLatestTimestamp}};
  auto range = co_await admin_->list_offsets(std::move(query));
  if (!range.ok()) co_return range.status();
  for (const client::PartitionOffset& o : range.value()) {
    if (!o.status.ok()) co_return o.status;
  }
  const int64_t start = range->at(0).offset;
  const int64_t end = range->at(1).offset;
  const int64_t here = log.log_end;
  if (Status s = still_fetching(tp); !s.ok()) co_return s;
  if (here > end) {
    // The source lost its tail (an unclean restart of a source without replicas): what it no
    // longer has cannot stay here either, or the offsets would differ from now on.
    MIRRA_LOG_WARN(
        "mirror {}: {}: the source ends at {}, below this log's end {}; discarding "
        "{} offset(s) above it",
        name_, client::to_string(tp), end, here, here - end);
    co_return co_await ctx_.sink.truncate_to(tp, end);
  }
  if (here < start) {
    MIRRA_LOG_INFO(
        "mirror {}: {}: offset {} is below the source's log start; restarting at "
        "{}",
        name_, client::to_string(tp), here, start);
    co_return co_await ctx_.sink.restart_at(tp, start);
  }
  co_return Status::OK();  // in range again (the source moved meanwhile): fetch once more
}

asio::awaitable<void> MirrorRunner::succeeded(const client::TopicPartition& tp) {
  PartitionMirrorStatus& st = status_[tp];
  st.pipeline.succeeded();
  st.last_error = Status::OK();
  const std::optional<Uuid> id = ctx_.sink.topic_id(tp.topic);
  if (!id) co_return;
  const MirrorStateKey key{*id, tp.partition};
  const MirrorStateValue* v = ctx_.sink.state(key);
  if (v == nullptr) co_return;
  const auto state = static_cast<MirrorState>(v->state);
  if (state != MirrorState::preparing && state != MirrorState::failed) co_return;
  // A permanent failure written while this answer was handled (the topics sync's
  // fail_for_good) wins: such a partition is never fetched, so no answer recovers it.
  if (state == MirrorState::failed && permanent_cause(error_from_number(v->last_error_code))) {
    co_return;
  }
  MirrorStateValue next = next_state(*v, MirrorState::mirroring);
  next.retries = 0;
  next.last_error_code = 0;
  next.last_error.reset();
  if (state == MirrorState::failed) {
    MIRRA_LOG_INFO("mirror {}: {} recovered after {} failed attempt(s)", name_,
                   client::to_string(tp), v->retries);
  }
  Status s = co_await ctx_.sink.put_state(key, std::move(next), v->state_epoch);
  // A failover or pause that began meanwhile wins; anything else is retried on the next good
  // fetch.
  if (!s.ok() && s.code() != ErrorCode::INVALID_MIRROR_STATE) {
    MIRRA_LOG_WARN("mirror {}: cannot record {} as MIRRORING: {}", name_, client::to_string(tp),
                   s.to_string());
  }
}

asio::awaitable<void> MirrorRunner::failed(const client::TopicPartition& tp, const Status& s) {
  PartitionMirrorStatus& st = status_[tp];
  if (st.last_error.ok() || st.last_error.message() != s.message()) {
    MIRRA_LOG_WARN("mirror {}: {}: {}", name_, client::to_string(tp), s.to_string());
  }
  st.last_error = s;
  if (classify_failure(s.code()) == FailureKind::transient) {
    st.pipeline.transient_failure(now());
    co_return;
  }
  co_await mark_failed(tp, s);
}

asio::awaitable<void> MirrorRunner::mark_failed(const client::TopicPartition& tp, const Status& s) {
  const std::optional<Uuid> id = ctx_.sink.topic_id(tp.topic);
  if (!id) co_return;
  const MirrorStateKey key{*id, tp.partition};
  const MirrorStateValue* v = ctx_.sink.state(key);
  MirrorStateValue first;
  first.mirror = name_;
  MirrorStateValue next = next_state(v ? *v : first, MirrorState::failed);
  const bool was_failed = v != nullptr && static_cast<MirrorState>(v->state) == MirrorState::failed;
  next.retries = was_failed ? v->retries + 1 : 1;
  next.last_error_code = error_number(s.code());
  next.last_error = s.message();
  Status written = co_await ctx_.sink.put_state(key, next, ctx_.sink.state_epoch(key));
  if (!written.ok()) {
    MIRRA_LOG_WARN("mirror {}: cannot record {} as FAILED: {}", name_, client::to_string(tp),
                   written.to_string());
  }
  PartitionMirrorStatus& st = status_[tp];
  if (!retried_automatically(ctx_.broker, s.code(), next.retries)) {
    st.pipeline.backoff_until(SteadyTime{});  // not fetched anyway: it waits for the operator
    MIRRA_LOG_ERROR(
        "mirror {}: {} is FAILED ({}) and waits for the operator: mirra mirror "
        "--resume --mirror {} --topic {}",
        name_, client::to_string(tp), s.message(), name_, tp.topic);
    co_return;
  }
  const auto wait = failed_retry_backoff(ctx_.broker, next.retries, ctx_.random01());
  st.pipeline.backoff_until(now() + wait);
  MIRRA_LOG_WARN("mirror {}: {} is FAILED (attempt {} of {}); retrying in {} ms", name_,
                 client::to_string(tp), next.retries, ctx_.broker.failed_retry_max_attempts,
                 wait.count());
}

asio::awaitable<Status> MirrorRunner::fail_for_good(std::string topic, Status why) {
  MIRRA_ASSERT_OWNER(owner_);
  MIRRA_ASSERT(permanent_cause(why.code()), "mirror {}: {} is not a cause for good: {}", name_,
               topic, why.to_string());
  const std::optional<Uuid> id = ctx_.sink.topic_id(topic);
  if (!id) co_return Status::OK();  // no longer here
  std::vector<int32_t> partitions;
  for (const SinkTopic& t : ctx_.sink.topics(name_)) {
    if (t.name == topic) partitions = t.partitions;
  }
  for (int32_t partition : partitions) {
    const client::TopicPartition tp{topic, partition};  // named: see MirrorRunner::append
    const MirrorStateKey key{*id, partition};
    const MirrorStateValue* v = ctx_.sink.state(key);
    const auto state = v == nullptr ? MirrorState::preparing : static_cast<MirrorState>(v->state);
    // Paused and failed-over partitions are the operator's: they keep their state.
    if (state == MirrorState::paused || state == MirrorState::stopping ||
        state == MirrorState::stopped) {
      continue;
    }
    MirrorStateValue first;
    first.mirror = name_;
    MirrorStateValue next = next_state(v ? *v : first, MirrorState::failed);
    next.retries = std::max(1, next.retries);
    next.last_error_code = error_number(why.code());
    next.last_error = why.message();
    if (Status s = co_await ctx_.sink.put_state(key, next, ctx_.sink.state_epoch(key)); !s.ok()) {
      co_return s;
    }
    PartitionMirrorStatus& st = status_[tp];
    st.last_error = why;
    st.pipeline.backoff_until(SteadyTime{});  // never fetched again: fetching() says no
  }
  MIRRA_LOG_ERROR(
      "mirror {}: topic {} is FAILED for good: {}; its data stays readable here and "
      "it can be failed over (mirra mirror --remove --mirror {} --topic {})",
      name_, topic, why.message(), name_, topic);
  co_return Status::OK();
}

asio::awaitable<void> MirrorRunner::check_source_topics() {
  std::vector<SinkTopic> topics = ctx_.sink.topics(name_);  // copies: they may change meanwhile
  std::vector<std::string> names;
  for (const SinkTopic& t : topics) names.push_back(t.name);
  if (names.empty()) {
    source_only_.clear();
    co_return;
  }
  // Deleted and recreated source topics are the topics sync's (mirror_sync_topics.cc).
  auto md = co_await admin_->metadata(names);
  if (!md.ok()) co_return;  // unreachable: the fetches report that
  co_await note_source_only(topics, md.value());
}

// Until the sync tasks mirror them (§8), partitions added on the source are shown by describe
// with the source's log end as their lag, so that "lag 0" never hides them.
asio::awaitable<void> MirrorRunner::note_source_only(const std::vector<SinkTopic>& topics,
                                                     const client::ClusterMetadata& source) {
  std::vector<client::OffsetQuery> ends;
  for (const SinkTopic& t : topics) {
    const client::TopicInfo* st = source.topic(t.name);
    if (st == nullptr || st->error != ErrorCode::NONE || (!st->id.is_zero() && st->id != t.id)) {
      continue;
    }
    for (const client::PartitionInfo& p : st->partitions) {
      if (std::find(t.partitions.begin(), t.partitions.end(), p.partition) == t.partitions.end()) {
        ends.push_back({{t.name, p.partition}, client::kLatestTimestamp});
      }
    }
  }
  std::map<client::TopicPartition, int64_t> found;
  for (const client::OffsetQuery& q : ends) found.emplace(q.tp, -1);
  if (!ends.empty()) {
    auto listed = co_await admin_->list_offsets(std::move(ends));
    if (listed.ok()) {
      for (const client::PartitionOffset& o : listed.value()) {
        if (o.status.ok() && found.count(o.tp)) found[o.tp] = o.offset;
      }
    }
  }
  for (const auto& [tp, end] : found) {
    if (!source_only_.count(tp)) {
      MIRRA_LOG_WARN(
          "mirror {}: the source has partition {}, which the destination's topic lacks (added "
          "on the source after the topic was added): it is not mirrored",
          name_, client::to_string(tp));
    }
  }
  source_only_ = std::move(found);
}

}  // namespace mirra::mirror
