#include "fake_source.h"

#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "base/raw_bytes.h"
#include "fake_epochs.h"
#include "protocol/records/batch_builder.h"

namespace mirra::mirror::test {

// One connection of the runner: its own client id and its own view of the leaders.
class FakeConnection : public SourceConnection {
 public:
  FakeConnection(FakeSourceCluster& cluster, std::string client_id)
      : cluster_(cluster), client_id_(std::move(client_id)) {}

  asio::awaitable<Result<client::ClusterMetadata>> metadata(
      std::vector<std::string> topics) override {
    if (closed_) co_return Status(ErrorCode::NETWORK_EXCEPTION, "closed");
    client::ClusterMetadata md = cluster_.metadata(topics);
    cache_ = md;
    co_return md;
  }

  const client::ClusterMetadata& cached_metadata() const override { return cache_; }

  asio::awaitable<Result<std::vector<client::FetchedPartition>>> fetch(
      std::vector<client::FetchPosition> positions, client::FetchOptions options) override {
    if (closed_) co_return Status(ErrorCode::NETWORK_EXCEPTION, "closed");
    const int32_t broker = positions.empty() ? -1 : leader_of(positions.front().tp);
    const size_t index = cluster_.fetches_.size();
    cluster_.fetches_.push_back({client_id_, broker, positions, std::chrono::steady_clock::now()});
    if (!cluster_.fetch_errors_.empty()) {
      Status error = cluster_.fetch_errors_.front();
      cluster_.fetch_errors_.pop_front();
      co_return error;
    }
    while ((cluster_.hold_ || index >= cluster_.hold_from_) && !closed_) {
      ++cluster_.held_;
      co_await wait_for_change(std::chrono::hours(1));
      --cluster_.held_;
    }
    // A long poll, as a broker does: until data is there or max_wait_ms has passed.
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(options.max_wait_ms);
    while (!closed_ && !cluster_.has_data(positions) &&
           std::chrono::steady_clock::now() < deadline) {
      co_await wait_for_change(deadline - std::chrono::steady_clock::now());
    }
    if (closed_) co_return Status(ErrorCode::NETWORK_EXCEPTION, "closed");
    std::vector<client::FetchedPartition> out;
    bool leader_moved = false;
    for (const client::FetchPosition& pos : positions) {
      out.push_back(cluster_.answer(pos, leader_of(pos.tp), leader_moved));
    }
    if (leader_moved) cache_ = cluster_.metadata({});  // Mirra's client refreshes on it too
    co_return out;
  }

  asio::awaitable<Result<std::vector<client::PartitionOffset>>> list_offsets(
      std::vector<client::OffsetQuery> queries) override {
    if (closed_) co_return Status(ErrorCode::NETWORK_EXCEPTION, "closed");
    std::vector<client::PartitionOffset> out;
    for (const client::OffsetQuery& q : queries) {
      client::PartitionOffset& o = out.emplace_back();
      o.tp = q.tp;
      const FakeSourceCluster::Partition* p = cluster_.find(q.tp);
      if (p == nullptr) {
        o.status = Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "no such partition");
        continue;
      }
      o.offset = q.timestamp == client::kEarliestTimestamp ? p->log_start : p->log_end;
    }
    co_return out;
  }

  asio::awaitable<Result<std::vector<client::EpochEndOffset>>> offset_for_leader_epoch(
      std::vector<client::EpochQuery> queries) override {
    if (closed_) co_return Status(ErrorCode::NETWORK_EXCEPTION, "closed");
    if (cluster_.epochs_unsupported_) {
      co_return Status(ErrorCode::UNSUPPORTED_VERSION, "no OffsetForLeaderEpoch");
    }
    std::vector<client::EpochEndOffset> out;
    for (const client::EpochQuery& q : queries) {
      ++cluster_.epoch_queries_;
      client::EpochEndOffset& e = out.emplace_back();
      e.tp = q.tp;
      const FakeSourceCluster::Partition* p = cluster_.find(q.tp);
      if (p == nullptr) {
        e.status = Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "no such partition");
        continue;
      }
      std::tie(e.leader_epoch, e.end_offset) =
          storage::epoch_end_offset(epochs_of(p->batches), q.leader_epoch, p->log_end);
    }
    co_return out;
  }

  void close() override {
    closed_ = true;
    cluster_.notify();
  }

 private:
  int32_t leader_of(const client::TopicPartition& tp) const {
    const client::TopicInfo* t = cache_.topic(tp.topic);
    const client::PartitionInfo* p = t ? t->partition(tp.partition) : nullptr;
    return p ? p->leader : -1;
  }

  asio::awaitable<void> wait_for_change(std::chrono::steady_clock::duration at_most) {
    asio::steady_timer timer(cluster_.ex_);
    timer.expires_after(at_most);
    cluster_.waiters_.insert(&timer);
    asio::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    cluster_.waiters_.erase(&timer);
  }

  FakeSourceCluster& cluster_;
  std::string client_id_;
  client::ClusterMetadata cache_;
  bool closed_ = false;
};

namespace {

class FakeSource : public MirrorSource {
 public:
  explicit FakeSource(FakeSourceCluster& cluster) : cluster_(cluster) {}
  Result<std::unique_ptr<SourceConnection>> connect(const std::string& client_id,
                                                    std::chrono::milliseconds) override {
    return std::unique_ptr<SourceConnection>(std::make_unique<FakeConnection>(cluster_, client_id));
  }

 private:
  FakeSourceCluster& cluster_;
};

int64_t next_offset_of(const protocol::Bytes& batch) {
  return records::BatchView::parse(batch).value().next_offset();
}

}  // namespace

FakeSourceCluster::FakeSourceCluster(asio::any_io_executor ex) : ex_(ex) {}

std::unique_ptr<MirrorSource> FakeSourceCluster::source() {
  return std::make_unique<FakeSource>(*this);
}

void FakeSourceCluster::add_topic(const std::string& name, Uuid id, int32_t partitions,
                                  int32_t leader) {
  Topic& t = topics_[name];
  t.id = id;
  t.partitions.resize(static_cast<size_t>(partitions));
  for (Partition& p : t.partitions) p.leader = leader;
}

void FakeSourceCluster::delete_topic(const std::string& name) { topics_.erase(name); }

FakeSourceCluster::Partition& FakeSourceCluster::partition(const client::TopicPartition& tp) {
  return topics_.at(tp.topic).partitions.at(static_cast<size_t>(tp.partition));
}

const FakeSourceCluster::Partition* FakeSourceCluster::find(
    const client::TopicPartition& tp) const {
  auto t = topics_.find(tp.topic);
  if (t == topics_.end() || tp.partition < 0 ||
      tp.partition >= static_cast<int32_t>(t->second.partitions.size())) {
    return nullptr;
  }
  return &t->second.partitions[static_cast<size_t>(tp.partition)];
}

int64_t FakeSourceCluster::produce(const client::TopicPartition& tp, int32_t records,
                                   int32_t leader_epoch) {
  Partition& p = partition(tp);
  records::BatchOptions options;
  options.base_offset = p.log_end;
  options.partition_leader_epoch = leader_epoch;
  records::BatchBuilder builder(options);
  for (int32_t i = 0; i < records; ++i) {
    const std::string value = fmt::format("{}-{}", client::to_string(tp), p.log_end + i);
    records::RecordInput r;
    r.value = records::as_bytes(value);
    r.timestamp = 1000 + p.log_end + i;
    (void)builder.append(r);
  }
  const int64_t base = p.log_end;
  p.batches[base] = builder.finish().value();
  p.log_end = next_offset_of(p.batches[base]);
  notify();
  return base;
}

void FakeSourceCluster::corrupt(const client::TopicPartition& tp, int64_t base_offset) {
  protocol::Bytes& batch = partition(tp).batches.at(base_offset);
  batch.back() ^= 0x01;  // inside the records: covered by the CRC
}

void FakeSourceCluster::set_leader(const client::TopicPartition& tp, int32_t leader) {
  partition(tp).leader = leader;
  notify();
}

void FakeSourceCluster::delete_records(const client::TopicPartition& tp, int64_t offset) {
  Partition& p = partition(tp);
  p.log_start = offset;
  std::erase_if(p.batches, [&](const auto& b) { return next_offset_of(b.second) <= offset; });
  notify();
}

void FakeSourceCluster::lose_tail(const client::TopicPartition& tp, int64_t offset) {
  Partition& p = partition(tp);
  std::erase_if(p.batches, [&](const auto& b) { return b.first >= offset; });
  p.log_end = offset;
  notify();
}

void FakeSourceCluster::set_leader_epoch(const client::TopicPartition& tp, int32_t epoch) {
  partition(tp).leader_epoch = epoch;
  notify();
}

void FakeSourceCluster::fail_partition(const client::TopicPartition& tp, Status error, int count) {
  for (int i = 0; i < count; ++i) partition(tp).errors.push_back(error);
  notify();
}

void FakeSourceCluster::fail_next_fetch(Status error) { fetch_errors_.push_back(error); }

void FakeSourceCluster::hold_fetches() { hold_ = true; }

void FakeSourceCluster::release_fetches() {
  hold_ = false;
  hold_from_ = SIZE_MAX;
  notify();
}

const std::map<int64_t, protocol::Bytes>& FakeSourceCluster::batches(
    const client::TopicPartition& tp) const {
  return find(tp)->batches;
}

int64_t FakeSourceCluster::log_start(const client::TopicPartition& tp) const {
  return find(tp)->log_start;
}

int64_t FakeSourceCluster::log_end(const client::TopicPartition& tp) const {
  return find(tp)->log_end;
}

client::ClusterMetadata FakeSourceCluster::metadata(const std::vector<std::string>& names) const {
  client::ClusterMetadata md;
  md.cluster_id = "fake-source";
  for (int32_t b = 1; b <= 3; ++b) md.brokers.push_back({b, "fake", 9091 + b, std::nullopt});
  std::set<std::string> wanted(names.begin(), names.end());
  if (wanted.empty()) {
    for (const auto& [name, t] : topics_) wanted.insert(name);
  }
  for (const std::string& name : wanted) {
    client::TopicInfo& info = md.topics.emplace_back();
    info.name = name;
    auto t = topics_.find(name);
    if (t == topics_.end()) {
      info.error = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
      continue;
    }
    info.id = t->second.id;
    for (size_t i = 0; i < t->second.partitions.size(); ++i) {
      client::PartitionInfo& p = info.partitions.emplace_back();
      p.partition = static_cast<int32_t>(i);
      p.leader = t->second.partitions[i].leader;
      p.leader_epoch = t->second.partitions[i].leader_epoch;
    }
  }
  return md;
}

bool FakeSourceCluster::has_data(const std::vector<client::FetchPosition>& positions) const {
  return std::any_of(positions.begin(), positions.end(), [&](const client::FetchPosition& pos) {
    const Partition* p = find(pos.tp);
    return p == nullptr || !p->errors.empty() || pos.offset != p->log_end;
  });
}

client::FetchedPartition FakeSourceCluster::answer(const client::FetchPosition& pos, int32_t broker,
                                                   bool& leader_moved) {
  client::FetchedPartition a;
  a.tp = pos.tp;
  Partition* p = find(pos.tp);
  if (p == nullptr) {
    a.status = Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION, "no such partition");
    return a;
  }
  if (p->leader != broker) {
    leader_moved = true;
    a.status = Status(ErrorCode::NOT_LEADER_OR_FOLLOWER, "not the leader");
    return a;
  }
  if (pos.current_leader_epoch >= 0 && pos.current_leader_epoch != p->leader_epoch) {
    leader_moved = true;  // Mirra's client refreshes its metadata on these too
    a.status = pos.current_leader_epoch < p->leader_epoch
                   ? Status(ErrorCode::FENCED_LEADER_EPOCH, "fenced leader epoch")
                   : Status(ErrorCode::UNKNOWN_LEADER_EPOCH, "unknown leader epoch");
    return a;
  }
  a.high_watermark = a.last_stable_offset = p->log_end;
  a.log_start_offset = p->log_start;
  if (!p->errors.empty()) {
    a.status = p->errors.front();
    p->errors.pop_front();
    return a;
  }
  if (pos.offset < p->log_start || pos.offset > p->log_end) {
    a.status = Status(ErrorCode::OFFSET_OUT_OF_RANGE, "out of range");
    return a;
  }
  // From the batch that holds the offset, at least one batch, then up to max_bytes.
  std::vector<const protocol::Bytes*> chosen;
  size_t size = 0;
  auto it = p->batches.upper_bound(pos.offset);
  if (it != p->batches.begin() && next_offset_of(std::prev(it)->second) > pos.offset) --it;
  for (; it != p->batches.end(); ++it) {
    if (!chosen.empty() && size + it->second.size() > static_cast<size_t>(pos.max_bytes)) break;
    chosen.push_back(&it->second);
    size += it->second.size();
  }
  a.buffer = std::make_shared<RawBytes>(size);
  size_t at = 0;
  for (const protocol::Bytes* b : chosen) {
    std::copy(b->begin(), b->end(), a.buffer->begin() + static_cast<std::ptrdiff_t>(at));
    at += b->size();
  }
  a.records = std::span<const uint8_t>(a.buffer->data(), size);
  return a;
}

void FakeSourceCluster::notify() {
  for (asio::steady_timer* t : waiters_) t->cancel();
}

}  // namespace mirra::mirror::test
