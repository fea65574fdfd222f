#include "mirror/mirror_runner.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/log.h"
#include "mirror/mirror_admin.h"
#include "mirror/mirror_failure.h"

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
  // MIRRORING.md §10: a client id per fetcher, which the source's quotas can throttle. A short
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
      if (st.in_flight || st.not_before > now) continue;
      const client::PartitionInfo* sp = source ? source->partition(p.partition) : nullptr;
      out[sp ? sp->leader : -1].push_back({tp, handle->offsets.log_end, max_bytes});
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

asio::awaitable<void> MirrorRunner::fetch_from(size_t f, int32_t broker) {
  while (!stopping_) {
    auto due = due_positions(f);
    auto mine = due.find(broker);
    if (mine == due.end()) break;  // nothing of this fetcher led by that broker is due
    co_await fetch_round(f, std::move(mine->second));
  }
  fetchers_[f].brokers.erase(broker);
  idle_[f]->expires_at(SteadyTime::min());  // the supervisor looks again
  loop_ended();
}

asio::awaitable<void> MirrorRunner::fetch_round(size_t f,
                                                std::vector<client::FetchPosition> positions) {
  for (const auto& pos : positions) status_[pos.tp].in_flight = true;
  client::FetchOptions options;
  options.max_wait_ms = int_config(*this, "mirror.fetch.max.wait.ms");
  options.min_bytes = int_config(*this, "mirror.fetch.min.bytes");
  options.max_bytes = int_config(*this, "mirror.fetch.response.max.bytes");
  options.isolation = client::IsolationLevel::read_committed;  // never past the source LSO
  options.sessions = fetchers_[f].sessions.get();
  auto fetched = co_await fetchers_[f].client->fetch(positions, options);
  if (!fetched.ok()) {
    for (const auto& pos : positions) {
      status_[pos.tp].in_flight = false;
      co_await failed(pos.tp, fetched.status());
    }
    co_return;
  }
  for (const client::FetchedPartition& answer : fetched.value()) {
    co_await apply(answer);
    status_[answer.tp].in_flight = false;
  }
}

}  // namespace mirra::mirror
