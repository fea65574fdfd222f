#include "fake_sink.h"

#include <algorithm>

#include <fmt/format.h>

#include "fake_epochs.h"
#include "protocol/records/record_set.h"

namespace mirra::mirror::test {

void FakeSink::add_topic(const std::string& mirror, const std::string& name, Uuid id,
                         int32_t partitions) {
  topics_[name] = {mirror, id, partitions};
  for (int32_t p = 0; p < partitions; ++p) {
    logs_[{name, p}].log.topic_id = id;
    set_state({name, p}, MirrorState::preparing);  // as AddTopicsToMirror leaves it
  }
}

MirrorStateKey FakeSink::key_of(const client::TopicPartition& tp) const {
  return {topics_.at(tp.topic).id, tp.partition};
}

void FakeSink::set_state(const client::TopicPartition& tp, MirrorState state) {
  MirrorStateValue& v = states_[key_of(tp)];
  v.mirror = topics_.at(tp.topic).mirror;
  v.previous_state = v.state;
  v.state = static_cast<int8_t>(state);
  ++v.state_epoch;
}

std::optional<MirrorState> FakeSink::state_of(const client::TopicPartition& tp) const {
  const MirrorStateValue* v = state_value(tp);
  if (v == nullptr) return std::nullopt;
  return static_cast<MirrorState>(v->state);
}

const MirrorStateValue* FakeSink::state_value(const client::TopicPartition& tp) const {
  auto it = states_.find(key_of(tp));
  return it == states_.end() ? nullptr : &it->second;
}

void FakeSink::fail_next_append(const client::TopicPartition& tp, Status error) {
  append_errors_[tp].push_back(std::move(error));
}

void FakeSink::release_appends() {
  hold_ = false;
  for (asio::steady_timer* t : waiters_) t->cancel();
}

std::vector<SinkTopic> FakeSink::topics(const std::string& mirror) const {
  std::vector<SinkTopic> out;
  for (const auto& [name, t] : topics_) {
    if (t.mirror != mirror) continue;
    SinkTopic& topic = out.emplace_back(SinkTopic{name, t.id, {}, t.throttled_replicas});
    for (int32_t p = 0; p < t.partitions; ++p) topic.partitions.push_back(p);
  }
  return out;
}

std::optional<Uuid> FakeSink::topic_id(const std::string& topic) const {
  auto it = topics_.find(topic);
  if (it == topics_.end()) return std::nullopt;
  return it->second.id;
}

std::optional<SinkLog> FakeSink::log(const client::TopicPartition& tp) const {
  auto it = logs_.find(tp);
  if (it == logs_.end()) return std::nullopt;
  return it->second.log;
}

asio::awaitable<Status> FakeSink::append(const client::TopicPartition& tp,
                                         std::span<const uint8_t> batches,
                                         std::shared_ptr<const void> keep_alive) {
  const std::shared_ptr<const void> bytes_owner = std::move(keep_alive);  // until copied below
  while (hold_) {
    ++held_;
    asio::steady_timer timer(ex_, std::chrono::hours(1));
    waiters_.insert(&timer);
    asio::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    waiters_.erase(&timer);
    --held_;
  }
  if (auto& errors = append_errors_[tp]; !errors.empty()) {
    Status error = errors.front();
    errors.pop_front();
    co_return error;
  }
  FakeLog& log = logs_.at(tp);
  // What append_mirrored checks: every batch whole and valid, none below the log end.
  std::vector<records::BatchView> views;
  records::RecordSetIterator it(batches, /*validate=*/true);
  records::BatchView batch;
  records::RecordSetStep step;
  while ((step = it.next(batch)) == records::RecordSetStep::batch) views.push_back(batch);
  if (step == records::RecordSetStep::error) co_return it.status();
  if (views.empty() || step != records::RecordSetStep::end) {
    co_return Status(ErrorCode::CORRUPT_MESSAGE, "not a whole number of batches");
  }
  if (views.front().base_offset() < log.log.log_end) {
    co_return Status(ErrorCode::INVALID_RECORD,
                     fmt::format("batch at {} below the log end {}", views.front().base_offset(),
                                 log.log.log_end));
  }
  appends_.emplace_back(tp, views.front().base_offset());
  for (const records::BatchView& v : views) {
    log.batches[v.base_offset()] = protocol::Bytes(v.bytes().begin(), v.bytes().end());
    log.log.log_end = v.next_offset();
  }
  co_return Status::OK();
}

asio::awaitable<Status> FakeSink::truncate_to(const client::TopicPartition& tp, int64_t offset) {
  FakeLog& log = logs_.at(tp);
  std::erase_if(log.batches, [&](const auto& b) { return b.first >= offset; });
  log.log.log_end = std::min(log.log.log_end, offset);
  co_return Status::OK();
}

asio::awaitable<Status> FakeSink::restart_at(const client::TopicPartition& tp, int64_t offset) {
  FakeLog& log = logs_.at(tp);
  log.batches.clear();
  log.log.log_start = log.log.log_end = offset;
  co_return Status::OK();
}

asio::awaitable<Status> FakeSink::advance_log_start(const client::TopicPartition& tp,
                                                    int64_t offset) {
  FakeLog& log = logs_.at(tp);
  log.log.log_start = std::max(log.log.log_start, std::min(offset, log.log.log_end));
  std::erase_if(log.batches, [&](const auto& b) {
    return records::BatchView::parse(b.second).value().next_offset() <= log.log.log_start;
  });
  co_return Status::OK();
}

asio::awaitable<Status> FakeSink::raise_leader_epoch(const client::TopicPartition& tp,
                                                     int32_t epoch) {
  if (on_raise_leader_epoch) on_raise_leader_epoch();
  FakeLog& log = logs_.at(tp);
  log.log.leader_epoch = std::max(log.log.leader_epoch, epoch);
  co_return Status::OK();
}

asio::awaitable<Result<LogEpochs>> FakeSink::leader_epochs(const client::TopicPartition& tp) {
  const FakeLog& log = logs_.at(tp);
  co_return LogEpochs{epochs_of(log.batches), log.log.log_start, log.log.log_end};
}

const MirrorStateValue* FakeSink::state(const MirrorStateKey& key) const {
  auto it = states_.find(key);
  return it == states_.end() ? nullptr : &it->second;
}

int32_t FakeSink::state_epoch(const MirrorStateKey& key) const {
  const MirrorStateValue* v = state(key);
  return v == nullptr ? -1 : v->state_epoch;
}

asio::awaitable<Status> FakeSink::put_state(const MirrorStateKey& key, MirrorStateValue value,
                                            int32_t expected_epoch) {
  if (state_epoch(key) != expected_epoch) {
    co_return Status(ErrorCode::INVALID_MIRROR_STATE,
                     fmt::format("state epoch {}, expected {}", state_epoch(key), expected_epoch));
  }
  value.state_epoch = expected_epoch + 1;
  states_[key] = std::move(value);
  co_return Status::OK();
}

}  // namespace mirra::mirror::test
