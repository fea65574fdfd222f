// Client's routed data calls: produce, fetch, list_offsets and offset_for_leader_epoch. Each builds
// one request per leader from the partitions route() hands it and maps the response back to those
// partitions. Fetch uses the caller's FetchSessions (KIP-227, client/fetch_sessions.h) when given
// one.
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "client/client.h"
#include "client/client_routing.h"
#include "client/fetch_sessions.h"

namespace mirra::client {
namespace {

// The entry for `name` in a request's topic list, appended when missing. Requests are small
// (one entry per topic), so a linear search is fine.
template <typename Topic, typename Name>
Topic& topic_entry(std::vector<Topic>& topics, const std::string& name, Name Topic::*field) {
  for (Topic& t : topics) {
    if (t.*field == name) return t;
  }
  Topic& t = topics.emplace_back();
  t.*field = name;
  return t;
}

// Response partitions are looked up by (topic, partition) to find the caller's item.
using IndexMap = std::map<TopicPartition, size_t>;

template <typename Item>
IndexMap index_of(const std::vector<Item>& items, const std::vector<size_t>& indexes) {
  IndexMap m;
  for (size_t i : indexes) m[items[i].tp] = i;
  return m;
}

// The caller's result for a partition of a response, taken out of `pending`; nullptr for a
// partition that was not asked for (or is answered twice).
template <typename Out>
Out* claim(IndexMap& pending, std::vector<Out>& out, const std::string& topic, int32_t partition) {
  auto it = pending.find(TopicPartition{topic, partition});
  if (it == pending.end()) return nullptr;
  Out* r = &out[it->second];
  pending.erase(it);
  return r;
}

Status missing_answer(std::string_view api, const TopicPartition& tp, const BrokerConnection& c) {
  return Status(
      ErrorCode::UNKNOWN_SERVER_ERROR,
      fmt::format("the {} response from {} has no answer for {}", api, c.address(), to_string(tp)));
}

// ---- fetch ----

std::vector<FetchTarget> fetch_targets(const std::vector<FetchPosition>& positions,
                                       const std::vector<size_t>& indexes,
                                       const ClusterMetadata& cache) {
  std::vector<FetchTarget> targets;
  targets.reserve(indexes.size());
  for (size_t i : indexes) {
    const FetchPosition& f = positions[i];
    const TopicInfo* info = cache.topic(f.tp.topic);
    targets.push_back(FetchTarget{f.tp, info ? info->id : Uuid::zero(), f.offset, f.max_bytes,
                                  f.current_leader_epoch});
  }
  return targets;
}

protocol::FetchRequest fetch_request(const FetchOptions& opts, const FetchSessions::Request& plan,
                                     const std::vector<FetchTarget>& targets) {
  using Req = protocol::FetchRequest;
  Req req;
  req.replica_id = -1;
  req.max_wait_ms = opts.max_wait_ms;
  req.min_bytes = opts.min_bytes;
  req.max_bytes = opts.max_bytes;
  req.isolation_level = static_cast<int8_t>(opts.isolation);
  req.session_id = plan.session_id;
  req.session_epoch = plan.epoch;
  for (size_t i : plan.send) {
    const FetchTarget& f = targets[i];
    Req::FetchTopic& t = topic_entry(req.topics, f.tp.topic, &Req::FetchTopic::topic);
    t.topic_id = f.topic_id;
    Req::FetchPartition p;
    p.partition = f.tp.partition;
    p.current_leader_epoch = f.current_leader_epoch;
    p.fetch_offset = f.offset;
    p.partition_max_bytes = f.max_bytes;
    t.partitions.push_back(p);
  }
  const bool by_id = plan.version >= kFetchTopicIdsFromVersion;
  for (const auto& [tp, id] : plan.forget) {
    Req::ForgottenTopic* entry = nullptr;
    for (Req::ForgottenTopic& f : req.forgotten_topics_data) {
      if (by_id ? f.topic_id == id : f.topic == tp.topic) entry = &f;
    }
    if (entry == nullptr) {
      entry = &req.forgotten_topics_data.emplace_back();
      entry->topic = tp.topic;
      entry->topic_id = id;
    }
    entry->partitions.push_back(tp.partition);
  }
  return req;
}

void fill_fetched(FetchedPartition& r, const protocol::FetchResponse::PartitionData& p,
                  const std::shared_ptr<RawBytes>& buffer) {
  r.status = status_from(p.error_code, std::nullopt, "fetch " + to_string(r.tp));
  r.high_watermark = p.high_watermark;
  r.last_stable_offset = p.last_stable_offset;
  r.log_start_offset = p.log_start_offset;
  r.aborted_transactions.clear();
  for (const auto& a : p.aborted_transactions.value_or(
           std::vector<protocol::FetchResponse::AbortedTransaction>{})) {
    r.aborted_transactions.push_back({a.producer_id, a.first_offset});
  }
  r.buffer = buffer;
  r.records = p.records ? p.records->span() : std::span<const uint8_t>();
}

// A partition an incremental answer left out: no news since the offsets last reported.
void fill_unchanged(FetchedPartition& r, const FetchSessions::Partition& known,
                    const std::shared_ptr<RawBytes>& buffer) {
  r.status = Status::OK();
  r.high_watermark = known.high_watermark;
  r.last_stable_offset = known.last_stable_offset;
  r.log_start_offset = known.log_start_offset;
  r.aborted_transactions.clear();
  r.buffer = buffer;
  r.records = {};
}

// One request's use of a broker's fetch session (none when `sessions` is null), reported to
// FetchSessions exactly once: a request torn down unanswered (its executor stopped) resets the
// session instead of leaving it in flight for good.
class SessionRequest {
 public:
  SessionRequest(FetchSessions* sessions, FetchSessions::Request plan)
      : sessions_(sessions), plan_(std::move(plan)) {}
  ~SessionRequest() {
    if (sessions_ != nullptr) sessions_->fail(plan_, ErrorCode::NETWORK_EXCEPTION);
  }
  SessionRequest(const SessionRequest&) = delete;
  SessionRequest& operator=(const SessionRequest&) = delete;

  const FetchSessions::Request& plan() const { return plan_; }
  Status failed(Status why) {
    if (sessions_ != nullptr) sessions_->fail(plan_, why.code());
    sessions_ = nullptr;
    return why;
  }
  // See FetchSessions::complete(); the recording calls below stay usable afterwards.
  bool completed(const std::vector<FetchTarget>& targets, int32_t response_session_id) {
    if (sessions_ == nullptr) return true;
    FetchSessions* sessions = std::exchange(sessions_, nullptr);
    if (plan_.uses_session()) done_ = sessions;
    return sessions->complete(plan_, targets, response_session_id);
  }
  void record(const FetchedPartition& r) {
    if (done_ != nullptr) {
      done_->record(plan_.node_id, r.tp, r.high_watermark, r.last_stable_offset,
                    r.log_start_offset);
    }
  }
  const FetchSessions::Partition* answered(const TopicPartition& tp) const {
    return done_ == nullptr ? nullptr : done_->answered(plan_.node_id, tp);
  }

 private:
  FetchSessions* sessions_;        // until the outcome is reported
  FetchSessions* done_ = nullptr;  // after a completed answer in the session
  FetchSessions::Request plan_;
};

}  // namespace

asio::awaitable<Result<std::vector<ProduceResult>>> Client::produce(
    std::vector<ProduceBatch> batches, ProduceOptions opts) {
  auto send_group = [&batches, &opts](BrokerConnection& conn, const std::vector<size_t>& indexes,
                                      std::vector<ProduceResult>& out) -> asio::awaitable<Status> {
    using Req = protocol::ProduceRequest;
    Req req;
    req.acks = opts.acks;
    req.timeout_ms = opts.timeout_ms;
    for (size_t i : indexes) {
      const ProduceBatch& b = batches[i];
      Req::PartitionProduceData pd;
      pd.index = b.tp.partition;
      pd.records = protocol::RecordsView{b.records.data(), b.records.size()};
      topic_entry(req.topic_data, b.tp.topic, &Req::TopicProduceData::name)
          .partition_data.push_back(std::move(pd));
    }
    auto reply = co_await conn.send(req);
    if (!reply.ok()) co_return reply.status();
    IndexMap pending = index_of(batches, indexes);
    for (const auto& t : reply->body.responses) {
      for (const auto& p : t.partition_responses) {
        ProduceResult* r = claim(pending, out, t.name, p.index);
        if (r == nullptr) continue;
        r->status = status_from(p.error_code, p.error_message, "produce to " + to_string(r->tp));
        r->base_offset = p.base_offset;
        r->log_append_time = p.log_append_time_ms;
        r->log_start_offset = p.log_start_offset;
      }
    }
    // acks=0: nothing comes back, and nothing is owed.
    for (auto& [tp, i] : pending) {
      out[i].status = opts.acks == 0 ? Status::OK() : missing_answer("Produce", tp, conn);
    }
    co_return Status::OK();
  };
  co_return co_await route<ProduceResult>(batches, send_group);
}

asio::awaitable<Result<std::vector<FetchedPartition>>> Client::fetch(
    std::vector<FetchPosition> positions, FetchOptions opts) {
  // Brokers already asked in this call with opts.sessions: a second request to one (a retry
  // round, a partition asked twice) holds only part of the caller's partitions, which an
  // incremental request would take as forgetting the others, so it goes sessionless.
  std::set<int32_t> asked;
  auto send_group = [this, &positions, &opts, &asked](
                        int32_t node, BrokerConnection& conn, const std::vector<size_t>& indexes,
                        std::vector<FetchedPartition>& out) -> asio::awaitable<Status> {
    const std::vector<FetchTarget> targets = fetch_targets(positions, indexes, cache_);
    // Fetch v13+ names topics by id only; without ids (old Metadata) stay at v12.
    std::optional<int16_t> cap;
    for (const FetchTarget& t : targets) {
      if (t.topic_id.is_zero()) cap = kFetchTopicIdsFromVersion - 1;
    }
    auto version = conn.version_for(protocol::FetchRequest::kApiKey, cap);
    if (!version.ok()) co_return version.status();
    const bool with_session = opts.sessions != nullptr && asked.insert(node).second;
    SessionRequest session(with_session ? opts.sessions : nullptr,
                           with_session
                               ? opts.sessions->prepare(node, version.value(), targets)
                               : FetchSessions::sessionless(node, version.value(), targets.size()));
    const protocol::FetchRequest req = fetch_request(opts, session.plan(), targets);
    SendOptions send_opts;
    send_opts.timeout = options_.request_timeout + Millis(opts.max_wait_ms);
    send_opts.max_version = version.value();
    auto reply = co_await conn.send(req, send_opts);
    if (!reply.ok()) co_return session.failed(reply.status());
    const auto& body = reply->body;
    if (Status s = status_from(body.error_code, std::nullopt, "fetch from " + conn.address());
        !s.ok()) {
      co_return session.failed(s);
    }
    const bool continued = session.completed(targets, body.session_id);
    std::map<Uuid, std::string> names;
    for (const FetchTarget& t : targets) names[t.topic_id] = t.tp.topic;
    const bool by_id = reply->version >= kFetchTopicIdsFromVersion;
    // Every partition's records point into this one frame, which they keep alive together.
    auto buffer = std::make_shared<RawBytes>(std::move(reply->frame));
    IndexMap pending = index_of(positions, indexes);
    for (const auto& t : body.responses) {
      const std::string& name = by_id ? names[t.topic_id] : t.topic;
      for (const auto& p : t.partitions) {
        FetchedPartition* found = claim(pending, out, name, p.partition_index);
        if (found == nullptr) continue;
        fill_fetched(*found, p, buffer);
        session.record(*found);
      }
    }
    for (auto& [tp, i] : pending) {
      // A quota-throttled answer carries no partitions at all (docs/quotas.md): nothing this
      // time; the connection waits out the throttle before the next request.
      if (body.throttle_time_ms > 0 && body.responses.empty()) {
        out[i].status = Status(ErrorCode::THROTTLING_QUOTA_EXCEEDED,
                               fmt::format("{} throttled the fetch for {} ms (quota)",
                                           conn.address(), body.throttle_time_ms));
        continue;
      }
      // An incremental answer leaves out the partitions without news: most of them when many
      // partitions are fetched, so theirs is the path without formatting.
      const bool incremental = session.plan().incremental();
      if (incremental && continued) {
        if (const FetchSessions::Partition* known = session.answered(tp)) {
          fill_unchanged(out[i], *known, buffer);
          continue;
        }
      }
      if (incremental && !continued) {
        out[i].status =
            Status(ErrorCode::FETCH_SESSION_ID_NOT_FOUND,
                   fmt::format("{} ended fetch session {} (answered session {})", conn.address(),
                               session.plan().session_id, body.session_id));
        continue;
      }
      out[i].status = missing_answer("Fetch", tp, conn);
    }
    co_return Status::OK();
  };
  co_return co_await route<FetchedPartition>(positions, send_group);
}

asio::awaitable<Result<std::vector<PartitionOffset>>> Client::list_offsets(
    std::vector<OffsetQuery> queries, IsolationLevel isolation) {
  // One request for `indexes`; false when the answer is unusable as a whole.
  auto ask = [this, &queries,
              isolation](BrokerConnection& conn, const std::vector<size_t>& indexes,
                         std::vector<PartitionOffset>& out) -> asio::awaitable<Result<bool>> {
    using Req = protocol::ListOffsetsRequest;
    Req req;
    req.replica_id = -1;
    req.isolation_level = static_cast<int8_t>(isolation);
    req.timeout_ms = static_cast<int32_t>(options_.request_timeout.count());
    for (size_t i : indexes) {
      Req::ListOffsetsPartition p;
      p.partition_index = queries[i].tp.partition;
      p.timestamp = queries[i].timestamp;
      topic_entry(req.topics, queries[i].tp.topic, &Req::ListOffsetsTopic::name)
          .partitions.push_back(p);
    }
    auto reply = co_await conn.send(req);
    if (!reply.ok()) {
      if (reply.status().code() == ErrorCode::CORRUPT_MESSAGE && conn.is_open()) co_return false;
      co_return reply.status();
    }
    IndexMap pending = index_of(queries, indexes);
    for (const auto& t : reply->body.topics) {
      for (const auto& p : t.partitions) {
        PartitionOffset* r = claim(pending, out, t.name, p.partition_index);
        if (r == nullptr) continue;
        r->status = status_from(p.error_code, std::nullopt, "list offsets of " + to_string(r->tp));
        r->offset = p.offset;
        r->timestamp = p.timestamp;
        r->leader_epoch = p.leader_epoch;
      }
    }
    if (!pending.empty() && indexes.size() > 1) co_return false;
    for (auto& [tp, i] : pending) out[i].status = missing_answer("ListOffsets", tp, conn);
    co_return true;
  };
  // librdkafka 2.0's mock broker garbles ListOffsets v4+ answers for several partitions (four
  // stray bytes after each leader epoch); such an answer is asked again partition by partition.
  auto send_group = [&ask](BrokerConnection& conn, const std::vector<size_t>& indexes,
                           std::vector<PartitionOffset>& out) -> asio::awaitable<Status> {
    auto whole = co_await ask(conn, indexes, out);
    if (!whole.ok()) co_return whole.status();
    if (whole.value()) co_return Status::OK();
    for (size_t i : indexes) {
      const std::vector<size_t> single(1, i);  // named: g++ 12 and braces inside co_await
      auto one = co_await ask(conn, single, out);
      if (!one.ok()) co_return one.status();
      if (!one.value()) out[i].status = missing_answer("ListOffsets", out[i].tp, conn);
    }
    co_return Status::OK();
  };
  co_return co_await route<PartitionOffset>(queries, send_group);
}

asio::awaitable<Result<std::vector<EpochEndOffset>>> Client::offset_for_leader_epoch(
    std::vector<EpochQuery> queries) {
  auto send_group = [&queries](BrokerConnection& conn, const std::vector<size_t>& indexes,
                               std::vector<EpochEndOffset>& out) -> asio::awaitable<Status> {
    using Req = protocol::OffsetForLeaderEpochRequest;
    Req req;
    req.replica_id = -1;  // a consumer
    for (size_t i : indexes) {
      Req::OffsetForLeaderPartition p;
      p.partition = queries[i].tp.partition;
      p.current_leader_epoch = queries[i].current_leader_epoch;
      p.leader_epoch = queries[i].leader_epoch;
      topic_entry(req.topics, queries[i].tp.topic, &Req::OffsetForLeaderTopic::topic)
          .partitions.push_back(p);
    }
    auto reply = co_await conn.send(req);
    if (!reply.ok()) co_return reply.status();
    IndexMap pending = index_of(queries, indexes);
    for (const auto& t : reply->body.topics) {
      for (const auto& p : t.partitions) {
        EpochEndOffset* r = claim(pending, out, t.topic, p.partition);
        if (r == nullptr) continue;
        r->status = status_from(p.error_code, std::nullopt, "epoch end of " + to_string(r->tp));
        r->leader_epoch = p.leader_epoch;
        r->end_offset = p.end_offset;
      }
    }
    for (auto& [tp, i] : pending) out[i].status = missing_answer("OffsetForLeaderEpoch", tp, conn);
    co_return Status::OK();
  };
  co_return co_await route<EpochEndOffset>(queries, send_group);
}

}  // namespace mirra::client
