#include "mirror/mirror_runner.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "base/log.h"
#include "cluster/topic_config.h"
#include "mirror/mirror_admin.h"
#include "protocol/records/record_set.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

// How long an idle mirror (no topics, or every round failed) waits before it looks again.
constexpr std::chrono::milliseconds kIdleWait{1000};

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int32_t int_config(const MirrorRunner& r, const std::string& key) {
  return static_cast<int32_t>(std::stoll(r.config(key)));  // checked by CreateMirror
}

// The complete batches of a fetched record set, copied, with every producer id rewritten
// (MIRRORING.md §2). A batch the fetch limit cut short is left for the next fetch; a corrupt
// one is an error for the partition.
Result<protocol::Bytes> rewritten_batches(std::span<const uint8_t> fetched) {
  protocol::Bytes out(fetched.begin(), fetched.end());
  records::RecordSetIterator it(out);
  records::BatchView batch;
  size_t end = 0;
  for (;;) {
    const records::RecordSetStep step = it.next(batch);
    if (step == records::RecordSetStep::error) return it.status();
    if (step != records::RecordSetStep::batch) break;
    const size_t at = static_cast<size_t>(batch.bytes().data() - out.data());
    if (Status s = records::rewrite_producer_id(std::span<uint8_t>(out).subspan(at, batch.size()));
        !s.ok()) {
      return s;
    }
    end = at + batch.size();
  }
  out.resize(end);
  return out;
}

}  // namespace

Result<std::shared_ptr<MirrorRunner>> MirrorRunner::create(asio::any_io_executor core,
                                                           std::string name,
                                                           MirrorConfigs configs,
                                                           cluster::MetadataStore& store,
                                                           cluster::PartitionManager& partitions,
                                                           MirrorStateStore& states,
                                                           int32_t node_id) {
  std::shared_ptr<MirrorRunner> r(
      new MirrorRunner(core, std::move(name), std::move(configs), store, partitions, states));
  client::ClientOptions o;
  o.bootstrap_servers = r->config("bootstrap.servers");
  // MIRRORING.md §10: a client id the source's quotas can throttle, one per fetcher.
  o.client_id = fmt::format("mirra-mirror-{}-b{}-f0", r->name_, node_id);
  o.retry_timeout = std::chrono::milliseconds(5000);  // the loop retries on its own
  auto client = client::Client::create(core, o);
  if (!client.ok()) return client.status();
  r->client_ = std::move(client.value());
  return r;
}

MirrorRunner::MirrorRunner(asio::any_io_executor core, std::string name, MirrorConfigs configs,
                           cluster::MetadataStore& store, cluster::PartitionManager& partitions,
                           MirrorStateStore& states)
    : name_(std::move(name)),
      configs_(std::move(configs)),
      store_(store),
      partitions_(partitions),
      states_(states),
      idle_(core),
      exited_(core, asio::steady_timer::time_point::max()) {}

std::string MirrorRunner::config(const std::string& key) const {
  auto it = configs_.find(key);
  if (it != configs_.end()) return it->second;
  return mirror_config_defaults().at(key);
}

void MirrorRunner::start() {
  running_ = true;
  asio::co_spawn(idle_.get_executor(), [self = shared_from_this()]() { return self->run(); },
                 asio::detached);
}

void MirrorRunner::stop() {
  stopping_ = true;
  idle_.cancel();
  client_->close();
}

asio::awaitable<void> MirrorRunner::stopped() {
  if (!running_) co_return;
  asio::error_code ec;
  co_await exited_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

asio::awaitable<void> MirrorRunner::wait(std::chrono::milliseconds d) {
  idle_.expires_after(d);
  asio::error_code ec;
  co_await idle_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

asio::awaitable<void> MirrorRunner::run() {
  MIRRA_LOG_INFO("mirror {}: fetching from {}", name_, config("bootstrap.servers"));
  while (!stopping_) {
    const bool fetched = co_await fetch_round();
    if (!fetched && !stopping_) co_await wait(kIdleWait);
  }
  running_ = false;
  exited_.cancel();
}

asio::awaitable<bool> MirrorRunner::fetch_round() {
  std::vector<client::FetchPosition> positions;
  for (const metadata::TopicInfo* t : mirror_topics(store_.image(), name_)) {
    for (const metadata::PartitionInfo& p : t->partitions) {
      auto handle = partitions_.find(t->name, p.partition);
      if (handle == nullptr || !handle->online() || !fetching({t->id, p.partition})) continue;
      positions.push_back({{t->name, p.partition}, handle->offsets.log_end,
                           int_config(*this, "mirror.fetch.max.bytes")});
      status_.try_emplace({t->name, p.partition});
    }
  }
  if (positions.empty()) co_return false;
  client::FetchOptions options;
  options.max_wait_ms = int_config(*this, "mirror.fetch.max.wait.ms");
  options.min_bytes = int_config(*this, "mirror.fetch.min.bytes");
  options.max_bytes = int_config(*this, "mirror.fetch.response.max.bytes");
  options.isolation = client::IsolationLevel::read_committed;  // never past the source LSO
  auto fetched = co_await client_->fetch(positions, options);
  if (!fetched.ok()) {
    for (const auto& pos : positions) {
      PartitionMirrorStatus& st = status_[pos.tp];
      st.last_error = fetched.status();
      ++st.retries;
    }
    co_return false;
  }
  bool failed_all = true;
  for (const client::FetchedPartition& f : fetched.value()) {
    co_await apply(f);
    failed_all = failed_all && !status_[f.tp].last_error.ok();
  }
  co_return !failed_all;
}

bool MirrorRunner::fetching(const MirrorStateKey& key) const {
  const MirrorStateValue* v = states_.get(key);
  if (v == nullptr) return true;  // added before its first state was written
  const auto state = static_cast<MirrorState>(v->state);
  return state == MirrorState::preparing || state == MirrorState::mirroring ||
         state == MirrorState::failed;
}

asio::awaitable<void> MirrorRunner::mark_mirroring(const MirrorStateKey& key) {
  const MirrorStateValue* v = states_.get(key);
  if (v == nullptr || static_cast<MirrorState>(v->state) != MirrorState::preparing) co_return;
  MirrorStateValue next = *v;
  next.previous_state = next.state;
  next.state = static_cast<int8_t>(MirrorState::mirroring);
  Status s = co_await states_.put(key, std::move(next), v->state_epoch);
  // A failover that began meanwhile wins; anything else is retried on the next good fetch.
  if (!s.ok() && s.code() != ErrorCode::INVALID_MIRROR_STATE) {
    MIRRA_LOG_WARN("mirror {}: cannot record partition {} as MIRRORING: {}", name_,
                   key.partition, s.to_string());
  }
}

asio::awaitable<void> MirrorRunner::apply(const client::FetchedPartition& f) {
  PartitionMirrorStatus& st = status_[f.tp];
  auto handle = partitions_.find(f.tp.topic, f.tp.partition);
  if (handle == nullptr) co_return;  // removed meanwhile
  const MirrorStateKey key{handle->topic_id, f.tp.partition};
  // A failover may have begun while the fetch was out: nothing may land after it (§5 step 2).
  if (!fetching(key)) co_return;
  Status s = f.status;
  if (s.code() == ErrorCode::OFFSET_OUT_OF_RANGE) {
    s = co_await restart_at_source_start(handle, f.tp);
  } else if (s.ok()) {
    st.source_high_watermark = f.high_watermark;
    st.source_log_start = f.log_start_offset;
    s = co_await append(handle, f.records);
    if (s.ok()) s = co_await follow_log_start(handle, f.log_start_offset);
  }
  if (s.ok()) {
    st.retries = 0;
    st.last_error = Status::OK();
    co_await mark_mirroring(key);
    co_return;
  }
  if (st.last_error.ok() || st.last_error.message() != s.message()) {
    MIRRA_LOG_WARN("mirror {}: {}: {}", name_, client::to_string(f.tp), s.to_string());
  }
  st.last_error = s;
  ++st.retries;
}

asio::awaitable<Status> MirrorRunner::append(const std::shared_ptr<cluster::Partition>& p,
                                             std::span<const uint8_t> records) {
  if (records.empty()) co_return Status::OK();
  auto batches = rewritten_batches(records);
  if (!batches.ok()) co_return batches.status();
  if (batches->empty()) co_return Status::OK();
  auto bytes = std::make_shared<protocol::Bytes>(std::move(batches.value()));
  // Named, not a temporary inside co_await: g++ 12 destroys such temporaries twice, and this
  // one owns a shared_ptr.
  auto job = [bytes](storage::PartitionLog& log) { return log.append_mirrored(*bytes, now_ms()); };
  auto appended = co_await partitions_.run(p, job);
  if (!appended.ok()) co_return appended.status();
  p->wake_waiters();  // long-polling consumers of the destination see the new data
  co_return Status::OK();
}

asio::awaitable<Status> MirrorRunner::follow_log_start(const std::shared_ptr<cluster::Partition>& p,
                                                       int64_t source_log_start) {
  if (source_log_start <= p->offsets.log_start) co_return Status::OK();
  if (source_log_start > p->offsets.log_end) {
    co_return co_await partitions_.run(p, [source_log_start](storage::PartitionLog& log) {
      return log.truncate_fully_and_start_at(source_log_start);
    });
  }
  co_return co_await partitions_.run(p, [source_log_start](storage::PartitionLog& log) {
    return log.advance_log_start(source_log_start);
  });
}

asio::awaitable<Status> MirrorRunner::restart_at_source_start(
    const std::shared_ptr<cluster::Partition>& p, const client::TopicPartition& tp) {
  // Named, not a braced list inside co_await: g++ 12 miscompiles those.
  std::vector<client::OffsetQuery> query{{tp, client::kEarliestTimestamp}};
  auto earliest = co_await client_->list_offsets(std::move(query));
  if (!earliest.ok()) co_return earliest.status();
  const client::PartitionOffset& o = earliest->front();
  if (!o.status.ok()) co_return o.status;
  MIRRA_LOG_INFO("mirror {}: {}: offset {} is out of the source's range; restarting at the "
                 "source log start {}", name_, client::to_string(tp), p->offsets.log_end,
                 o.offset);
  co_return co_await partitions_.run(p, [start = o.offset](storage::PartitionLog& log) {
    return log.truncate_fully_and_start_at(start);
  });
}

}  // namespace mirra::mirror
