// MirrorSync: one mirror's sync tasks (docs/mirroring-design.md §8). Every
// `mirror.metadata.refresh.interval.ms` a round runs each kind in turn: topics (new source
// topics matching the mirror's patterns are added; deleted or recreated ones become FAILED),
// configs (the source's dynamic topic configs), partitions (partitions added on the source),
// groups (consumer-group offsets), ACLs (the source's ACLs matching mirror.acl.include) and
// share groups (share-group start offsets). Each kind keeps its own status, which describe
// shows.
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

#include <algorithm>
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
// topics it leaves; share groups reuse the round's listing of the source's groups that the
// groups kind made). Their numbers are DescribeMirrors' SyncKind.
enum class SyncKind : int8_t {
  kTopics = 0,
  kConfigs = 1,
  kPartitions = 2,
  kGroups = 3,
  kAcls = 4,
  kShareGroups = 5,
};
inline constexpr std::array<SyncKind, 6> kSyncKinds{SyncKind::kTopics,     SyncKind::kConfigs,
                                                    SyncKind::kPartitions, SyncKind::kGroups,
                                                    SyncKind::kAcls,       SyncKind::kShareGroups};
// "topics", "configs", "partitions", "groups", "acls", "share-groups".
std::string_view to_string(SyncKind kind);

// What one kind's part of a round did.
struct SyncRound {
  Status status;          // OK, or why the round (or part of it) failed
  int64_t looked_at = 0;  // topics, groups or matching source ACLs examined
  int64_t changed = 0;    // topics added or failed, configs set or removed, partitions added,
                          // offsets committed, start offsets written, ACLs created or removed
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

// One source group's offset sync (describe shows the groups with something to say). A group id
// is one kind of group on the source, so consumer and share groups share one map; `kind` says
// which sync owns the entry (kGroups or kShareGroups).
struct GroupSyncStatus {
  Status error;  // why its sync stopped (e.g. GROUP_ID_NOT_FOUND); OK while it syncs
  bool active_on_destination = false;  // skipped: the group has members on the destination
  int64_t last_synced_ms = -1;
  int64_t offsets_committed = 0;  // in its last sync (start offsets written, for a share group)
  SyncKind kind = SyncKind::kGroups;
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
  // The start offsets of each share group for `partitions` (DescribeShareGroupOffsets; start
  // offset -1 where the group holds no state). A group's own error (GROUP_ID_NOT_FOUND: not a
  // share group) is its entry's Status, as for committed_offsets().
  virtual asio::awaitable<
      Result<std::map<std::string, Result<std::vector<client::ShareGroupOffset>>>>>
  share_group_offsets(std::vector<std::string> groups,
                      std::vector<client::TopicPartition> partitions) = 0;
  // Ends every call in progress; the source is not used again.
  virtual void close() = 0;
};

// A destination group as the offset syncs see it.
struct DestinationGroup {
  bool exists = false;
  std::string protocol_type;  // "consumer", "" (offsets only), "share", or another kind's
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

  // Where a consumer resuming at the source's `offset` resumes here: max(log start, min(offset,
  // LSO)). The LSO rather than the log end, so that nobody resumes inside a transaction the
  // mirror has not seen end; the log start, so that nobody resumes before the data. Committed
  // offsets and share-group start offsets alike (docs/mirroring-design.md §8).
  int64_t clamp(int64_t offset) const { return std::max(log_start, std::min(offset, last_stable)); }
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
  // AlterShareGroupOffsets here (the share group created if missing): per partition its
  // outcome; a refusal of the whole group (NON_EMPTY_GROUP: members joined; GROUP_ID_NOT_FOUND:
  // a group of another type has the id) as the Status.
  virtual asio::awaitable<Result<std::vector<client::PartitionStatus>>> alter_share_offsets(
      const std::string& group_id, std::vector<client::ShareGroupOffset> offsets) = 0;
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
  asio::awaitable<SyncRound> sync_topics();        // mirror_sync_topics.cc
  asio::awaitable<SyncRound> sync_configs();       // mirror_sync_configs.cc
  asio::awaitable<SyncRound> sync_partitions();    // mirror_sync_partitions.cc
  asio::awaitable<SyncRound> sync_groups();        // mirror_sync_groups.cc
  asio::awaitable<SyncRound> sync_acls();          // mirror_sync_acls.cc
  asio::awaitable<SyncRound> sync_share_groups();  // mirror_sync_share_groups.cc
  // What differs between the two group kinds; run_group_kind() (mirror_sync_group_round.cc) is
  // the rest, the same for both: the consumer groups' committed offsets (Offset CommittedOffset,
  // Write OffsetToCommit; mirror_sync_groups.cc) and the share groups' start offsets (both
  // ShareGroupOffset; mirror_sync_share_groups.cc).
  template <typename Offset, typename Write>
  struct GroupKind {
    using Fetched = std::map<std::string, Result<std::vector<Offset>>>;
    SyncKind kind;
    // The protocol types the kind syncs: of a source group to take it, of a destination group
    // to write it (another type there: GROUP_ID_NOT_FOUND).
    bool (*type_taken)(const std::string& protocol_type);
    const char* source_call;  // the source's API, in "... had no answer for it"
    asio::awaitable<Result<Fetched>> (SyncSource::*fetch)(std::vector<std::string> groups,
                                                          std::vector<client::TopicPartition>);
    // What stands for the source's offset here (clamped to the partition's bounds); nullopt:
    // nothing (the source has none).
    std::optional<Write> (*to_write)(const Offset& source, const DestinationBounds& bounds);
    bool (*same)(const Write& a, const Write& b);
    asio::awaitable<Result<std::vector<client::PartitionStatus>>> (SyncDestination::*write)(
        const std::string& group, std::vector<Write> writes);
    // What the kind wrote per group and partition at its last success: only a change is
    // written again.
    std::map<std::string, std::map<client::TopicPartition, Write>> MirrorSync::*written;
  };
  // One round of a group kind (mirror_sync_group_round.cc, instantiated there for both).
  template <typename Offset, typename Write>
  asio::awaitable<SyncRound> run_group_kind(const GroupKind<Offset, Write>& k);
  // One group: its checks, then its offsets written; its status updated, the count written
  // added to `written`; its error, if any.
  template <typename Offset, typename Write>
  asio::awaitable<Status> sync_one_group(const GroupKind<Offset, Write>& k,
                                         const std::string& group,
                                         const Result<std::vector<Offset>>& offsets,
                                         int64_t& written);
  template <typename Offset, typename Write>
  asio::awaitable<Status> write_group(const GroupKind<Offset, Write>& k, const std::string& group,
                                      const std::vector<Offset>& offsets, int64_t& written);
  // Their helpers, the same whatever the types.
  // The source's groups that `kind` syncs: listed once per round (the first of the two kinds
  // lists, the other reuses the answer), of a protocol type `type_taken` takes and taken by
  // mirror.groups.include/exclude. After a complete listing the status entries of `kind` for
  // groups no longer there are dropped; a partial one's error is `partial`.
  struct GroupSelection {
    std::vector<std::string> groups;
    Status partial;
  };
  asio::awaitable<Result<GroupSelection>> select_groups(SyncKind kind,
                                                        bool (*type_taken)(const std::string&));
  // A group kind's round outcome: the listing's `partial` error unless groups failed, then
  // "N of M groups failed; the first, G: error".
  struct GroupFailures {
    size_t failed = 0;
    std::string first_group;
    Status first;
    void add(const std::string& group, Status s);
    Status outcome(const Status& partial, size_t groups) const;
  };
  // Every partition of synced_topics(): what the group syncs work on.
  std::vector<client::TopicPartition> synced_partitions() const;
  // A group's checks before its offsets are written: its status entry claimed for `kind`;
  // `fetched`, the source's error for it; members on the destination (skipped, and `forget`
  // set: what the sync wrote says nothing of what the group holds once they leave, so all is
  // written again then); a destination group of a type `type_ok` refuses (GROUP_ID_NOT_FOUND).
  // A Status: the group is done for this round with it; nullopt: write.
  std::optional<Status> check_group(SyncKind kind, const std::string& group, const Status& fetched,
                                    bool (*type_ok)(const std::string&), bool& forget);
  // A group's error recorded (OK: it syncs), logged once per change.
  void set_group_error(const std::string& group, GroupSyncStatus& st, const Status& error);

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
  // What the groups and share-groups syncs wrote per group at its last success per partition
  // (GroupKind::written): only a change is written again.
  std::map<std::string, std::map<client::TopicPartition, client::OffsetToCommit>> group_commits_;
  std::map<std::string, std::map<client::TopicPartition, client::ShareGroupOffset>> share_writes_;
  // The source's groups as this round listed them (round_groups()); reset at each round.
  std::optional<Result<client::GroupListings>> round_groups_;
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
  asio::awaitable<Result<std::map<std::string, Result<std::vector<client::ShareGroupOffset>>>>>
  share_group_offsets(std::vector<std::string> groups,
                      std::vector<client::TopicPartition> partitions) override;
  void close() override;

 private:
  std::unique_ptr<client::Client> client_;
};

// `mirra-mirror-<mirror>-b<node>-sync` (docs/mirroring-design.md §10: every connection of a
// mirror has a client id the source's quotas can name).
std::string sync_client_id(const std::string& mirror, int32_t node_id);

}  // namespace mirra::mirror
