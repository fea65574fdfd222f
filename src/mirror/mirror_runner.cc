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

// How long the runner's admin calls and its fetches retry a moved leader or a lost connection.
constexpr std::chrono::milliseconds kAdminRetryTimeout{5000};
constexpr std::chrono::milliseconds kFetchRetryTimeout{1000};

std::string admin_client_id(const std::string& mirror, int32_t node_id) {
  return fmt::format("mirra-mirror-{}-b{}-admin", mirror, node_id);
}

}  // namespace

Result<std::shared_ptr<MirrorRunner>> MirrorRunner::create(const MirrorRunnerContext& ctx,
                                                           std::string name,
                                                           MirrorConfigs configs) {
  auto settings = parse_mirror_settings(configs);
  if (!settings.ok()) return settings.status();
  // The key and trust stores are read once here; every client of the mirror (fetchers, admin,
  // sync) shares the context through the settings.
  if (Status s = client::prepare_client_security(settings->security); !s.ok()) return s;
  auto source = std::make_unique<ClientMirrorSource>(ctx.core, settings->bootstrap_servers,
                                                     settings->security);
  auto admin = source->admin_client(admin_client_id(name, ctx.node_id));
  if (!admin.ok()) return admin.status();
  return assemble(ctx, std::move(name), std::move(configs), std::move(settings.value()),
                  std::move(source), std::move(admin.value()));
}

Result<std::shared_ptr<MirrorRunner>> MirrorRunner::create(const MirrorRunnerContext& ctx,
                                                           std::string name, MirrorConfigs configs,
                                                           std::unique_ptr<MirrorSource> source) {
  auto settings = parse_mirror_settings(configs);
  if (!settings.ok()) return settings.status();
  return assemble(ctx, std::move(name), std::move(configs), std::move(settings.value()),
                  std::move(source), nullptr);
}

Result<std::shared_ptr<MirrorRunner>> MirrorRunner::assemble(
    const MirrorRunnerContext& ctx, std::string name, MirrorConfigs configs,
    MirrorSettings settings, std::unique_ptr<MirrorSource> source,
    std::unique_ptr<client::Client> admin_client) {
  std::shared_ptr<MirrorRunner> r(new MirrorRunner(ctx, std::move(name), std::move(configs),
                                                   std::move(settings), std::move(source)));
  if (admin_client != nullptr) {
    // The runner's own admin calls share the manager's client, as one connection.
    r->admin_client_ = std::move(admin_client);
    r->admin_ = ClientMirrorSource::borrow(*r->admin_client_);
  } else {
    auto admin = r->source_->connect(admin_client_id(r->name_, ctx.node_id), kAdminRetryTimeout);
    if (!admin.ok()) return admin.status();
    r->admin_ = std::move(admin.value());
  }
  if (Status s = r->connect(); !s.ok()) return s;
  return r;
}

// docs/mirroring-design.md §10: a client id per fetcher, which the source's quotas can
// throttle. A short retry timeout: the loops retry on their own, and one partition's retries
// inside a fetch hold up the answer for the others.
Status MirrorRunner::connect() {
  for (int32_t f = 0; f < std::max(1, ctx_.broker.num_fetchers); ++f) {
    auto c = source_->connect(fmt::format("mirra-mirror-{}-b{}-f{}", name_, ctx_.node_id, f),
                              kFetchRetryTimeout);
    if (!c.ok()) return c.status();
    fetchers_.push_back({std::move(c.value()), {}});
    idle_.push_back(std::make_unique<asio::steady_timer>(ctx_.core));
  }
  return Status::OK();
}

MirrorRunner::MirrorRunner(const MirrorRunnerContext& ctx, std::string name, MirrorConfigs configs,
                           MirrorSettings settings, std::unique_ptr<MirrorSource> source)
    : ctx_(ctx),
      name_(std::move(name)),
      configs_(std::move(configs)),
      settings_(std::move(settings)),
      source_(std::move(source)),
      exited_(ctx.core, asio::steady_timer::time_point::max()),
      random_(std::random_device{}()) {
  if (!ctx_.now) ctx_.now = [] { return std::chrono::steady_clock::now(); };
  if (!ctx_.random01) {
    ctx_.random01 = [this] { return std::uniform_real_distribution<double>(0, 1)(random_); };
  }
}

void MirrorRunner::start() {
  MIRRA_ASSERT_OWNER(owner_);
  MIRRA_LOG_INFO("mirror {}: fetching from {} with {} fetcher(s)", name_,
                 settings_.bootstrap_servers, fetchers_.size());
  for (size_t f = 0; f < fetchers_.size(); ++f) {
    ++live_loops_;
    asio::co_spawn(
        ctx_.core, [self = shared_from_this(), f]() { return self->supervise(f); }, asio::detached);
  }
}

void MirrorRunner::stop() {
  MIRRA_ASSERT_OWNER(owner_);
  stopping_ = true;
  for (auto& timer : idle_) timer->cancel();
  admin_->close();
  if (admin_client_ != nullptr) admin_client_->close();
  for (Fetcher& f : fetchers_) f.connection->close();
}

asio::awaitable<void> MirrorRunner::stopped() {
  if (live_loops_ == 0) co_return;
  asio::error_code ec;
  co_await exited_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

void MirrorRunner::loop_ended() {
  MIRRA_ASSERT(live_loops_ > 0, "mirror {}: a loop ended that never started", name_);
  if (--live_loops_ == 0 && stopping_) exited_.cancel();
}

void MirrorRunner::wake() {
  for (auto& timer : idle_) timer->expires_at(SteadyTime::min());
}

void MirrorRunner::reset(const client::TopicPartition& tp) {
  MIRRA_ASSERT_OWNER(owner_);
  PartitionMirrorStatus& st = status_[tp];
  st.pipeline.succeeded();
  st.last_error = Status::OK();
  wake();
}

asio::awaitable<void> MirrorRunner::wait(asio::steady_timer& timer, SteadyTime until) {
  // wake() moves the expiry into the past, also while nobody waits: such a wake is not lost.
  if (timer.expiry() == SteadyTime::min() || stopping_) {
    timer.expires_at(SteadyTime::max());
    co_return;
  }
  // `until` is on the context's clock; the timer runs on the steady clock.
  timer.expires_after(std::max(until - now(), SteadyTime::duration::zero()));
  asio::error_code ec;
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  timer.expires_at(SteadyTime::max());
}

size_t MirrorRunner::fetcher_of(const client::TopicPartition& tp) const {
  const size_t h = std::hash<std::string>{}(tp.topic) * 31 + static_cast<size_t>(tp.partition);
  return h % fetchers_.size();
}

bool MirrorRunner::fetching(const MirrorStateKey& key) const {
  const MirrorStateValue* v = ctx_.sink.state(key);
  if (v == nullptr) return true;  // added before its first state was written
  switch (static_cast<MirrorState>(v->state)) {
    case MirrorState::preparing:
    case MirrorState::mirroring:
      return true;
    case MirrorState::failed:
      return retried_automatically(ctx_.broker, error_from_number(v->last_error_code), v->retries);
    default:
      return false;
  }
}

std::map<int32_t, std::vector<client::FetchPosition>> MirrorRunner::due_positions(size_t fetcher) {
  std::map<int32_t, std::vector<client::FetchPosition>> out;
  const SteadyTime at = now();
  const client::ClusterMetadata& md = fetchers_[fetcher].connection->cached_metadata();
  const bool over_cap = throttle_exceeded();
  bool held = false;
  for (const SinkTopic& t : ctx_.sink.topics(name_)) {
    const ThrottledReplicas listed = throttled_replicas(t);
    const client::TopicInfo* source = md.topic(t.name);
    // A source topic recreated with another id is another topic: fetching it at our offsets
    // would mix two topics' records. The topics sync fails it for good (§8).
    if (source != nullptr && !source->id.is_zero() && source->id != t.id) continue;
    for (int32_t partition : t.partitions) {
      client::TopicPartition tp{t.name, partition};
      if (fetcher_of(tp) != fetcher) continue;
      const std::optional<SinkLog> log = ctx_.sink.log(tp);
      if (!log || !log->online || !fetching({t.id, partition})) continue;
      if (held_back(t, listed, partition, over_cap)) {  // docs/quotas.md
        held = true;
        continue;
      }
      PartitionMirrorStatus& st = status_[tp];
      const std::optional<int64_t> offset = st.pipeline.fetch_offset(log->log_end, at);
      if (!offset) continue;
      const client::PartitionInfo* sp = source ? source->partition(partition) : nullptr;
      if (sp == nullptr) {
        out[-1].push_back({std::move(tp), *offset, settings_.fetch_max_bytes});
        continue;
      }
      if (st.compared_source_epoch != sp->leader_epoch) {
        // §2.4: compared once nothing of it is in flight, before it is fetched again.
        if (!st.pipeline.in_request() && st.pipeline.answers_pending() == 0) {
          out[kCompareEpochs].push_back({std::move(tp), *offset, 0, sp->leader_epoch});
        }
        continue;
      }
      out[sp->leader].push_back({std::move(tp), *offset, settings_.fetch_max_bytes,
                                 std::max(-1, st.compared_source_epoch)});
    }
  }
  note_held_back(fetcher, held);
  return out;
}

SteadyTime MirrorRunner::next_due() const {
  SteadyTime next = SteadyTime::max();
  const SteadyTime at = now();
  for (const auto& [tp, st] : status_) {
    if (st.pipeline.not_before() > at) next = std::min(next, st.pipeline.not_before());
  }
  return std::min(next, throttle_ends());
}

asio::awaitable<void> MirrorRunner::supervise(size_t f) {
  MIRRA_ASSERT_OWNER(owner_);
  Fetcher& fetcher = fetchers_[f];
  SteadyTime next_topic_check{};
  while (!stopping_) {
    auto due = due_positions(f);
    if (auto unknown = due.find(-1); unknown != due.end()) {
      // Leaders not known yet (a new topic) or lost: ask again; still none is a failure.
      std::vector<std::string> topics;
      for (const auto& pos : unknown->second) topics.push_back(pos.tp.topic);
      auto md = co_await fetcher.connection->metadata(std::move(topics));
      due = due_positions(f);
      // Named, not a temporary inside co_await (g++ 12).
      const Status why =
          md.ok() ? Status(ErrorCode::LEADER_NOT_AVAILABLE, "the source has no leader for it")
                  : md.status();
      for (const auto& pos : due[-1]) co_await failed(pos.tp, why);
    }
    if (auto compare = due.find(kCompareEpochs); compare != due.end() && !stopping_) {
      co_await compare_epochs(std::move(compare->second));
      idle_[f]->expires_at(SteadyTime::min());  // compared: fetched from the next look on
    }
    for (const auto& [broker, positions] : due) {
      if (broker < 0 || fetcher.brokers.count(broker) || stopping_) continue;
      fetcher.brokers.insert(broker);
      ++live_loops_;
      asio::co_spawn(
          ctx_.core,
          [self = shared_from_this(), f, broker = broker]() { return self->fetch_from(f, broker); },
          asio::detached);
    }
    const SteadyTime at = now();
    if (f == 0 && at >= next_topic_check) {
      co_await check_source_topics();
      next_topic_check = at + std::chrono::milliseconds(ctx_.broker.metadata_refresh_interval_ms);
    }
    co_await wait(*idle_[f], std::min(next_due(), at + kIdleWait));
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
    for (const client::FetchedPartition& answer : fetched->answers) {
      status_[answer.tp].pipeline.answer_handled(false);
    }
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
  std::vector<uint64_t> generations;
  for (const auto& pos : positions) generations.push_back(status_[pos.tp].pipeline.request_sent());
  client::FetchOptions options;
  options.max_wait_ms = settings_.fetch_max_wait_ms;
  options.min_bytes = settings_.fetch_min_bytes;
  options.max_bytes = settings_.fetch_response_max_bytes;
  options.isolation = client::IsolationLevel::read_committed;  // never past the source LSO
  const int64_t started_ms = steady_ms();
  auto fetched = co_await fetchers_[f].connection->fetch(positions, options);
  const int64_t latency_ms = steady_ms() - started_ms;
  Round round{std::move(positions), {}};
  for (const auto& pos : round.asked) {
    PartitionMirrorStatus& st = status_[pos.tp];
    st.fetch_latency_ms = latency_ms;
    st.fetch_latency.observe(static_cast<double>(latency_ms) / 1000.0);
  }
  if (fetched.ok() && fetched->size() != round.asked.size()) {
    fetched = Status(ErrorCode::UNKNOWN_SERVER_ERROR,
                     fmt::format("the source answered {} of {} partitions", fetched->size(),
                                 round.asked.size()));
  }
  if (!fetched.ok()) {
    for (const auto& pos : round.asked) {
      status_[pos.tp].pipeline.request_failed();
      co_await failed(pos.tp, fetched.status());
    }
    co_return round;
  }
  round.answers = std::move(fetched.value());
  record_throttled(round);
  for (size_t i = 0; i < round.answers.size(); ++i) {
    const client::FetchedPartition& answer = round.answers[i];
    MIRRA_ASSERT(answer.tp == round.asked[i].tp, "mirror {}: answers out of order", name_);
    std::optional<int64_t> end;
    if (answer.status.ok()) {
      end = end_of_batches(answer.records, round.asked[i].offset);
      status_[answer.tp].last_fetch_wall_ms = now_ms();
    }
    status_[answer.tp].pipeline.answer_received(generations[i], end);
  }
  co_return round;
}

// The partitions of a round are appended side by side: they live on different shards, so two
// cores write at once instead of taking turns.
asio::awaitable<void> MirrorRunner::apply_round(Round round) {
  std::vector<asio::awaitable<void>> appends;
  for (size_t i = 0; i < round.answers.size(); ++i) {
    if (handled_idle(round.answers[i], round.asked[i].offset)) continue;
    // The source's quota held the fetch back (docs/quotas.md): asked again at the log end once
    // the connection has waited out the throttle; no error, no backoff.
    if (round.answers[i].status.code() == ErrorCode::THROTTLING_QUOTA_EXCEEDED) {
      status_[round.answers[i].tp].pipeline.answer_handled(false);
      continue;
    }
    appends.push_back(apply_answer(round.answers[i], round.asked[i].offset));
  }
  co_await when_all(std::move(appends));
}

asio::awaitable<void> MirrorRunner::apply_answer(const client::FetchedPartition& answer,
                                                 int64_t asked_offset) {
  const bool landed = co_await apply(answer, asked_offset);
  status_[answer.tp].pipeline.answer_handled(landed);
}

}  // namespace mirra::mirror
