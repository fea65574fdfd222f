// MirrorManager: every mirror's runtime on this broker. It keeps one MirrorRunner per mirror of
// the metadata image (sync() after CreateMirror/DeleteMirror and at start-up) and serves
// AddTopicsToMirror: resolving names and patterns on the source, creating each destination
// topic with the source's topic id, partition count and topic configs (MIRRORING.md §1, §4).
//
// Threading: the core thread.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/asio.h"
#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "cluster/topic_admin.h"
#include "mirror/mirror_runner.h"

namespace mirra::mirror {

struct AddedTopic {
  std::string name;
  Uuid id;
  Status status;
};

class MirrorManager {
 public:
  MirrorManager(asio::any_io_executor core, cluster::MetadataStore& store,
                cluster::PartitionManager& partitions, cluster::TopicAdmin& topics,
                int32_t node_id)
      : core_(core), store_(store), partitions_(partitions), topics_(topics), node_id_(node_id) {}

  // Runs the mirrors from now on (a broker that serves clients; in-process brokers never
  // reach out to source clusters).
  void start() {
    started_ = true;
    sync();
  }
  // Once started: a runner for each mirror of the image that has none; those of mirrors gone
  // stop.
  void sync();
  // Stops every runner and waits for their loops to end (broker shutdown).
  asio::awaitable<void> stop();

  // AddTopicsToMirror: UNKNOWN_MIRROR as a whole; per topic TOPIC_ALREADY_EXISTS (another
  // topic id), TOPIC_ALREADY_IN_MIRROR, UNKNOWN_TOPIC_OR_PARTITION (not on the source), ...
  asio::awaitable<Result<std::vector<AddedTopic>>> add_topics(
      const std::string& mirror, const std::vector<std::string>& names,
      const std::vector<std::string>& patterns);

  const MirrorRunner* runner(const std::string& mirror) const;

 private:
  asio::awaitable<AddedTopic> add_topic(MirrorRunner& runner, const client::TopicInfo& source);
  asio::awaitable<Result<std::map<std::string, std::string>>> source_topic_configs(
      MirrorRunner& runner, const std::string& topic);

  asio::any_io_executor core_;
  cluster::MetadataStore& store_;
  cluster::PartitionManager& partitions_;
  cluster::TopicAdmin& topics_;
  const int32_t node_id_;
  bool started_ = false;
  bool stopped_ = false;
  std::map<std::string, std::shared_ptr<MirrorRunner>> runners_;
};

}  // namespace mirra::mirror
