#include "mirror/mirror_state_store.h"

#include <fmt/format.h>

#include "base/java_hash.h"
#include "base/log.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

}  // namespace

int32_t MirrorStateStore::partition_of(const MirrorStateKey& key) const {
  return java_hash_partition(key.topic_id.to_string(), topic_.partition_count());
}

asio::awaitable<Status> MirrorStateStore::load() {
  MIRRA_ASSERT_OWNER(owner_);
  if (!topic_.exists()) co_return Status::OK();
  if (Status s = co_await topic_.ensure_created(); !s.ok()) co_return s;  // partitions open
  for (int32_t p = 0; p < topic_.partition_count(); ++p) {
    auto entries = co_await topic_.read_all(p);
    if (!entries.ok()) co_return entries.status();
    for (const cluster::InternalEntry& e : entries.value()) {
      if (e.marker_commit || e.record.key.empty()) continue;
      auto key = decode_state_key(e.record.key);
      if (!key.ok()) co_return key.status();
      if (!e.record.value) {
        states_.erase(key.value());
        continue;
      }
      auto value = decode_state_value(*e.record.value);
      if (!value.ok()) co_return value.status();
      states_[key.value()] = std::move(value.value());
    }
  }
  MIRRA_LOG_INFO("loaded {} mirror partition state(s) from {}", states_.size(), topic_.name());
  co_return Status::OK();
}

const MirrorStateValue* MirrorStateStore::get(const MirrorStateKey& key) const {
  auto it = states_.find(key);
  return it == states_.end() ? nullptr : &it->second;
}

int32_t MirrorStateStore::epoch_of(const MirrorStateKey& key) const {
  const MirrorStateValue* v = get(key);
  return v == nullptr ? -1 : v->state_epoch;
}

asio::awaitable<Status> MirrorStateStore::put(const MirrorStateKey& key, MirrorStateValue value,
                                              int32_t expected_epoch) {
  MIRRA_ASSERT_OWNER(owner_);
  if (writing_.count(key) || epoch_of(key) != expected_epoch) {
    co_return Status(ErrorCode::INVALID_MIRROR_STATE,
                     fmt::format("the state of partition {} of topic {} changed meanwhile",
                                 key.partition, key.topic_id.to_string()));
  }
  if (Status s = co_await topic_.ensure_created(); !s.ok()) co_return s;
  value.state_epoch = expected_epoch + 1;
  writing_.insert(key);
  std::vector<cluster::InternalRecord> records{{encode_state_key(key), encode_state_value(value)}};
  Status s = co_await topic_.append(partition_of(key), std::move(records));
  writing_.erase(key);
  if (s.ok()) states_[key] = std::move(value);
  co_return s;
}

asio::awaitable<Status> MirrorStateStore::put_all(std::vector<Put> puts) {
  MIRRA_ASSERT_OWNER(owner_);
  std::set<MirrorStateKey> keys;
  for (const Put& p : puts) {
    if (writing_.count(p.key) || epoch_of(p.key) != p.expected_epoch ||
        !keys.insert(p.key).second) {
      co_return Status(ErrorCode::INVALID_MIRROR_STATE,
                       fmt::format("the state of partition {} of topic {} changed meanwhile",
                                   p.key.partition, p.key.topic_id.to_string()));
    }
  }
  if (puts.empty()) co_return Status::OK();
  writing_.insert(keys.begin(), keys.end());  // from the check on: no put() slips in between
  Status s = co_await topic_.ensure_created();
  std::map<int32_t, std::vector<cluster::InternalRecord>> batches;
  for (Put& p : puts) {
    p.value.state_epoch = p.expected_epoch + 1;
    batches[partition_of(p.key)].push_back({encode_state_key(p.key), encode_state_value(p.value)});
  }
  for (auto& [partition, records] : batches) {
    if (!s.ok()) break;
    s = co_await topic_.append(partition, std::move(records));
  }
  for (const MirrorStateKey& k : keys) writing_.erase(k);
  // Appended batches that a later one's failure leaves behind are states nobody adopted; the
  // next load would take them, which is why a caller retries a failed put_all as a whole.
  if (!s.ok()) co_return s;
  for (Put& p : puts) states_[p.key] = std::move(p.value);
  co_return s;
}

}  // namespace mirra::mirror
