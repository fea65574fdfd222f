#include "share/share_store.h"

#include <fmt/format.h>

#include "base/java_hash.h"
#include "protocol/wire.h"

namespace mirra::share {

using protocol::Bytes;

Bytes encode_share_key(const ShareKey& key) {
  Bytes out;
  protocol::Writer w(out);
  w.write_int16(kShareStateKeyVersion);
  w.write_string(true, key.group_id);
  w.write_uuid(key.topic_id);
  w.write_int32(key.partition);
  return out;
}

Bytes encode_share_snapshot(const ShareSnapshot& s) {
  Bytes out;
  protocol::Writer w(out);
  w.write_int16(kShareStateValueVersion);
  w.write_int64(s.start_offset);
  w.write_array_length(true, static_cast<int32_t>(s.runs.size()));
  for (const ShareSnapshot::Run& r : s.runs) {
    w.write_int64(r.first);
    w.write_int64(r.last);
    w.write_int8(static_cast<int8_t>(r.state));
    w.write_int16(r.delivery_count);
  }
  return out;
}

Result<ShareKey> decode_share_key(std::span<const uint8_t> bytes) {
  protocol::Reader r(bytes);
  const int16_t version = r.read_int16();
  if (!r.failed() && version != kShareStateKeyVersion) {
    return Status(ErrorCode::CORRUPT_MESSAGE, fmt::format("share state key version {}", version));
  }
  ShareKey key;
  r.read_string(true, key.group_id);
  key.topic_id = r.read_uuid();
  key.partition = r.read_int32();
  if (r.failed() || r.remaining() != 0) return r.status("share state key");
  return key;
}

Result<ShareSnapshot> decode_share_snapshot(std::span<const uint8_t> bytes) {
  protocol::Reader r(bytes);
  const int16_t version = r.read_int16();
  if (!r.failed() && version != kShareStateValueVersion) {
    return Status(ErrorCode::CORRUPT_MESSAGE, fmt::format("share state value version {}", version));
  }
  ShareSnapshot s;
  s.start_offset = r.read_int64();
  const int32_t n = r.read_array_length(true, 19);
  for (int32_t i = 0; i < n && !r.failed(); ++i) {
    ShareSnapshot::Run run;
    run.first = r.read_int64();
    run.last = r.read_int64();
    run.state = static_cast<RecordState>(r.read_int8());
    run.delivery_count = r.read_int16();
    s.runs.push_back(run);
  }
  if (r.failed() || r.remaining() != 0) return r.status("share state value");
  return s;
}

cluster::InternalTopicSpec share_state_topic_spec(const ShareStoreConfig& config) {
  cluster::InternalTopicSpec spec;
  spec.name = kShareStateTopic;
  spec.partitions = config.partitions;
  spec.configs = {{"cleanup.policy", "compact"},
                  {"compression.type", "producer"},
                  {"segment.bytes", std::to_string(config.segment_bytes)}};
  return spec;
}

int32_t ShareStore::partition_of(const std::string& group) const {
  return java_hash_partition(group, topic_.partition_count());
}

asio::awaitable<Status> ShareStore::write(const ShareKey& key,
                                          std::function<std::optional<ShareSnapshot>()> take) {
  if (Status s = co_await topic_.ensure_created(); !s.ok()) co_return s;
  const std::optional<ShareSnapshot> snapshot = take();
  if (!snapshot) co_return Status::OK();
  std::vector<cluster::InternalRecord> records;
  records.push_back({encode_share_key(key), encode_share_snapshot(*snapshot)});
  co_return co_await topic_.append(partition_of(key.group_id), std::move(records));
}

asio::awaitable<Status> ShareStore::erase(const std::vector<ShareKey>& keys) {
  if (keys.empty()) co_return Status::OK();
  if (Status s = co_await topic_.ensure_created(); !s.ok()) co_return s;
  std::map<int32_t, std::vector<cluster::InternalRecord>> by_partition;
  for (const ShareKey& k : keys) {
    by_partition[partition_of(k.group_id)].push_back({encode_share_key(k), std::nullopt});
  }
  for (auto& [partition, records] : by_partition) {
    if (Status s = co_await topic_.append(partition, std::move(records)); !s.ok()) co_return s;
  }
  co_return Status::OK();
}

asio::awaitable<Result<std::map<ShareKey, ShareSnapshot>>> ShareStore::load() {
  std::map<ShareKey, ShareSnapshot> out;
  if (!topic_.exists()) co_return out;
  if (Status s = co_await topic_.ensure_created(); !s.ok()) co_return s;
  for (int32_t p = 0; p < topic_.partition_count(); ++p) {
    auto entries = co_await topic_.read_all(p);
    if (!entries.ok()) co_return entries.status();
    for (const cluster::InternalEntry& e : entries.value()) {
      if (e.record.key.empty()) continue;  // a marker: the broker writes none here
      auto key = decode_share_key(e.record.key);
      if (!key.ok()) {
        co_return Status(key.status().code(),
                         fmt::format("{}-{}: {}", kShareStateTopic, p, key.status().message()));
      }
      if (!e.record.value) {
        out.erase(key.value());
        continue;
      }
      auto snapshot = decode_share_snapshot(*e.record.value);
      if (!snapshot.ok()) {
        co_return Status(snapshot.status().code(), fmt::format("{}-{}: {}", kShareStateTopic, p,
                                                               snapshot.status().message()));
      }
      out[key.value()] = std::move(snapshot.value());
    }
  }
  co_return out;
}

}  // namespace mirra::share
