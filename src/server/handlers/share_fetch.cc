// ShareFetch (key 78, v1-2): a share consumer's fetch (docs/share-groups-design.md). It opens,
// continues or closes the member's share session, applies the acknowledgements it carries
// (piggybacked), then for each partition of the session acquires records for the member:
// it reads whole batches from the lowest offset the group can hand out, and acquires the
// offsets those batches hold (share/share_partition.h), so every acquired offset is in the
// bytes sent. Batches that hold no acquired offset are cut off. With nothing acquired it
// waits up to MaxWaitMs for appends (long poll).
//
// A partition first fetched by a group starts at the high watermark (share.auto.offset.reset
// latest, Kafka's default). Offsets without a record (control batches, compaction) are
// acquired like the others; clients acknowledge them as gaps.
#include "protocol/messages/share_fetch.h"

#include <map>

#include "base/clock.h"
#include "cluster/partition_manager.h"
#include "groups/share_group_configs.h"
#include "protocol/records/record_set.h"
#include "server/broker_metrics.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handlers.h"
#include "server/handlers/share_util.h"

namespace mirra::server {
namespace {

using protocol::ShareFetchRequest;
using protocol::ShareFetchResponse;
using Clock = std::chrono::steady_clock;

// Whole batches read from a partition, in memory, with where each one lies. `skip`: a batch
// no consumer is to see (a transaction marker, or under read_committed an aborted
// transaction's records): its offsets are archived as gaps as soon as they are acquired.
struct BatchSpan {
  size_t begin = 0;
  size_t end = 0;
  int64_t first = 0;
  int64_t last = 0;
  bool skip = false;
};
struct ShareRead {
  ShareRead() = default;
  ShareRead(Status s) : outcome(std::move(s)) {}  // NOLINT: PartitionManager::run's error path
  Status status() const { return outcome; }
  Status outcome = Status::OK();
  std::vector<uint8_t> bytes;
  std::vector<BatchSpan> batches;
  int64_t bound = 0;  // the high watermark, or the LSO under read_committed
};

bool aborted(const records::BatchView& b, const std::vector<storage::AbortedTxn>& txns) {
  if (!b.is_transactional()) return false;
  for (const storage::AbortedTxn& t : txns) {
    if (t.producer_id == b.producer_id() && t.first_offset <= b.base_offset() &&
        b.last_offset() < t.last_offset) {
      return true;
    }
  }
  return false;
}

// On the partition's shard: the batches from `from` up to the bound, at most max_bytes of them
// but at least one, each one whole.
ShareRead read_batches(const storage::PartitionLog& log, int64_t from, int32_t max_bytes,
                       bool read_committed) {
  ShareRead r;
  const auto bound = read_committed ? storage::ReadBound::last_stable_offset
                                    : storage::ReadBound::high_watermark;
  auto read = log.read(from, max_bytes, bound, true);
  if (!read.ok()) return read.status();
  if (Status s = read->copy_to(r.bytes); !s.ok()) return s;
  r.bound = read_committed ? read->last_stable_offset : read->high_watermark;
  records::RecordSetIterator it(r.bytes);
  records::BatchView batch;
  while (it.next(batch) == records::RecordSetStep::batch) {
    const size_t end = it.position();
    r.batches.push_back({end - batch.bytes().size(), end, batch.base_offset(), batch.last_offset(),
                         batch.is_control() || (read_committed && aborted(batch, read->aborted))});
  }
  r.bytes.resize(r.batches.empty() ? 0 : r.batches.back().end);
  return r;
}

// The offset a group starts a partition at when it has no state for it
// (share.auto.offset.reset): the high watermark, the log start, or the first record at most
// the duration old (the high watermark when there is none).
asio::awaitable<int64_t> start_offset(RequestContext& ctx,
                                      const std::shared_ptr<cluster::Partition>& part,
                                      const groups::ShareGroupSettings& settings) {
  using Reset = groups::ShareGroupSettings::Reset;
  if (settings.auto_offset_reset == Reset::latest) co_return part->offsets.high_watermark;
  if (settings.auto_offset_reset == Reset::earliest) co_return part->offsets.log_start;
  const int64_t since = now_ms() - settings.reset_duration_ms;
  auto found = co_await ctx.broker->partitions->run(
      part, [since](const storage::PartitionLog& log) -> Result<int64_t> {
        auto hit = log.offset_for_timestamp(since);
        return hit ? std::min(hit->first, log.high_watermark()) : log.high_watermark();
      });
  co_return found.ok() ? found.value() : part->offsets.high_watermark;
}

// Archives the acquired offsets of skipped batches (as gaps) and returns the acquired ranges
// without them: what the consumer is handed.
std::vector<share::AcquiredRange> drop_skipped(share::SharePartition& p, const std::string& member,
                                               const ShareRead& read,
                                               std::vector<share::AcquiredRange> acquired,
                                               int64_t now, const share::ShareLimits& limits) {
  for (const BatchSpan& b : read.batches) {
    if (!b.skip) continue;
    std::vector<share::AcquiredRange> kept;
    for (const share::AcquiredRange& r : acquired) {
      const int64_t lo = std::max(r.first, b.first), hi = std::min(r.last, b.last);
      if (lo > hi) {
        kept.push_back(r);
        continue;
      }
      const ErrorCode e = p.acknowledge(member, lo, hi, {share::AckType::gap}, now, limits);
      MIRRA_ASSERT(e == ErrorCode::NONE, "offsets {}..{} just acquired by {}: {}", lo, hi, member,
                   error_name(e));
      if (r.first < lo) kept.push_back({r.first, lo - 1, r.delivery_count});
      if (hi < r.last) kept.push_back({hi + 1, r.last, r.delivery_count});
    }
    acquired = std::move(kept);
  }
  return acquired;
}

// One partition of the answer.
struct FetchPart {
  ShareTarget target;
  bool named = false;  // in this request: answered even without records
  bool acked = false;  // acknowledgements applied: its state is written before the answer
  ErrorCode ack_error = ErrorCode::NONE;
  std::vector<share::AcquiredRange> acquired;
  std::vector<uint8_t> records;
};

// Keeps the batches that hold an acquired offset (they are consecutive: acquired offsets lie
// between the read's start and its last batch's end).
std::vector<uint8_t> batches_holding(const ShareRead& r,
                                     const std::vector<share::AcquiredRange>& acquired) {
  if (acquired.empty()) return {};
  const int64_t lo = acquired.front().first, hi = acquired.back().last;
  size_t begin = r.bytes.size(), end = 0;
  for (const BatchSpan& b : r.batches) {
    if (b.last < lo || b.first > hi) continue;
    begin = std::min(begin, b.begin);
    end = std::max(end, b.end);
  }
  // Offsets of a compacted-away stretch before the first batch are acquired without a batch:
  // the client acknowledges them as gaps.
  if (begin >= end) return {};
  return {r.bytes.begin() + static_cast<std::ptrdiff_t>(begin),
          r.bytes.begin() + static_cast<std::ptrdiff_t>(end)};
}

int64_t count_of(const std::vector<share::AcquiredRange>& ranges) {
  int64_t n = 0;
  for (const auto& r : ranges) n += r.last - r.first + 1;
  return n;
}

// A share fetch reads the log a piece of this size at a time, and goes on with the next piece
// while records are wanted: a client's MaxBytes (librdkafka's 50 MiB) read at once would copy far
// more than the MaxRecords (a few hundred) it asks for.
constexpr int32_t kShareReadPiece = 1 << 20;

// Acquires from one read of the log at `from` (at most `max_bytes`): the acquired ranges and
// the batches holding them go to `fp`. Returns how many records, and sets `next` to where the
// following read would start (-1: none, the read reached the bound or acquisition stopped).
asio::awaitable<int64_t> acquire_piece(RequestContext& ctx, FetchPart& fp,
                                       const share::ShareKey& key, const std::string& member,
                                       int64_t from, int64_t max_records, int32_t max_bytes,
                                       const groups::ShareGroupSettings& settings,
                                       const share::ShareLimits& limits, int64_t& next) {
  next = -1;
  const bool committed = settings.read_committed;
  ShareRead read = co_await ctx.broker->partitions->run(
      fp.target.part, [from, max_bytes, committed](const storage::PartitionLog& log) {
        return read_batches(log, from, max_bytes, committed);
      });
  if (!read.outcome.ok()) {
    fp.target.error = read.outcome.code();
    co_return 0;
  }
  // The group's state may have changed while the read was away (another fetch, a reset, a
  // deletion): look it up again; acquire() stays within what was read.
  share::SharePartition* p = ctx.broker->share->find(key);
  if (p == nullptr || read.batches.empty()) co_return 0;
  const int64_t readable_end = std::min(read.batches.back().last + 1, read.bound);
  const int64_t now = steady_ms();
  auto acquired = drop_skipped(*p, member, read,
                               p->acquire(member, from, readable_end, max_records, now, limits),
                               now, limits);
  const std::vector<uint8_t> bytes = batches_holding(read, acquired);
  fp.records.insert(fp.records.end(), bytes.begin(), bytes.end());
  fp.acquired.insert(fp.acquired.end(), acquired.begin(), acquired.end());
  // Only new records lie beyond this read: a later piece starts where it ended.
  if (readable_end < read.bound && p->first_acquirable(limits) == readable_end) {
    next = readable_end;
  }
  co_return count_of(acquired);
}

// Acquires up to max_records records of one partition for the member. Returns how many.
asio::awaitable<int64_t> acquire_one(RequestContext& ctx, FetchPart& fp, const std::string& group,
                                     const std::string& member, int64_t max_records,
                                     int32_t max_bytes) {
  share::ShareState& state = *ctx.broker->share;
  const share::ShareKey key{group, fp.target.id.topic_id, fp.target.id.partition};
  const auto& part = fp.target.part;
  const groups::ShareGroupSettings settings = share_group_settings_of(ctx, group);
  const share::ShareLimits limits = share_limits_of(ctx, settings);
  if (state.find(key) == nullptr) {
    const int64_t start = co_await start_offset(ctx, part, settings);
    state.get_or_create(key, start);  // unless another fetch made it meanwhile
  }
  share::SharePartition* p = state.find_current(key, steady_ms());
  if (p == nullptr) co_return 0;  // the group was deleted meanwhile
  p->advance_log_start(part->offsets.log_start);
  int64_t from = p->first_acquirable(limits);
  const int64_t bound = settings.read_committed ? part->offsets.last_stable
                                                : part->offsets.high_watermark;
  int64_t taken = 0;
  while (from >= 0 && from < bound && taken < max_records) {
    const auto left = static_cast<int32_t>(
        std::max<int64_t>(0, int64_t{max_bytes} - static_cast<int64_t>(fp.records.size())));
    if (left == 0 && taken > 0) break;
    taken += co_await acquire_piece(ctx, fp, key, member, from, max_records - taken,
                                    std::min(left, kShareReadPiece), settings, limits, from);
  }
  co_return taken;
}

// Waits until one of the partitions changes or the deadline passes.
asio::awaitable<void> wait_for_appends(std::map<share::SharePartitionId, FetchPart>& parts,
                                       Clock::time_point deadline) {
  auto timer = std::make_shared<asio::steady_timer>(co_await asio::this_coro::executor, deadline);
  for (auto& [id, fp] : parts) {
    if (fp.target.part) fp.target.part->add_waiter(timer);
  }
  asio::error_code ec;
  co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

// Every partition of the session, once, until max_records or the byte budget is used up.
asio::awaitable<int64_t> acquire_all(RequestContext& ctx, const ShareFetchRequest& req,
                                     std::map<share::SharePartitionId, FetchPart>& parts) {
  const int64_t max_records = req.max_records;
  int64_t taken = 0, bytes = 0;
  for (auto& [id, fp] : parts) {
    if (fp.target.error != ErrorCode::NONE) continue;
    if (taken >= max_records || (bytes > 0 && bytes >= req.max_bytes)) break;
    const auto budget = static_cast<int32_t>(std::max<int64_t>(0, int64_t{req.max_bytes} - bytes));
    taken +=
        co_await acquire_one(ctx, fp, *req.group_id, *req.member_id, max_records - taken, budget);
    bytes += static_cast<int64_t>(fp.records.size());
  }
  co_return taken;
}

ShareFetchResponse build_response(RequestContext& ctx,
                                  std::map<share::SharePartitionId, FetchPart>& parts,
                                  int32_t lock_ms) {
  ShareFetchResponse resp;
  resp.acquisition_lock_timeout_ms = lock_ms;
  for (auto& [id, fp] : parts) {
    if (!fp.named && fp.acquired.empty() && fp.target.error == ErrorCode::NONE) continue;
    if (resp.responses.empty() || resp.responses.back().topic_id != id.topic_id) {
      resp.responses.emplace_back().topic_id = id.topic_id;
    }
    auto& pd = resp.responses.back().partitions.emplace_back();
    pd.partition_index = id.partition;
    pd.error_code = error_number(fp.target.error);
    pd.acknowledge_error_code = error_number(fp.ack_error);
    pd.current_leader.leader_id = ctx.broker->config->node_id;
    pd.current_leader.leader_epoch = fp.target.part ? fp.target.part->leader_epoch : -1;
    pd.records = protocol::RecordsView{fp.records.data(), fp.records.size(), nullptr};
    for (const auto& r : fp.acquired)
      pd.acquired_records.push_back({r.first, r.last, r.delivery_count, {}});
    if (BrokerMetrics* m = ctx.broker->metrics; m && fp.target.part && !fp.records.empty()) {
      m->record_fetched(fp.target.part->topic, static_cast<int64_t>(fp.records.size()));
    }
  }
  return resp;
}

// INVALID_REQUEST's reason for fields that do not fit together, else empty.
std::string misuse(const ShareFetchRequest& req) {
  if (req.is_renew_ack &&
      (req.max_bytes != 0 || req.min_bytes != 0 || req.max_records != 0 || req.max_wait_ms != 0)) {
    return "A renew acknowledgement fetches nothing: MaxBytes, MinBytes, MaxRecords and "
           "MaxWaitMs must be 0.";
  }
  if (req.share_session_epoch == 0) {
    for (const auto& t : req.topics) {
      for (const auto& p : t.partitions) {
        if (!p.acknowledgement_batches.empty()) {
          return "A fetch that opens a share session carries no acknowledgements.";
        }
      }
    }
  }
  return {};
}

// Everything before the reads: the ids, the group ACL, the session, the acknowledgements.
// Returns the answer when the request ends here with an error; else fills `parts` with the
// request's partitions and, unless the session closed or nothing is to be fetched, `fetch_ids`
// with the session's.
std::optional<ShareFetchResponse> prepare(RequestContext& ctx, const ShareFetchRequest& req,
                                          std::map<share::SharePartitionId, FetchPart>& parts,
                                          std::vector<share::SharePartitionId>& fetch_ids) {
  ShareFetchResponse fail;
  std::string why;
  ErrorCode e = check_share_ids(req.group_id, req.member_id, why);
  if (e == ErrorCode::NONE) {
    if (auto refused =
            refuse_unless_on_group<ShareFetchResponse>(ctx, AclOperation::read, *req.group_id)) {
      return refused;
    }
    why = misuse(req);
    if (!why.empty()) e = ErrorCode::INVALID_REQUEST;
  }
  share::ShareSession* session = nullptr;
  if (e == ErrorCode::NONE) {
    e = share_session_for(ctx, *req.group_id, *req.member_id, req.share_session_epoch, session);
  }
  if (e != ErrorCode::NONE) {
    fail.error_code = error_number(e);
    if (!why.empty()) fail.error_message = why;
    return fail;
  }
  const std::string& group = *req.group_id;
  const std::string& member = *req.member_id;
  const share::ShareLimits limits = share_limits_of(ctx, share_group_settings_of(ctx, group));
  const bool closing = req.share_session_epoch == -1;
  for (const auto& t : req.topics) {
    for (const auto& p : t.partitions) {
      const share::SharePartitionId id{t.topic_id, p.partition_index};
      FetchPart& fp = parts[id];
      if (!fp.named) fp.target = find_share_target(ctx, id);
      fp.named = true;
      if (!closing) session->partitions.insert(id);
      if (p.acknowledgement_batches.empty() || fp.ack_error != ErrorCode::NONE) continue;
      fp.ack_error = fp.target.error != ErrorCode::NONE
                         ? fp.target.error
                         : apply_acks(*ctx.broker->share, {group, id.topic_id, id.partition},
                                      member, ack_batches(p.acknowledgement_batches),
                                      ctx.api_version, steady_ms(), limits);
      fp.acked = fp.target.error == ErrorCode::NONE;
    }
  }
  if (closing) {
    if (auto closed = ctx.broker->share->sessions().close(group, member)) {
      ctx.broker->share->end_session(*closed);
    }
    return std::nullopt;  // no fetch: fetch_ids stays empty
  }
  for (const auto& f : req.forgotten_topics_data) {
    for (int32_t p : f.partitions) session->partitions.erase({f.topic_id, p});
  }
  // A fetch for no records (MaxRecords 0) only carries acknowledgements; so does a renewal.
  // The session may end while this fetch waits (its connection closes): from here on the
  // partitions are this request's own copy.
  if (!req.is_renew_ack && req.max_records > 0) {
    fetch_ids.assign(session->partitions.begin(), session->partitions.end());
  }
  return std::nullopt;
}

// What was acknowledged is durable before the answer says so (and before more is handed out).
asio::awaitable<void> persist_acked(RequestContext& ctx, const std::string& group,
                                    std::map<share::SharePartitionId, FetchPart>& parts) {
  for (auto& [id, fp] : parts) {
    if (!fp.acked) continue;
    const share::ShareKey key{group, id.topic_id, id.partition};  // named: see persist_share_state
    const ErrorCode e = co_await persist_share_state(*ctx.broker, key);
    if (e != ErrorCode::NONE && fp.ack_error == ErrorCode::NONE) fp.ack_error = e;
  }
}

}  // namespace

asio::awaitable<HandlerResult> handle_share_fetch(RequestContext& ctx) {
  auto req = decode_body<ShareFetchRequest>(ctx);
  if (!req.ok()) co_return req.status();
  std::map<share::SharePartitionId, FetchPart> parts;
  std::vector<share::SharePartitionId> fetch_ids;
  if (auto answer = prepare(ctx, req.value(), parts, fetch_ids)) co_return respond(ctx, *answer);
  co_await persist_acked(ctx, *req->group_id, parts);
  if (!fetch_ids.empty()) {
    for (const share::SharePartitionId& id : fetch_ids) {
      if (!parts.contains(id)) parts[id].target = find_share_target(ctx, id);
    }
    const auto wait = std::min<std::chrono::milliseconds>(
        std::chrono::milliseconds(std::max(0, req->max_wait_ms)), ctx.broker->max_fetch_wait);
    const auto deadline = Clock::now() + wait;
    int64_t taken = co_await acquire_all(ctx, req.value(), parts);
    while (taken == 0 && Clock::now() < deadline) {
      const auto waiting = Clock::now();
      co_await wait_for_appends(parts, deadline);
      ctx.waited += Clock::now() - waiting;  // the long poll is not the client's request time
      taken = co_await acquire_all(ctx, req.value(), parts);
    }
  }
  const groups::ShareGroupSettings settings = share_group_settings_of(ctx, *req->group_id);
  ShareFetchResponse resp = build_response(ctx, parts, settings.record_lock_duration_ms);
  co_return respond(ctx, resp);
}

}  // namespace mirra::server
