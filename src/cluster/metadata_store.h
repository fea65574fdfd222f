// MetadataStore: the narrow interface through which the broker reads and changes cluster
// metadata. Handlers read the image and submit changes; they never see how the changes are
// stored. LocalMetadataStore keeps them in a local metadata log with snapshots
// (metadata/metadata_log.h); a multi-broker store (e.g. on etcd) would implement the same
// interface.
//
// Threading: the store and its image belong to the core thread. The log belongs to shard 0
// (cluster/shard_pool.h), where its blocking appends and snapshots run.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/status.h"
#include "cluster/async_mutex.h"
#include "cluster/shard_pool.h"
#include "metadata/image.h"
#include "metadata/records.h"

namespace mirra::metadata {
class MetadataLog;
}

namespace mirra::cluster {

// Builds the records of one change from the current image, or says why the change is refused.
using ChangeBuilder =
    std::function<Result<std::vector<metadata::MetadataRecord>>(const metadata::MetadataImage&)>;
// Runs after the change is applied, still in turn (e.g. opening the new topic's logs), so that
// the next change sees its effects.
using AfterChange = std::function<asio::awaitable<void>(const metadata::MetadataImage&)>;

class MetadataStore {
 public:
  virtual ~MetadataStore() = default;
  virtual const metadata::MetadataImage& image() const = 0;
  virtual const std::string& cluster_id() const = 0;
  // Changes are serialised: `build` sees every earlier change applied. The records are durable
  // before they are applied to the image; on error nothing is applied.
  virtual asio::awaitable<Status> change(ChangeBuilder build, AfterChange after = nullptr) = 0;
  // Waits until every change begun before the call has finished, its AfterChange included.
  // The image shows a change as soon as it is applied, before its AfterChange has run (a new
  // topic is in the image while its logs are still opening): a caller that found something in
  // the image and needs its effects too waits here.
  virtual asio::awaitable<void> settled() = 0;
};

class LocalMetadataStore final : public MetadataStore {
 public:
  // Opens (or creates) the metadata log under `dir` on shard 0 and replays it. Blocks.
  static Result<std::unique_ptr<LocalMetadataStore>> open(const std::filesystem::path& dir,
                                                          std::string cluster_id,
                                                          ShardPool& shards);
  ~LocalMetadataStore() override;

  const metadata::MetadataImage& image() const override { return image_; }
  const std::string& cluster_id() const override { return cluster_id_; }
  asio::awaitable<Status> change(ChangeBuilder build, AfterChange after = nullptr) override;
  asio::awaitable<void> settled() override;

  // Writes a final snapshot and closes the log (shutdown).
  asio::awaitable<void> close();

  // A snapshot is written after this many records since the last one.
  static constexpr int64_t kSnapshotEveryRecords = 1000;

 private:
  LocalMetadataStore(std::string cluster_id, ShardPool& shards);

  std::string cluster_id_;
  ShardPool& shards_;
  metadata::MetadataImage image_;
  std::unique_ptr<metadata::MetadataLog> log_;  // shard 0 only
  AsyncMutex lock_;
};

}  // namespace mirra::cluster
