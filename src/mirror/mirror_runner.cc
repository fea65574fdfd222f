#include "mirror/mirror_runner.h"

#include <algorithm>
#include <optional>

#include <asio/experimental/awaitable_operators.hpp>

#include <fmt/format.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/when_all.h"
#include "mirror/mirror_admin.h"
#include "mirror/mirror_failure.h"
#include "protocol/records/record_set.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

// How long a supervisor waits at most before it looks at its partitions again: new topics,
// leaders that moved, partitions whose backoff ended.
constexpr std::chrono::milliseconds kIdleWait{1000};

int32_t int_config(const MirrorRunner& r, const std::string& key) {
  return static_cast<int32_t>(std::stoll(r.config(key)));  // checked by CreateMirror
}

Result<std::unique_ptr<client::Client>> source_client(const MirrorRunner& r,
                                                      asio::any_io_executor core,
                                                      std::string client_id,
                                                      std::chrono::milliseconds retry_timeout) {
  client::ClientOptions o;
  o.bootstrap_servers = r.config("bootstrap.servers");
  o.client_id = std::move(client_id);
  o.retry_timeout = retry_timeout;
  return client::Client::create(core, o);
}

}  // namespace

Result<std::shared_ptr<MirrorRunner>> MirrorRunner::create(const MirrorRunnerContext& ctx,
                                                           std::string name,
                                                           MirrorConfigs configs) {
  std::shared_ptr<MirrorRunner> r(new MirrorRunner(ctx, std::move(name), std::move(configs)));
  auto admin = source_client(*r, ctx.core, fmt::format("mirra-mirror-{}-b{}-admin", r->name_,
                                                       ctx.node_id),
                             std::chrono::milliseconds(5000));
  if (!admin.ok()) return admin.status();
  r->admin_ = std::move(admin.value());
  // docs/mirroring-design.md §10: a client id per fetcher, which the source's quotas can throttle. A short
  // retry timeout: the loops retry on their own, and one partition's retries inside a fetch
  // hold up the answer for the others.
  for (int32_t f = 0; f < std::max(1, ctx.broker.num_fetchers); ++f) {
    auto c = source_client(*r, ctx.core,
                           fmt::format("mirra-mirror-{}-b{}-f{}", r->name_, ctx.node_id, f),
                           std::chrono::milliseconds(1000));
    if (!c.ok()) return c.status();
    r->fetchers_.push_back(
        {std::move(c.value()), std::make_unique<client::FetchSessions>(), {}});
    r->idle_.push_back(std::make_unique<asio::steady_timer>(ctx.core));
  }
  return r;
}

MirrorRunner::MirrorRunner(const MirrorRunnerContext& ctx, std::string name,
                           MirrorConfigs configs)
    : ctx_(ctx),
      name_(std::move(name)),
      configs_(std::move(configs)),
      exited_(ctx.core, asio::steady_timer::time_point::max()),
      random_(std::random_device{}()) {}

std::string MirrorRunner::config(const std::string& key) const {
  auto it = configs_.find(key);
  if (it != configs_.end()) return it->second;
  return mirror_config_defaults().at(key);
}

void MirrorRunner::start() {
  MIRRA_LOG_INFO("mirror {}: fetching from {} with {} fetcher(s)", name_,
                 config("bootstrap.servers"), fetchers_.size());
  for (size_t f = 0; f < fetchers_.size(); ++f) {
    ++live_loops_;
    asio::co_spawn(ctx_.core, [self = shared_from_this(), f]() { return self->supervise(f); },
                   asio::detached);
  }
}

void MirrorRunner::stop() {
  stopping_ = true;
  for (auto& timer : idle_) timer->cancel();
  admin_->close();
  for (Fetcher& f : fetchers_) f.client->close();
}

asio::awaitable<void> MirrorRunner::stopped() {
  if (live_loops_ == 0) co_return;
  asio::error_code ec;
  co_await exited_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

void MirrorRunner::loop_ended() {
  if (--live_loops_ == 0 && stopping_) exited_.cancel();
}

void MirrorRunner::wake() {
  for (auto& timer : idle_) timer->expires_at(SteadyTime::min());
}

void MirrorRunner::reset(const client::TopicPartition& tp) {
  PartitionMirrorStatus& st = status_[tp];
  st.retries = 0;
  st.last_error = Status::OK();
  st.not_before = {};
  wake();
}

asio::awaitable<void> MirrorRunner::wait(asio::steady_timer& timer, SteadyTime until) {
  // wake() moves the expiry into the past, also while nobody waits: such a wake is not lost.
  if (timer.expiry() == SteadyTime::min() || stopping_) {
    timer.expires_at(SteadyTime::max());
    co_return;
  }
  timer.expires_at(until);
  asio::error_code ec;
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  timer.expires_at(SteadyTime::max());
}

size_t MirrorRunner::fetcher_of(const client::TopicPartition& tp) const {
  const size_t h = std::hash<std::string>{}(tp.topic) * 31 + static_cast<size_t>(tp.partition);
  return h % fetchers_.size();
}

bool MirrorRunner::fetching(const MirrorStateKey& key) const {
  const MirrorStateValue* v = ctx_.states.get(key);
  if (v == nullptr) return true;  // added before its first state was written
  switch (static_cast<MirrorState>(v->state)) {
    case MirrorState::preparing:
    case MirrorState::mirroring:
      return true;
    case MirrorState::failed:
      return retried_automatically(ctx_.broker, error_from_number(v->last_error_code),
                                   v->retries);
    default:
      return false;
  }
}

std::map<int32_t, std::vector<client::FetchPosition>> MirrorRunner::due_positions(
    size_t fetcher) {
  std::map<int32_t, std::vector<client::FetchPosition>> out;
  const SteadyTime now = std::chrono::steady_clock::now();
  const client::ClusterMetadata& md = fetchers_[fetcher].client->cached_metadata();
  const int32_t max_bytes = int_config(*this, "mirror.fetch.max.bytes");
  for (const metadata::TopicInfo* t : mirror_topics(ctx_.store.image(), name_)) {
    const client::TopicInfo* source = md.topic(t->name);
    for (const metadata::PartitionInfo& p : t->partitions) {
      const client::TopicPartition tp{t->name, p.partition};
      if (fetcher_of(tp) != fetcher) continue;
      auto handle = ctx_.partitions.find(t->name, p.partition);
      if (handle == nullptr || !handle->online() || !fetching({t->id, p.partition})) continue;
      const PartitionMirrorStatus& st = status_[tp];
      if (st.requested || st.not_before > now) continue;
      // Waits for its pending answers: the latest failed, or the pipeline broke.
      if (st.answers_pending > 0 && st.next_offset < 0) continue;
      const int64_t offset = st.answers_pending > 0 ? st.next_offset : handle->offsets.log_end;
      const client::PartitionInfo* sp = source ? source->partition(p.partition) : nullptr;
      out[sp ? sp->leader : -1].push_back({tp, offset, max_bytes});
    }
  }
  return out;
}

SteadyTime MirrorRunner::next_due() const {
  SteadyTime next = SteadyTime::max();
  const SteadyTime now = std::chrono::steady_clock::now();
  for (const auto& [tp, st] : status_) {
    if (st.not_before > now) next = std::min(next, st.not_before);
  }
  return next;
}

asio::awaitable<void> MirrorRunner::supervise(size_t f) {
  Fetcher& fetcher = fetchers_[f];
  SteadyTime next_topic_check{};
  while (!stopping_) {
    auto due = due_positions(f);
    if (auto unknown = due.find(-1); unknown != due.end()) {
      // Leaders not known yet (a new topic) or lost: ask again; still none is a failure.
      std::vector<std::string> topics;
      for (const auto& pos : unknown->second) topics.push_back(pos.tp.topic);
      auto md = co_await fetcher.client->metadata(std::move(topics));
      due = due_positions(f);
      // Named, not a temporary inside co_await (g++ 12).
      const Status why = md.ok() ? Status(ErrorCode::LEADER_NOT_AVAILABLE,
                                          "the source has no leader for it")
                                 : md.status();
      for (const auto& pos : due[-1]) co_await failed(pos.tp, why);
    }
    for (const auto& [broker, positions] : due) {
      if (broker < 0 || fetcher.brokers.count(broker) || stopping_) continue;
      fetcher.brokers.insert(broker);
      ++live_loops_;
      asio::co_spawn(ctx_.core,
                     [self = shared_from_this(), f, broker = broker]() {
                       return self->fetch_from(f, broker);
                     },
                     asio::detached);
    }
    const SteadyTime now = std::chrono::steady_clock::now();
    if (f == 0 && now >= next_topic_check) {
      co_await check_source_topics();
      next_topic_check =
          now + std::chrono::milliseconds(ctx_.broker.metadata_refresh_interval_ms);
    }
    co_await wait(*idle_[f], std::min(next_due(), now + kIdleWait));
  }
  loop_ended();
}

// Pipelined: while one answer is appended, the next request is already out at the offsets
// where that answer ends, so the source reads and sends while the destination writes. At most
// one request and one answer per loop at a time: the fetch session sees one request at a time,
// and each partition's answers are appended in order.
asio::awaitable<void> MirrorRunner::fetch_from(size_t f, int32_t broker) {
  using namespace asio::experimental::awaitable_operators;
  std::optional<Round> fetched;  // answered, not appended yet
  while (!stopping_) {
    auto due = due_positions(f);
    auto mine = due.find(broker);
    if (mine == due.end()) {  // nothing of this fetcher led by that broker is due
      if (!fetched) break;
      co_await apply_round(std::move(*fetched));
      fetched.reset();
      continue;
    }
    // Named, not temporaries inside co_await (g++ 12).
    auto next = fetch_round(f, std::move(mine->second));
    if (!fetched) {
      fetched = co_await std::move(next);
      continue;
    }
    auto append = apply_round(std::move(*fetched));
    fetched = co_await (std::move(next) && std::move(append));
  }
  if (fetched) {  // stopping: nothing more is appended
    for (const client::FetchedPartition& answer : fetched->answers) answer_done(answer.tp);
  }
  fetchers_[f].brokers.erase(broker);
  idle_[f]->expires_at(SteadyTime::min());  // the supervisor looks again
  loop_ended();
}

namespace {

// Where the complete batches of an answer end: the offset the next request asks for. Only the
// batch headers are read; the append checks the rest.
int64_t end_of_batches(std::span<const uint8_t> records, int64_t asked) {
  records::RecordSetIterator it(records);
  records::BatchView batch;
  int64_t end = asked;
  while (it.next(batch) == records::RecordSetStep::batch) end = batch.next_offset();
  return end;
}

}  // namespace

asio::awaitable<MirrorRunner::Round> MirrorRunner::fetch_round(
    size_t f, std::vector<client::FetchPosition> positions) {
  for (const auto& pos : positions) status_[pos.tp].requested = true;
  client::FetchOptions options;
  options.max_wait_ms = int_config(*this, "mirror.fetch.max.wait.ms");
  options.min_bytes = int_config(*this, "mirror.fetch.min.bytes");
  options.max_bytes = int_config(*this, "mirror.fetch.response.max.bytes");
  options.isolation = client::IsolationLevel::read_committed;  // never past the source LSO
  options.sessions = fetchers_[f].sessions.get();
  std::vector<uint64_t> generations;
  for (const auto& pos : positions) generations.push_back(status_[pos.tp].generation);
  const int64_t started_ms = steady_ms();
  auto fetched = co_await fetchers_[f].client->fetch(positions, options);
  const int64_t latency_ms = steady_ms() - started_ms;
  Round round{std::move(positions), {}};
  for (const auto& pos : round.asked) {
    status_[pos.tp].requested = false;
    status_[pos.tp].fetch_latency_ms = latency_ms;
  }
  if (!fetched.ok()) {
    for (const auto& pos : round.asked) {
      break_pipeline(pos.tp);
      co_await failed(pos.tp, fetched.status());
    }
    co_return round;
  }
  round.answers = std::move(fetched.value());
  for (size_t i = 0; i < round.answers.size(); ++i) {
    const client::FetchedPartition& answer = round.answers[i];
    PartitionMirrorStatus& st = status_[answer.tp];
    ++st.answers_pending;
    // An answer to a request from before a break leaves next_offset at -1: the partition
    // waits until it is handled (dropped) and is then asked at the log end.
    if (generations[i] == st.generation) {
      st.next_offset =
          answer.status.ok() ? end_of_batches(answer.records, round.asked[i].offset) : -1;
    }
  }
  co_return round;
}

// The partitions of a round are appended side by side: they live on different shards, so two
// cores write at once instead of taking turns.
asio::awaitable<void> MirrorRunner::apply_round(Round round) {
  std::vector<asio::awaitable<void>> appends;
  for (size_t i = 0; i < round.answers.size(); ++i) {
    appends.push_back(apply_answer(round.answers[i], round.asked[i].offset));
  }
  co_await when_all(std::move(appends));
}

asio::awaitable<void> MirrorRunner::apply_answer(const client::FetchedPartition& answer,
                                                 int64_t asked_offset) {
  const bool landed = co_await apply(answer, asked_offset);
  if (!landed) break_pipeline(answer.tp);
  answer_done(answer.tp);
}

void MirrorRunner::break_pipeline(const client::TopicPartition& tp) {
  PartitionMirrorStatus& st = status_[tp];
  ++st.generation;
  st.next_offset = -1;
}

void MirrorRunner::answer_done(const client::TopicPartition& tp) {
  PartitionMirrorStatus& st = status_[tp];
  if (--st.answers_pending <= 0) {
    st.answers_pending = 0;
    st.next_offset = -1;  // the next request asks at the log end
  }
}

}  // namespace mirra::mirror
