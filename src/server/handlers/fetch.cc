// Fetch (key 1), for consumers: reads each partition through its shard up to the high
// watermark (read_uncommitted) or the last stable offset with the aborted transactions in
// range (read_committed), within the request's partition and response byte limits (the first
// partition with data gets at least one whole batch, KIP-74). With fewer than min_bytes
// available it waits up to max_wait_ms for appends to any of the partitions (long poll).
// Fetch sessions (KIP-227) are in server/fetch_session.h; topic ids replace names from v13.
// A client over its consumer_byte_rate gets an answer without records and a throttle time
// (docs/quotas.md).
#include "protocol/messages/fetch.h"

#include <fmt/format.h>

#include "base/clock.h"
#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "server/broker_metrics.h"
#include "server/client_quotas.h"
#include "server/fetch_session.h"
#include "server/handlers/authorize.h"
#include "server/handlers/handler_util.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

using protocol::FetchRequest;
using protocol::FetchResponse;
using Clock = std::chrono::steady_clock;

constexpr int16_t kTopicIdsFromVersion = 13;

// One partition to read: where it is, what the client asked, and what was read.
struct Target {
  SessionPartitionKey key;
  SessionPartition* session_state = nullptr;  // null without a session
  SessionPartition request;                   // offsets and limits to use
  std::shared_ptr<cluster::Partition> part;
  ErrorCode error = ErrorCode::NONE;
  // Read result: whole batches, sent from their segment files (zero copy).
  FileSliceList records;
  int64_t record_bytes = 0;
  std::vector<storage::AbortedTxn> aborted;
  cluster::PartitionOffsets offsets;
};

struct ReadOut {
  ReadOut() = default;
  ReadOut(Status s) : outcome(std::move(s)) {}  // NOLINT: PartitionManager::run's error path
  // As a Result's: PartitionManager::start reports it to the log directory's health.
  Status status() const { return outcome; }
  Status outcome = Status::OK();
  FileSliceList records;
  int64_t record_bytes = 0;
  std::vector<storage::AbortedTxn> aborted;
};

// Finds the partition of a request entry (by name before v13, by topic id from v13), after
// checking READ on the topic: by name before the topic's existence (Kafka never tells an
// unauthorized client which topics exist), by id once the id is known.
void resolve(RequestContext& ctx, Target& t) {
  const auto& image = ctx.broker->metadata->image();
  const bool by_id = ctx.api_version >= kTopicIdsFromVersion;
  const metadata::TopicInfo* topic = by_id ? image.topic(t.key.topic_id) : image.topic(t.key.topic);
  if ((!by_id || topic != nullptr) && !authorized(ctx, AclOperation::read, ResourceType::topic,
                                                  by_id ? topic->name : t.key.topic)) {
    t.error = ErrorCode::TOPIC_AUTHORIZATION_FAILED;
    return;
  }
  if (topic == nullptr) {
    t.error = ctx.api_version >= kTopicIdsFromVersion ? ErrorCode::UNKNOWN_TOPIC_ID
                                                      : ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
    return;
  }
  t.part = ctx.broker->partitions->find(topic->name, t.key.partition);
  if (t.part == nullptr) {
    t.error = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
    return;
  }
  t.error = check_leader_epoch(t.request.current_leader_epoch, t.part->leader_epoch);
}

SessionPartition from_request(const FetchRequest::FetchPartition& p) {
  SessionPartition sp;
  sp.fetch_offset = p.fetch_offset;
  sp.log_start_offset = p.log_start_offset;
  sp.max_bytes = p.partition_max_bytes;
  sp.current_leader_epoch = p.current_leader_epoch;
  sp.last_fetched_epoch = p.last_fetched_epoch;
  return sp;
}

SessionPartitionKey key_of(const RequestContext& ctx, const FetchRequest::FetchTopic& t,
                           int32_t partition) {
  if (ctx.api_version >= kTopicIdsFromVersion) return {t.topic_id, "", partition};
  return {Uuid::zero(), t.topic, partition};
}

// Picks the session (creating, closing or continuing one) and lists the partitions to read.
// Returns the top-level error for a bad session, else NONE.
ErrorCode plan(RequestContext& ctx, const FetchRequest& req, std::vector<Target>& targets,
               std::shared_ptr<FetchSession>& session) {
  FetchSessionCache& cache = *ctx.broker->fetch_sessions;
  const bool full = req.session_epoch <= 0;
  if (full) {
    if (req.session_id != 0) cache.remove(req.session_id);
    if (req.session_epoch == 0) session = cache.create();
  } else {
    auto found = cache.find_for_incremental(req.session_id, req.session_epoch);
    if (found.error != ErrorCode::NONE) return found.error;
    session = found.session;
  }
  for (const auto& t : req.topics) {
    for (const auto& p : t.partitions) {
      const SessionPartitionKey key = key_of(ctx, t, p.partition);
      if (session == nullptr) {
        targets.push_back(
            Target{key, nullptr, from_request(p), nullptr, ErrorCode::NONE, {}, 0, {}, {}});
        continue;
      }
      SessionPartition& sp = session->partitions[key];
      const SessionPartition fresh = from_request(p);
      sp.fetch_offset = fresh.fetch_offset;
      sp.log_start_offset = fresh.log_start_offset;
      sp.max_bytes = fresh.max_bytes;
      sp.current_leader_epoch = fresh.current_leader_epoch;
      sp.last_fetched_epoch = fresh.last_fetched_epoch;
    }
  }
  if (session != nullptr) {
    for (const auto& f : req.forgotten_topics_data) {
      for (int32_t p : f.partitions) {
        session->partitions.erase(ctx.api_version >= kTopicIdsFromVersion
                                      ? SessionPartitionKey{f.topic_id, "", p}
                                      : SessionPartitionKey{Uuid::zero(), f.topic, p});
      }
    }
    for (auto& [key, sp] : session->partitions) {
      targets.push_back(Target{key, &sp, sp, nullptr, ErrorCode::NONE, {}, 0, {}, {}});
    }
    // KIP-227: 1 follows INT32_MAX (0 and -1 mean full fetches).
    session->next_epoch = full || req.session_epoch == INT32_MAX ? 1 : req.session_epoch + 1;
  }
  for (Target& t : targets) resolve(ctx, t);
  return ErrorCode::NONE;
}

// How many partition reads a fetch has in flight at once. Each read is a round trip to the
// partition's shard; awaited one by one, 1,000 partitions spend most of a fetch's time on the
// hops, not on reading (bench/mirror/run.sh). A wave bounds the overshoot of the byte budget,
// which is known only when the reads before have landed.
constexpr size_t kReadWave = 64;

using PendingRead = std::shared_ptr<cluster::Pending<ReadOut>>;

// Awaits a wave's reads in request order and takes their records while the response's byte
// budget lasts: the first partition with data always (KIP-74), later ones only if they fit
// whole. A read posted with the budget left at the wave's start can overshoot; its records
// are dropped, and the client asks for them again. Returns the new total.
asio::awaitable<int64_t> land_wave(std::vector<std::pair<Target*, PendingRead>>& wave,
                                   int64_t total, int64_t max_bytes) {
  for (auto& [t, pending] : wave) {
    ReadOut out = co_await pending->wait();
    t->offsets = t->part->offsets;
    t->error = out.outcome.ok() ? ErrorCode::NONE : out.outcome.code();
    if (out.record_bytes > 0 && total > 0 && total + out.record_bytes > max_bytes) continue;
    t->records = std::move(out.records);
    t->record_bytes = out.record_bytes;
    t->aborted = std::move(out.aborted);
    total += t->record_bytes;
  }
  wave.clear();
  co_return total;
}

// Reads every target once, in waves of kReadWave; a partition with nothing to read at its
// offset takes no read at all. Returns the number of record bytes read.
asio::awaitable<int64_t> read_all(RequestContext& ctx, const FetchRequest& req,
                                  std::vector<Target>& targets) {
  cluster::PartitionManager& partitions = *ctx.broker->partitions;
  const auto bound = req.isolation_level == 1 ? storage::ReadBound::last_stable_offset
                                              : storage::ReadBound::high_watermark;
  int64_t total = 0;
  std::vector<std::pair<Target*, PendingRead>> wave;
  for (Target& t : targets) {
    t.records.clear();
    t.record_bytes = 0;
    t.aborted.clear();
    if (t.error != ErrorCode::NONE && t.error != ErrorCode::OFFSET_OUT_OF_RANGE &&
        t.error != ErrorCode::KAFKA_STORAGE_ERROR) {
      continue;
    }
    const int64_t offset = t.request.fetch_offset;
    const int64_t budget = std::max<int64_t>(0, int64_t{req.max_bytes} - total);
    const int32_t max_bytes = static_cast<int32_t>(std::min<int64_t>(t.request.max_bytes, budget));
    const bool min_one = total == 0;
    // Once the response is full, the partitions after it are answered with their offsets
    // alone, as a read with no room would.
    if (partitions.nothing_to_read(*t.part, offset, bound, min_one ? INT64_MAX : max_bytes)) {
      t.offsets = t.part->offsets;
      t.error = ErrorCode::NONE;
      continue;
    }
    wave.emplace_back(&t, partitions.start(t.part, [offset, max_bytes, bound,
                                                    min_one](const storage::PartitionLog& log) {
      ReadOut r;
      auto read = log.read(offset, max_bytes, bound, min_one);
      if (!read.ok()) {
        r.outcome = read.status();
        return r;
      }
      r.record_bytes = read->total_bytes();
      r.records = std::move(read->slices);
      r.aborted = std::move(read->aborted);
      return r;
    }));
    if (wave.size() == kReadWave) total = co_await land_wave(wave, total, req.max_bytes);
  }
  total = co_await land_wave(wave, total, req.max_bytes);
  co_return total;
}

bool any_error(const std::vector<Target>& targets) {
  for (const Target& t : targets) {
    if (t.error != ErrorCode::NONE) return true;
  }
  return false;
}

// Waits until one of the partitions changes or the deadline passes.
asio::awaitable<void> wait_for_data(std::vector<Target>& targets, Clock::time_point deadline) {
  auto timer = std::make_shared<asio::steady_timer>(co_await asio::this_coro::executor, deadline);
  for (Target& t : targets) {
    if (t.part) t.part->add_waiter(timer);
  }
  asio::error_code ec;
  co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

FetchResponse::PartitionData partition_data(const Target& t) {
  FetchResponse::PartitionData pd;
  pd.partition_index = t.key.partition;
  pd.error_code = error_number(t.error);
  pd.high_watermark = t.part ? t.offsets.high_watermark : -1;
  pd.last_stable_offset = t.part ? t.offsets.last_stable : -1;
  pd.log_start_offset = t.part ? t.offsets.log_start : -1;
  if (!t.aborted.empty()) {
    pd.aborted_transactions.emplace();
    for (const auto& a : t.aborted)
      pd.aborted_transactions->push_back({a.producer_id, a.first_offset, {}});
  }
  // t.records outlives the response: the handler hands `targets` to the response's keep_alive.
  pd.records = protocol::RecordsView{nullptr, static_cast<size_t>(t.record_bytes),
                                     t.record_bytes > 0 ? &t.records : nullptr};
  return pd;
}

// In an incremental response a partition appears only when there is news for its client.
bool has_news(const Target& t) {
  const SessionPartition* s = t.session_state;
  return s == nullptr || !s->ever_sent || t.error != ErrorCode::NONE || t.record_bytes > 0 ||
         s->sent_high_watermark != t.offsets.high_watermark ||
         s->sent_last_stable != t.offsets.last_stable || s->sent_log_start != t.offsets.log_start;
}

FetchResponse build_response(const RequestContext& ctx, std::vector<Target>& targets,
                             bool incremental) {
  FetchResponse resp;
  for (Target& t : targets) {
    if (incremental && !has_news(t)) continue;
    if (SessionPartition* s = t.session_state) {
      s->ever_sent = true;
      s->sent_high_watermark = t.offsets.high_watermark;
      s->sent_last_stable = t.offsets.last_stable;
      s->sent_log_start = t.offsets.log_start;
    }
    const bool same_topic = !resp.responses.empty() &&
                            (ctx.api_version >= kTopicIdsFromVersion
                                 ? resp.responses.back().topic_id == t.key.topic_id
                                 : resp.responses.back().topic == t.key.topic);
    if (!same_topic) {
      auto& tr = resp.responses.emplace_back();
      tr.topic = t.key.topic;
      tr.topic_id = t.key.topic_id;
    }
    resp.responses.back().partitions.push_back(partition_data(t));
    if (BrokerMetrics* m = ctx.broker->metrics) {
      m->record_error(ctx.header.request_api_key, error_number(t.error));
      if (t.part && t.record_bytes > 0) m->record_fetched(t.part->topic, t.record_bytes);
    }
  }
  return resp;
}

}  // namespace

asio::awaitable<HandlerResult> handle_fetch(RequestContext& ctx) {
  auto req = decode_body<FetchRequest>(ctx);
  if (!req.ok()) co_return req.status();
  std::vector<Target> targets;
  std::shared_ptr<FetchSession> session;  // kept alive while this fetch uses its entries
  if (ErrorCode e = plan(ctx, req.value(), targets, session); e != ErrorCode::NONE) {
    FetchResponse resp;
    resp.error_code = error_number(e);
    co_return respond(ctx, resp);
  }
  ClientQuotas* quotas = ctx.broker->quotas;
  // consumer_byte_rate: one response carries at most what the quota allows over the window, so
  // that a single fetch cannot earn a throttle on its own (docs/quotas.md).
  if (quotas != nullptr) {
    if (auto cap = quotas->fetch_max_bytes(ctx.quota_client())) {
      req->max_bytes = static_cast<int32_t>(std::min<int64_t>(req->max_bytes, *cap));
    }
  }
  const auto wait = std::min<std::chrono::milliseconds>(
      std::chrono::milliseconds(std::max(0, req->max_wait_ms)), ctx.broker->max_fetch_wait);
  const auto deadline = Clock::now() + wait;
  int64_t bytes = co_await read_all(ctx, req.value(), targets);
  while (bytes < req->min_bytes && !any_error(targets) && Clock::now() < deadline) {
    const auto waiting = Clock::now();
    co_await wait_for_data(targets, deadline);
    ctx.waited += Clock::now() - waiting;  // the long poll is not the client's request time
    for (Target& t : targets) {
      if (t.part && t.part->removed) t.error = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
    }
    bytes = co_await read_all(ctx, req.value(), targets);
  }
  if (quotas != nullptr) {
    ctx.throttle_ms = quotas->record_fetch(ctx.quota_client(), bytes);
    if (ctx.throttle_ms > 0) {
      // Kafka's throttled fetch: no partitions at all, so the session's state stays as the
      // client last saw it, and the bytes not sent no longer count.
      quotas->unrecord_fetch(ctx.quota_client(), bytes);
      FetchResponse throttled;
      throttled.session_id = session ? session->id : 0;
      co_return respond(ctx, throttled);
    }
  }
  const bool incremental = req->session_epoch > 0;
  auto owned = std::make_shared<std::vector<Target>>(std::move(targets));
  FetchResponse resp = build_response(ctx, *owned, incremental);
  resp.session_id = session ? session->id : 0;
  co_return respond_spliced(ctx, resp, owned);
}

}  // namespace mirra::server
