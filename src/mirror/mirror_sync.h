// MirrorSync: one mirror's sync tasks (docs/mirroring-design.md §8). Every
// `mirror.metadata.refresh.interval.ms` a round runs each kind in turn: topics (new source
// topics matching the mirror's patterns are added; deleted or recreated ones become FAILED),
// configs (the source's dynamic topic configs), partitions (partitions added on the source),
// groups (consumer-group offsets) and ACLs (the source's ACLs matching mirror.acl.include). Each
// kind keeps its own status, which describe shows.
//
// Off the data path: the sync has its own connection to the source
// (`mirra-mirror-<mirror>-b<node>-sync`) and its own coroutine, so a slow or failing admin call
// of the source delays the next round, never a fetch. One kind's failure never stops another's.
//
// The source and the destination are behind small interfaces (SyncSource, SyncDestination), so
// the unit tests drive a MirrorSync with fakes (tests/mirror/fake_sync.h).
//
// Threading: the core thread (checked: MIRRA_ASSERT_OWNER), like the runner.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/asio.h"
#include "base/assert.h"
#include "base/status.h"
#include "base/uuid.h"
#include "client/types.h"
#include "mirror/mirror_settings.h"
#include "mirror/mirror_sink.h"
#include "mirror/partition_pipeline.h"  // SteadyTime
#include "security/acl.h"

namespace mirra::client {
class Client;
}

namespace mirra::mirror {

class PatternList;

// The kinds of sync, in the order a round runs them (topics first: the others work on the
// topics it leaves). Their numbers are DescribeMirrors' SyncKind.
enum class SyncKind : int8_t { kTopics = 0, kConfigs = 1, kPartitions = 2, kGroups = 3, kAcls = 4 };
inline constexpr std::array<SyncKind, 5> kSyncKinds{SyncKind::kTopics, SyncKind::kConfigs,
                                                    SyncKind::kPartitions, SyncKind::kGroups,
                                                    SyncKind::kAcls};
// "topics", "configs", "partitions", "groups", "acls".
std::string_view to_string(SyncKind kind);

// What one kind's part of a round did.
struct SyncRound {
  Status status;          // OK, or why the round (or part of it) failed
  int64_t looked_at = 0;  // topics, groups or matching source ACLs examined
  int64_t changed = 0;    // topics added or failed, configs set or removed, partitions added,
                          // offsets committed, ACLs created or removed
};

// One kind's status across rounds (describe, docs/mirroring-design.md §12). Times are wall-clock
// milliseconds since the epoch, -1 for never.
struct SyncKindStatus {
  int64_t runs = 0;
  int64_t failures = 0;  // rounds that ended with an error
  int64_t last_run_ms = -1;
  int64_t last_success_ms = -1;
  int64_t last_duration_us = -1;
  int64_t looked_at = 0;  // in the last round
  int64_t changed = 0;    // in the last round
  int64_t changed_total = 0;
  Status last_error;  // of the last round that failed; OK once a round succeeds
  int64_t last_error_ms = -1;
};

// One source group's offset sync (describe shows the groups with something to say).
struct GroupSyncStatus {
  Status error;  // why its sync stopped (e.g. GROUP_ID_NOT_FOUND); OK while it syncs
  bool active_on_destination = false;  // skipped: the group has members on the destination
  int64_t last_synced_ms = -1;
  int64_t offsets_committed = 0;  // in its last sync
};

struct MirrorSyncStatus {
  std::array<SyncKindStatus, kSyncKinds.size()> kinds;
  std::map<std::string, GroupSyncStatus> groups;

  SyncKindStatus& of(SyncKind kind) { return kinds[static_cast<size_t>(kind)]; }
  const SyncKindStatus& of(SyncKind kind) const { return kinds[static_cast<size_t>(kind)]; }
};

// What the sync tasks need of the source cluster: admin calls only (its data path is the
// runner's).
class SyncSource {
 public:
  virtual ~SyncSource() = default;
  // Metadata of `topics` (nullopt: every topic).
  virtual asio::awaitable<Result<client::ClusterMetadata>> metadata(
      std::optional<std::vector<std::string>> topics) = 0;
  // Each topic's configs (DescribeConfigs), with their sources; a topic's own error in its
  // result.
  virtual asio::awaitable<Result<std::vector<client::ConfigResourceResult>>> topic_configs(
      std::vector<std::string> topics) = 0;
  // Every group of the source; a listing may be partial (GroupListings::errors).
  virtual asio::awaitable<Result<client::GroupListings>> list_groups() = 0;
  // The committed offsets of each group for `partitions` (offset -1 where none). A group's own
  // error (e.g. GROUP_ID_NOT_FOUND) is its entry's Status, so one group never fails the others.
  virtual asio::awaitable<
      Result<std::map<std::string, Result<std::vector<client::CommittedOffset>>>>>
  committed_offsets(std::vector<std::string> groups,
                    std::vector<client::TopicPartition> partitions) = 0;
  // Every ACL of the source (DescribeAcls matching anything); its refusal (SECURITY_DISABLED:
  // no authorizer there, CLUSTER_AUTHORIZATION_FAILED: no DESCRIBE on its cluster) as the
  // Result's error.
  virtual asio::awaitable<Result<std::vector<security::AclBinding>>> acls() = 0;
  // Ends every call in progress; the source is not used again.
  virtual void close() = 0;
};

// A destination group as the offset sync sees it.
struct DestinationGroup {
  bool exists = false;
  std::string protocol_type;  // "consumer", "" (offsets only), or another kind's
  size_t members = 0;
};

// An ACL of the destination and the mirror whose ACL sync made it ("" for one made there).
struct DestinationAcl {
  security::AclBinding binding;
  std::string mirror;
};

// A destination partition's bounds for clamping synced offsets.
struct DestinationBounds {
  int64_t log_start = 0;
  int64_t last_stable = 0;  // the LSO: no synced offset points above it
};

// What the sync tasks need of the destination, beyond the data path's MirrorSink (topics,
// partition states).
class SyncDestination {
 public:
  virtual ~SyncDestination() = default;
  // AddTopicsToMirror of source topics by name (the same path as `mirra mirror --add`).
  virtual asio::awaitable<std::vector<Status>> add_topics(const std::string& mirror,
                                                          std::vector<std::string> names) = 0;
  // The regular expressions (each one whole) the topics sync takes new source topics by: the
  // mirror's remembered `--add --topic` patterns and its explicit mirror.topics.include items
  // (topic_sync_patterns(), mirror_manager.h). Read each round: an add changes them.
  virtual std::vector<std::string> topic_patterns(const std::string& mirror) const = 0;
  // Whether a topic of this name exists here, in any mirror or none.
  virtual bool has_topic(const std::string& name) const = 0;
  // The partitions of a mirror topic become FAILED for good with `why` (the source topic was
  // deleted or recreated); the data stays readable and can be failed over.
  virtual asio::awaitable<Status> fail_topic(const std::string& mirror, const std::string& topic,
                                             Status why) = 0;
  // The topic's dynamic configs here (no defaults), and a change of them: `set` applied and
  // `removed` deleted, as one change.
  virtual std::map<std::string, std::string> topic_configs(const std::string& topic) const = 0;
  virtual asio::awaitable<Status> alter_topic_configs(const std::string& topic,
                                                      std::map<std::string, std::string> set,
                                                      std::vector<std::string> removed) = 0;
  // Partitions up to `count` created for a mirror topic, each PREPARING (mirrored from the
  // source's log start).
  virtual asio::awaitable<Status> add_partitions(const std::string& mirror,
                                                 const std::string& topic, int32_t count) = 0;
  virtual DestinationGroup group(const std::string& group_id) const = 0;
  virtual std::optional<DestinationBounds> bounds(const client::TopicPartition& tp) const = 0;
  // An admin commit (no member, generation -1): per partition its outcome; a group-level
  // refusal (GROUP_ID_NOT_FOUND, a group with members) as the Status.
  virtual asio::awaitable<Result<std::vector<client::PartitionStatus>>> commit_offsets(
      const std::string& group_id, std::vector<client::OffsetToCommit> offsets) = 0;
  // Every ACL here with its maker; SECURITY_DISABLED when this broker has no authorizer (as
  // CreateAcls answers then).
  virtual Result<std::vector<DestinationAcl>> acls() const = 0;
  // One change of the ACLs: `add` created as `mirror`'s (an identical ACL held already, by
  // anyone, is left as it is), and `remove` removed where `mirror` made them (never an ACL made
  // here or by another mirror).
  virtual asio::awaitable<Status> change_acls(const std::string& mirror,
                                              std::vector<security::AclBinding> add,
                                              std::vector<security::AclBinding> remove) = 0;
};

struct MirrorSyncContext {
  asio::any_io_executor core;
  MirrorSink& sink;  // the mirror's topics and partition states
  SyncDestination& destination;
  std::chrono::milliseconds interval{30000};  // mirror.metadata.refresh.interval.ms
  // Time, replaced in tests: wall-clock ms (status times) and the steady clock (durations,
  // the interval). Empty: the real clocks.
  std::function<int64_t()> wall_ms;
  std::function<SteadyTime()> now;
};

class MirrorSync : public std::enable_shared_from_this<MirrorSync> {
 public:
  MirrorSync(MirrorSyncContext ctx, std::string mirror, MirrorSettings settings,
             std::unique_ptr<SyncSource> source);

  const std::string& mirror() const { return mirror_; }
  // Runs rounds from now on, the first at once; stop() ends the loop (a call in progress is
  // cancelled), stopped() waits for that.
  void start();
  void stop();
  asio::awaitable<void> stopped();
  // A round at once instead of after the interval (topics were added, a test).
  void wake();
  // One round of every kind (the loop's body; tests call it directly).
  asio::awaitable<void> run_round();

  const MirrorSyncStatus& status() const { return status_; }

 private:
  asio::awaitable<void> loop();
  void record(SyncKind kind, const SyncRound& round, SteadyTime began);
  int64_t wall_ms() const { return ctx_.wall_ms(); }
  SteadyTime now() const { return ctx_.now(); }

  // The mirror's topics the sync tasks work on (§8: none while PAUSED, none once failed over):
  // those with no partition PAUSED, STOPPING or STOPPED, with the partitions the destination
  // has.
  std::vector<SinkTopic> synced_topics() const;

  // One file per kind. Each reads the source's topics from round_metadata_ (every topic of
  // the source, fetched once at the start of the round) and records its own errors.
  asio::awaitable<SyncRound> sync_topics();      // mirror_sync_topics.cc
  asio::awaitable<SyncRound> sync_configs();     // mirror_sync_configs.cc
  asio::awaitable<SyncRound> sync_partitions();  // mirror_sync_partitions.cc
  asio::awaitable<SyncRound> sync_groups();      // mirror_sync_groups.cc
  asio::awaitable<SyncRound> sync_acls();        // mirror_sync_acls.cc
  // One group's offsets (mirror_sync_groups.cc): its status updated, the offsets it committed
  // added to `committed`; its error, if any.
  asio::awaitable<Status> sync_group(const std::string& group,
                                     const Result<std::vector<client::CommittedOffset>>& offsets,
                                     int64_t& committed);
  asio::awaitable<Status> commit_group(const std::string& group,
                                       const std::vector<client::CommittedOffset>& offsets,
                                       int64_t& committed);

  // mirror_sync_topics.cc: the source topics to add this round; why a mirror topic is FAILED
  // for good now (OK: not, or not yet: its first miss is remembered in missing_once_); whether
  // it is already.
  std::vector<std::string> new_source_topics(const client::ClusterMetadata& source) const;
  Status source_topic_gone(const SinkTopic& t, const client::ClusterMetadata& source);
  bool failed_for_good(const SinkTopic& t) const;
  // One topic's configs made to follow the source's `entries`: how many keys changed.
  asio::awaitable<Result<int64_t>> sync_topic_configs(
      const std::string& topic, const std::vector<client::ConfigEntry>& entries,
      const PatternList& excluded);

  MirrorSyncContext ctx_;
  std::string mirror_;
  MirrorSettings settings_;
  std::unique_ptr<SyncSource> source_;
  MirrorSyncStatus status_;
  // Every topic of the source, fetched once at the start of a round; its error when that
  // failed (a kind that needs it reports the error as its own).
  Result<client::ClusterMetadata> round_metadata_ =
      Status(ErrorCode::UNKNOWN_SERVER_ERROR, "no round yet");
  // Topics found missing on the source at the last round: missing twice in a row is deleted.
  std::set<std::string> missing_once_;
  // The offsets the groups sync committed per group at its last success per partition: only a
  // change is committed again (mirror_sync_groups.cc).
  std::map<std::string, std::map<client::TopicPartition, client::OffsetToCommit>> group_commits_;
  // What the configs and partitions syncs said once, not every round: a source without
  // DescribeConfigs, keys this broker refuses ("topic\nkey"), topics with fewer partitions on
  // the source.
  bool configs_unsupported_logged_ = false;
  std::set<std::string> refused_configs_logged_;
  std::set<std::string> fewer_partitions_logged_;
  asio::steady_timer wakeup_;
  asio::steady_timer exited_;
  bool running_ = false;
  bool stopping_ = false;
  ThreadOwner owner_;  // the core thread
};

// The real source: admin calls through client::Client.
class ClientSyncSource : public SyncSource {
 public:
  explicit ClientSyncSource(std::unique_ptr<client::Client> client);
  ~ClientSyncSource() override;
  asio::awaitable<Result<client::ClusterMetadata>> metadata(
      std::optional<std::vector<std::string>> topics) override;
  asio::awaitable<Result<std::vector<client::ConfigResourceResult>>> topic_configs(
      std::vector<std::string> topics) override;
  asio::awaitable<Result<client::GroupListings>> list_groups() override;
  asio::awaitable<Result<std::map<std::string, Result<std::vector<client::CommittedOffset>>>>>
  committed_offsets(std::vector<std::string> groups,
                    std::vector<client::TopicPartition> partitions) override;
  asio::awaitable<Result<std::vector<security::AclBinding>>> acls() override;
  void close() override;

 private:
  std::unique_ptr<client::Client> client_;
};

// `mirra-mirror-<mirror>-b<node>-sync` (docs/mirroring-design.md §10: every connection of a
// mirror has a client id the source's quotas can name).
std::string sync_client_id(const std::string& mirror, int32_t node_id);

}  // namespace mirra::mirror
