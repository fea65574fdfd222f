#include "cluster/metadata_store.h"

#include <fmt/format.h>

#include <future>

#include "base/log.h"
#include "metadata/metadata_log.h"

namespace mirra::cluster {
namespace {

constexpr std::string_view kMirraLogComponent = "metadata";

}  // namespace

LocalMetadataStore::LocalMetadataStore(std::string cluster_id, ShardPool& shards)
    : cluster_id_(std::move(cluster_id)), shards_(shards) {}

LocalMetadataStore::~LocalMetadataStore() = default;

Result<std::unique_ptr<LocalMetadataStore>> LocalMetadataStore::open(
    const std::filesystem::path& dir, std::string cluster_id, ShardPool& shards) {
  std::unique_ptr<LocalMetadataStore> store(new LocalMetadataStore(std::move(cluster_id), shards));
  // Opened on shard 0, its owner thread for life; start-up waits for it.
  std::promise<Status> opened;
  asio::post(shards.executor(0), [&] {
    auto log = metadata::MetadataLog::open(dir, &store->image_);
    if (log.ok()) store->log_ = std::move(log.value());
    opened.set_value(log.ok() ? Status::OK() : log.status());
  });
  if (Status s = opened.get_future().get(); !s.ok()) return s;
  MIRRA_LOG_INFO("metadata loaded from {}: {} topic(s), up to record {}", dir.string(),
                 store->image_.topics().size(), store->image_.last_offset());
  return store;
}

asio::awaitable<Status> LocalMetadataStore::change(ChangeBuilder build, AfterChange after) {
  auto guard = co_await lock_.lock();
  auto records = build(image_);
  if (!records.ok()) co_return records.status();
  if (records->empty()) co_return Status::OK();
  // Apply to a copy first: a change the image refuses is never written to the log.
  metadata::MetadataImage next = image_;
  for (const auto& r : records.value()) {
    if (Status s = next.apply(r, next.last_offset() + 1); !s.ok()) co_return s;
  }
  metadata::MetadataLog* log = log_.get();
  auto first =
      co_await run_on(shards_.executor(0), [&, log] { return log->append(records.value()); });
  if (!first.ok()) {
    MIRRA_LOG_ERROR("metadata change not written: {}", first.status().message());
    co_return first.status();
  }
  int64_t offset = first.value();
  for (const auto& r : records.value()) {
    Status s = image_.apply(r, offset++);
    if (!s.ok()) co_return s;  // cannot happen: the copy took the same records
  }
  if (log->records_since_snapshot() >= kSnapshotEveryRecords) {
    metadata::MetadataImage copy = image_;
    Status s = co_await run_on(shards_.executor(0), [&] { return log->write_snapshot(copy); });
    if (!s.ok())
      MIRRA_LOG_WARN("metadata snapshot failed (the log still has everything): {}", s.message());
  }
  if (after) co_await after(image_);
  co_return Status::OK();
}

asio::awaitable<void> LocalMetadataStore::settled() {
  // Changes hold the lock until their AfterChange returns, and the lock is FIFO.
  auto guard = co_await lock_.lock();
}

asio::awaitable<void> LocalMetadataStore::close() {
  auto guard = co_await lock_.lock();
  if (!log_) co_return;
  metadata::MetadataImage copy = image_;
  metadata::MetadataLog* log = log_.get();
  Status s = co_await run_on(shards_.executor(0), [&] {
    if (Status w = log->write_snapshot(copy); !w.ok()) return w;
    return log->close();
  });
  if (!s.ok()) MIRRA_LOG_WARN("closing the metadata log: {}", s.message());
}

}  // namespace mirra::cluster
