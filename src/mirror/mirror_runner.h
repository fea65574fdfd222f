// MirrorRunner: one mirror's data path (MIRRORING.md §2). It owns a Kafka client of the source
// cluster and one fetch loop: every mirror topic's partitions are fetched read_committed from
// the source leaders (the client groups them per broker) at the destination's log end offset,
// and each complete batch is appended at its own offset after the producer-id rewrite.
//
// Threading: the core thread. The client and the loop run on the core executor; appends go to
// the partitions' shards through PartitionManager::run().
#pragma once

#include <map>
#include <memory>
#include <string>

#include "base/asio.h"
#include "base/status.h"
#include "client/client.h"
#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "mirror/mirror_config.h"
#include "mirror/mirror_state_store.h"

namespace mirra::mirror {

// What describe shows of one partition besides its durable state (core thread).
struct PartitionMirrorStatus {
  int64_t source_log_start = -1;
  int64_t source_high_watermark = -1;
  int32_t retries = 0;      // failed rounds since the last success
  Status last_error;        // of the last failed round; OK after a success
};

class MirrorRunner : public std::enable_shared_from_this<MirrorRunner> {
 public:
  static Result<std::shared_ptr<MirrorRunner>> create(asio::any_io_executor core,
                                                      std::string name, MirrorConfigs configs,
                                                      cluster::MetadataStore& store,
                                                      cluster::PartitionManager& partitions,
                                                      MirrorStateStore& states, int32_t node_id);

  const std::string& name() const { return name_; }
  client::Client& source() { return *client_; }
  const MirrorConfigs& configs() const { return configs_; }
  // The value of a mirror config, or its default.
  std::string config(const std::string& key) const;

  // Starts the fetch loop; stop() ends it (in-flight appends finish), stopped() waits for that.
  void start();
  void stop();
  asio::awaitable<void> stopped();
  // A topic was added: fetch at once instead of after the idle wait.
  void wake() { idle_.cancel(); }

  const std::map<client::TopicPartition, PartitionMirrorStatus>& status() const {
    return status_;
  }

 private:
  MirrorRunner(asio::any_io_executor core, std::string name, MirrorConfigs configs,
               cluster::MetadataStore& store, cluster::PartitionManager& partitions,
               MirrorStateStore& states);
  // Whether the partition's durable state lets it be fetched (not paused or being stopped).
  bool fetching(const MirrorStateKey& key) const;
  // Persists MIRRORING after the first good fetch of a PREPARING partition.
  asio::awaitable<void> mark_mirroring(const MirrorStateKey& key);

  asio::awaitable<void> run();
  // One fetch of every mirror partition; false when there was nothing to fetch.
  asio::awaitable<bool> fetch_round();
  asio::awaitable<void> apply(const client::FetchedPartition& fetched);
  asio::awaitable<Status> append(const std::shared_ptr<cluster::Partition>& p,
                                 std::span<const uint8_t> records);
  asio::awaitable<Status> follow_log_start(const std::shared_ptr<cluster::Partition>& p,
                                           int64_t source_log_start);
  asio::awaitable<Status> restart_at_source_start(const std::shared_ptr<cluster::Partition>& p,
                                                  const client::TopicPartition& tp);
  asio::awaitable<void> wait(std::chrono::milliseconds d);

  std::string name_;
  MirrorConfigs configs_;
  cluster::MetadataStore& store_;
  cluster::PartitionManager& partitions_;
  MirrorStateStore& states_;
  std::unique_ptr<client::Client> client_;
  asio::steady_timer idle_;
  asio::steady_timer exited_;
  bool stopping_ = false;
  bool running_ = false;
  std::map<client::TopicPartition, PartitionMirrorStatus> status_;
};

}  // namespace mirra::mirror
