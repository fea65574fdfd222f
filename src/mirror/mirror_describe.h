// What DescribeMirrors, ListMirrors and LastMirroredOffsets answer, as plain structs
// (docs/mirroring.md: "Watch it", "Fail back"). The rules live here; the handlers only translate
// these structs to the wire. MirrorManager::describe(), list() and last_mirrored_offsets() fill
// them from the metadata image, the partition states and the runners' live status; the pure
// rules below (one partition's description, a topic's listed state, the LMO a failback may
// use) are what tests/mirror checks directly.
//
// Threading: the core thread (what they read is the core thread's).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/uuid.h"
#include "mirror/mirror_runner.h"
#include "mirror/mirror_state_records.h"
#include "mirror/mirror_sync.h"

namespace mirra::mirror {

// One partition as DescribeMirrors shows it; -1 is "unknown" throughout.
struct PartitionDescription {
  int32_t partition = 0;
  int8_t state = 0;  // a MirrorState; PREPARING when the partition has no state yet
  int8_t previous_state = -1;
  int64_t source_log_start_offset = -1;
  int64_t source_high_watermark = -1;
  int64_t destination_log_end_offset = -1;
  int64_t lag = -1;     // offsets: the source's HW minus our log end, never below 0
  int64_t lag_ms = -1;  // 0 caught up; else the age of the newest mirrored record
  int64_t fetch_latency_ms = -1;
  int64_t last_mirrored_offset = -1;
  int32_t retry_count = 0;
  int64_t bytes_per_second = 0;
  int64_t records_per_second = 0;
  int16_t last_error_code = 0;
  std::optional<std::string> last_error;
  bool operator==(const PartitionDescription&) const = default;
};

struct TopicDescription {
  std::string name;
  Uuid topic_id;
  std::vector<PartitionDescription> partitions;
};

// The sync tasks' status as DescribeMirrors shows it (docs/mirroring-design.md §12): every kind
// in the order a round runs them, and only the groups with something to say. Empty while the
// mirror has no sync tasks (no runner).
struct SyncDescription {
  std::vector<std::pair<SyncKind, SyncKindStatus>> kinds;
  std::vector<std::pair<std::string, GroupSyncStatus>> groups;
};

struct MirrorDescription {
  std::string name;
  // UNKNOWN_MIRROR for a name that is not a mirror (nothing else is then filled).
  Status status;
  std::string source_bootstrap_servers;
  std::optional<std::string> source_cluster_id;
  std::vector<TopicDescription> topics;
  SyncDescription sync;
  // docs/quotas.md: this broker's mirror.replication.throttled.rate (kUnthrottledRate: none),
  // and the time the mirror spent throttled by it and by the source's quotas (ms).
  int64_t throttled_rate = INT64_MAX;
  int64_t destination_throttled_ms = 0;
  int64_t source_throttled_ms = 0;
};

struct ListedTopic {
  std::string name;
  Uuid topic_id;
  int8_t state = 0;  // topic_state()
};

struct ListedMirror {
  std::string name;
  std::string source_bootstrap_servers;
  std::optional<std::string> source_cluster_id;
  int32_t topic_count = 0;
  std::vector<ListedTopic> topics;  // with include_topics only
};

// LastMirroredOffsets: the partitions asked about, and per partition the LMO (-1 none).
struct PartitionsOfTopic {
  Uuid topic_id;
  std::vector<int32_t> partitions;
};
struct TopicLastMirroredOffsets {
  Uuid topic_id;
  std::vector<std::pair<int32_t, int64_t>> offsets;  // partition, LMO
};

// The clocks a description reads: the rates' steady clock and the wall clock the newest
// mirrored timestamp is compared with.
struct DescribeClock {
  int64_t steady_ms = 0;
  int64_t wall_ms = 0;
};

// One partition: `state` is its durable state (nullptr: none yet), `status` the runner's live
// status (nullptr: not running or never fetched), `destination_log_end` our log end (-1: the
// partition is not open). The lag is known only when both the source's HW and our log end
// are; a STOPPING or STOPPED partition has none (-1, in offsets and in time: it is no longer
// mirrored, and its LMO says where mirroring ended). A FAILED partition shows its durable
// retries and cause, not the live ones.
PartitionDescription describe_partition(int32_t partition, const MirrorStateValue* state,
                                        const PartitionMirrorStatus* status,
                                        int64_t destination_log_end, DescribeClock now);

// A partition the source has and the destination's topic lacks (MirrorRunner::source_only()):
// NOT_MIRRORED, its whole source log end (-1 unknown) as the lag, and the reason as its error.
PartitionDescription describe_source_only_partition(int32_t partition, int64_t source_log_end);

// A group worth showing: its sync stopped with an error, or it is skipped because it has
// members on the destination. Groups that sync fine are left out: a mirror may sync thousands.
bool group_worth_showing(const GroupSyncStatus& group);

// `status` (MirrorSync::status()) as describe shows it.
SyncDescription describe_sync(const MirrorSyncStatus& status);

// The LMO a failback from `requesting_cluster_id` may use for a partition in `state`
// (nullptr: none): only a failover of a mirror from that cluster recorded one, -1 otherwise.
int64_t last_mirrored_offset_for(const MirrorStateValue* state,
                                 const std::string& requesting_cluster_id);

}  // namespace mirra::mirror
