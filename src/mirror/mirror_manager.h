// MirrorManager: every mirror's runtime on this broker. It keeps one MirrorRunner per mirror of
// the metadata image (sync(): at start-up, and after each change MirrorAdmin makes, through
// the hook the broker sets with MirrorAdmin::on_change()) and serves AddTopicsToMirror:
// resolving names and patterns on the source, creating each destination topic with the
// source's topic id, partition count and topic configs (docs/mirroring-design.md §1, §4). It
// answers DescribeMirrors, ListMirrors and LastMirroredOffsets with the structs of
// mirror_describe.h.
//
// It is also the partition manager's read-only check (cluster/log_writer.h): a topic it mirrors
// is changed by nobody but its mirror, and it holds the manager's one mirror writer.
//
// Threading: the core thread (checked: MIRRA_ASSERT_OWNER, base/assert.h).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/asio.h"
#include "base/assert.h"
#include "cluster/internal_topic.h"
#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "cluster/topic_admin.h"
#include "mirror/cluster_sync_destination.h"
#include "mirror/mirror_describe.h"
#include "mirror/mirror_runner.h"
#include "mirror/mirror_sink.h"
#include "mirror/mirror_state_store.h"
#include "mirror/mirror_sync.h"
#include "security/password_encoder.h"

namespace mirra::mirror {

// Where a restarted partition was truncated before mirroring resumed (§6).
struct PartitionRestart {
  int32_t partition = 0;
  int64_t truncated_to = -1;
  int64_t discarded = 0;  // offsets dropped above the truncation point
};

struct AddedTopic {
  std::string name;
  Uuid id;
  Status status;
  std::vector<PartitionRestart> restarts = {};  // a failback or a restart after a failover
};

// One partition's failover: the LMO it recorded and how many offsets above it (the local LSO)
// its truncation discarded (0 for a partition that was STOPPED already).
struct PartitionStop {
  int32_t partition = 0;
  int64_t last_mirrored_offset = -1;
  int64_t discarded = 0;
};

// A failover's outcome for one topic, per partition.
struct StoppedTopic {
  std::string name;
  Uuid id;
  Status status;
  std::vector<PartitionStop> partitions;
};

// The outcome for one topic of a request that names topics (PauseMirrorTopics, ...).
struct MirrorTopicOutcome {
  std::string name;
  Uuid id;
  Status status;
};

// AddTopicsToMirror of `source` into mirror `mirror` when a topic of that name exists here
// (`state`: its topic_state()): the answer (refused, or already mirrored), or nullopt when it
// is the same topic seen from the other side and is to be restarted (docs/mirroring-design.md
// §4, §6). A mirror topic's id is its source topic's, so a source topic recreated with another
// id is another topic: INCONSISTENT_TOPIC_ID for a topic of this mirror, TOPIC_ALREADY_EXISTS
// for any other.
std::optional<AddedTopic> existing_topic_outcome(const std::string& mirror,
                                                 const client::TopicInfo& source,
                                                 const metadata::TopicInfo& existing, int8_t state);

// The patterns a mirror's topics sync takes new source topics by (docs/mirroring-design.md §8):
// every `--add --topic REGEX` it remembers, and each item of `mirror.topics.include` when its
// configs set that explicitly (its default `.*` alone takes nothing).
std::vector<std::string> topic_sync_patterns(const metadata::MirrorInfo& mirror);

// `__mirror_state` (docs/mirroring-design.md §3, §11: mirror.state.topic.num.partitions).
cluster::InternalTopicSpec state_topic_spec(int32_t partitions);

class MirrorManager {
 public:
  // Before a failback truncates a topic that was writable here: ends the transactions open on
  // the partitions (aborted, their producers fenced), so none of them commits records the
  // truncation dropped. Set by the broker, which owns the transaction coordinator.
  using EndTransactionsHook = std::function<asio::awaitable<Status>(
      std::string topic, std::vector<int32_t> partitions, std::string why)>;

  MirrorManager(asio::any_io_executor core, cluster::MetadataStore& store,
                cluster::PartitionManager& partitions, cluster::TopicAdmin& topics, int32_t node_id,
                MirrorBrokerConfig config);

  void on_truncation(EndTransactionsHook hook) { end_transactions_ = std::move(hook); }
  // Decrypts the secrets of mirror configs (mirror_secrets.h); null: the broker has no
  // password.encoder.secret. Set by the broker before start(); must outlive the manager.
  void set_password_encoder(const security::PasswordEncoder* encoder) { encoder_ = encoder; }
  // The group coordinator as the groups sync sees it (describe a group, commit as an admin);
  // set by the broker, which owns it.
  void on_groups(GroupHooks hooks) { sync_destination_.set_group_hooks(std::move(hooks)); }

  // READ_ONLY_TOPIC while the topic (a partition; -1: any) is mirrored: not failed over yet
  // (docs/mirroring-design.md §4), or being restarted. The partition manager's read-only check,
  // and CreatePartitions'.
  Status check_writable(std::string_view topic, int32_t partition) const;

  // Loads the partition states, finishes failovers a crash interrupted (STOPPING), and runs
  // the mirrors from now on. Only a broker that serves clients starts: in-process brokers
  // (handler tests, the fuzzer) never reach out to source clusters.
  asio::awaitable<Status> start();
  const MirrorStateStore& states() const { return states_; }
  // The broker's cap on mirror fetch traffic, shared by every runner (mirror_throttle.h).
  const MirrorThrottle& throttle() const { return throttle_; }
  // Once started: a runner for each mirror of the image that has none; those of mirrors gone
  // stop; a mirror whose configs changed (IncrementalAlterConfigs) reconnects with the new ones
  // once its loops have ended, the other mirrors going on meanwhile.
  void sync();
  // Stops every runner and waits for their loops to end (broker shutdown).
  asio::awaitable<void> stop();

  // AddTopicsToMirror: UNKNOWN_MIRROR as a whole; per topic TOPIC_ALREADY_EXISTS (another
  // topic id), TOPIC_ALREADY_IN_MIRROR, UNKNOWN_TOPIC_OR_PARTITION (not on the source), ...
  asio::awaitable<Result<std::vector<AddedTopic>>> add_topics(
      const std::string& mirror, const std::vector<std::string>& names,
      const std::vector<std::string>& patterns);

  // RemoveTopicsFromMirror, the failover (docs/mirroring-design.md §5): per partition STOPPING, no
  // more appends, truncation to the local LSO, the LMO recorded, STOPPED (writable). Idempotent.
  asio::awaitable<Result<std::vector<StoppedTopic>>> failover(
      const std::string& mirror, const std::vector<std::string>& names,
      const std::vector<std::string>& patterns);

  // PauseMirrorTopics / ResumeMirrorTopics (mirror_pause.cc): PAUSED stops fetching (still
  // read-only); resume continues from the local log end. Resuming a FAILED partition is the
  // operator's recover: its previous state again, the retry count reset.
  asio::awaitable<Result<std::vector<MirrorTopicOutcome>>> pause(
      const std::string& mirror, const std::vector<std::string>& names,
      const std::vector<std::string>& patterns);
  asio::awaitable<Result<std::vector<MirrorTopicOutcome>>> resume(
      const std::string& mirror, const std::vector<std::string>& names,
      const std::vector<std::string>& patterns);

  // mirror_manager_topics.cc (§8): the `--add --topic` patterns the mirror keeps applying to
  // topics created later on the source, stored in its MirrorRecord; and a topic whose source
  // topic was deleted or recreated, FAILED for good (MirrorRunner::fail_for_good).
  asio::awaitable<Status> remember_topic_patterns(const std::string& mirror,
                                                  const std::vector<std::string>& patterns);
  asio::awaitable<Status> fail_topic(const std::string& mirror, const std::string& topic,
                                     Status why);
  // mirror_add_partitions.cc: the partitions sync's change (§8): a mirror topic grown to
  // `count` partitions as its source topic was, each new one PREPARING (mirrored from the
  // source's log start), the runner woken. TOPIC_NOT_IN_MIRROR, INVALID_PARTITIONS, ...
  asio::awaitable<Status> add_partitions(const std::string& mirror, const std::string& topic,
                                         int32_t count);

  const MirrorRunner* runner(const std::string& mirror) const;
  // The mirror's sync tasks (docs/mirroring-design.md §8); null while it has no runner.
  const MirrorSync* sync_of(const std::string& mirror) const;

  // mirror_describe.cc. DescribeMirrors: the mirrors named (nullopt: all), per partition its
  // state, the source's offsets as last fetched, our log end, the lag, rates and errors.
  std::vector<MirrorDescription> describe(
      const std::optional<std::vector<std::string>>& names) const;
  // ListMirrors: every mirror, or with `topic_names` only those holding one of the topics.
  std::vector<ListedMirror> list(bool include_topics,
                                 const std::optional<std::vector<std::string>>& topic_names) const;
  // LastMirroredOffsets: the LMO this broker's failovers recorded for the partitions asked
  // about, for mirrors whose source is the requesting cluster (-1 elsewhere).
  std::vector<TopicLastMirroredOffsets> last_mirrored_offsets(
      const std::string& requesting_cluster_id, const std::vector<PartitionsOfTopic>& topics) const;

 private:
  // The topics of `mirror` that `names` and `patterns` select; named topics that are not in
  // the mirror get TOPIC_NOT_IN_MIRROR in `refused`. UNKNOWN_MIRROR, INVALID_REQUEST (a bad
  // pattern).
  struct TopicSelection {
    std::vector<std::string> chosen;
    std::vector<MirrorTopicOutcome> refused;
  };
  Result<TopicSelection> select_topics(const std::string& mirror,
                                       const std::vector<std::string>& names,
                                       const std::vector<std::string>& patterns) const;
  // Pause or resume one topic's partitions; for_each_topic() applies one to every selected
  // topic, with an outcome per topic.
  using TopicAction = asio::awaitable<Status> (MirrorManager::*)(const metadata::TopicInfo&);
  asio::awaitable<Result<std::vector<MirrorTopicOutcome>>> for_each_topic(
      const std::string& mirror, const std::vector<std::string>& names,
      const std::vector<std::string>& patterns, TopicAction action);
  asio::awaitable<Status> pause_topic(const metadata::TopicInfo& topic);
  asio::awaitable<Status> resume_topic(const metadata::TopicInfo& topic);
  asio::awaitable<AddedTopic> add_topic(MirrorRunner& runner, const client::TopicInfo& source,
                                        const std::string& source_cluster_id);
  asio::awaitable<AddedTopic> create_mirror_topic(MirrorRunner& runner,
                                                  const client::TopicInfo& source,
                                                  const std::string& source_cluster_id);
  // mirror_failback.cc: the loop check, the truncation point of each partition (the source's
  // LMO for us, else our own LMO, else 0), the truncation, then PREPARING.
  asio::awaitable<AddedTopic> restart_topic(MirrorRunner& runner, const metadata::TopicInfo& topic,
                                            const std::string& source_cluster_id);
  asio::awaitable<Status> check_no_loop(MirrorRunner& runner, const std::string& topic);
  // The transactions open on the topic's partitions aborted and their producers fenced (the
  // `end_transactions_` hook) before a restart truncates them.
  asio::awaitable<Status> end_transactions_on(MirrorRunner& runner, const std::string& topic,
                                              const std::vector<int32_t>& partitions);
  asio::awaitable<Result<PartitionRestart>> truncate_for_restart(const metadata::TopicInfo& topic,
                                                                 int32_t partition, int64_t point);
  asio::awaitable<Result<std::map<std::string, std::string>>> source_topic_configs(
      MirrorRunner& runner, const std::string& topic);
  // With `cause` (FAILED only): the error recorded, the retry count at least 1.
  asio::awaitable<Status> write_state(const MirrorStateKey& key, const std::string& mirror,
                                      MirrorState state, int64_t lmo = -1,
                                      const std::string& source_cluster_id = "",
                                      const Status& cause = Status::OK());
  // A stored mirror whose runner cannot start (its configs are refused, e.g. a security
  // protocol this broker cannot honour, docs/mirroring-design.md §9): every partition that
  // would be fetched becomes FAILED with `why`, so describe and list say why nothing is copied.
  // A runner started once the configs are fixed retries them.
  asio::awaitable<void> fail_unstartable(std::string mirror, Status why);
  // Steps 1-5 of §5 for one partition: its LMO and what the truncation discarded.
  asio::awaitable<Result<PartitionStop>> stop_partition(const std::string& mirror,
                                                        const metadata::TopicInfo& topic,
                                                        int32_t partition);

  asio::any_io_executor core_;
  cluster::MetadataStore& store_;
  cluster::PartitionManager& partitions_;
  cluster::TopicAdmin& topics_;
  const int32_t node_id_;
  const MirrorBrokerConfig config_;
  cluster::InternalTopic state_topic_;
  MirrorStateStore states_;
  const cluster::LogWriter writer_;          // the mirror's: changes mirror topics' logs
  ClusterMirrorSink sink_;                   // the runners' destination
  ClusterSyncDestination sync_destination_;  // the sync tasks' destination
  MirrorThrottle throttle_;                  // mirror.replication.throttled.rate, as in force
  EndTransactionsHook end_transactions_;
  int64_t throttled_rate_in_force() const;
  // Topics restart_topic() is truncating: read-only from its first change to its last, before
  // their state says so (mirror_failback.cc).
  std::set<std::string, std::less<>> restarting_topics_;
  ThreadOwner owner_;  // the core thread
  bool started_ = false;
  bool stopped_ = false;
  std::map<std::string, std::shared_ptr<MirrorRunner>> runners_;
  // The configs as stored (secrets encrypted) each runner was made from: a new MirrorRecord
  // means new configs.
  std::map<std::string, MirrorConfigs> stored_configs_;
  const security::PasswordEncoder* encoder_ = nullptr;
  std::map<std::string, std::shared_ptr<MirrorSync>> syncs_;  // one per runner
  // Runners of mirrors whose configs changed, until their loops have ended (no new runner of
  // the mirror may append meanwhile).
  std::map<std::string, std::shared_ptr<MirrorRunner>> restarting_;
  // Why a mirror of the image has no runner (its configs were refused at start).
  std::map<std::string, Status> not_started_;

  asio::awaitable<void> restart_when_stopped(std::string name, std::shared_ptr<MirrorRunner> old,
                                             std::shared_ptr<MirrorSync> old_sync);
  // A mirror's sync tasks start with its runner (the same settings) and stop with it;
  // stop_sync() hands back the stopping sync so that a restart can wait for it.
  void start_sync(const std::string& name, const MirrorRunner& runner);
  std::shared_ptr<MirrorSync> stop_sync(const std::string& name);
};

}  // namespace mirra::mirror
