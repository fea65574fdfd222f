// What the files of `mirra groups` share (groups.cc: options, --list, --delete, --delete-offsets;
// groups_describe.cc; groups_reset.cc). The pure logic is in groups_logic.h.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/common.h"
#include "cli/groups_logic.h"
#include "client/sync_client.h"

namespace mirra::cli::groups_cmd {

constexpr std::string_view kCommand = "groups";

// The actions of `mirra groups` or `mirra share-groups`, one per GroupsAction.
struct GroupsActions {
  using Action = int (*)(client::SyncClient& c, const GroupsCommand& cmd);
  Action list, describe, remove, reset, delete_offsets;
};
// Runs the action `cmd` names on a client opened with `a`'s options; errors as `command`'s.
int run_action(std::string_view command, const GroupsArgs& a, const Result<GroupsCommand>& cmd,
               const GroupsActions& actions);
// The options both commands have (Kafka's names), on `sub`, and the callback that sets
// `result` to `run(*a)`. `kind` ("consumer", "share") and `offsets` ("committed", "start")
// name what they act on in the help.
void add_common_options(CLI::App* sub, std::shared_ptr<GroupsArgs> a, std::string_view kind,
                        std::string_view offsets, CommandResult& result,
                        int (*run)(const GroupsArgs&));

// The groups of --all-groups: as kafka-consumer-groups.sh, consumer groups (protocol type
// "consumer") and groups that only have committed offsets (protocol type "").
Result<std::vector<std::string>> all_consumer_groups(client::SyncClient& c);
// The groups a command names: --group values, or every consumer group.
Result<std::vector<std::string>> target_groups(client::SyncClient& c, const GroupsCommand& cmd);
// DeleteGroups of `groups`, with Kafka's report ("Deletion of requested <kind> groups ('g') was
// successful."); failures on stderr as `command`'s, exit code 1.
int delete_groups(client::SyncClient& c, std::string_view command, std::string_view kind,
                  const std::vector<std::string>& groups);
// The partitions of --topic specs; a topic named alone means all of its partitions.
Result<std::vector<client::TopicPartition>> resolve_topics(client::SyncClient& c,
                                                           const std::vector<TopicSpec>& specs);

// Log end offsets of `tps`; a partition whose offset cannot be had is left out ("-").
Result<std::map<client::TopicPartition, int64_t>> log_end_offsets(
    client::SyncClient& c, const std::vector<client::TopicPartition>& tps);
// What plan_offset needs of each of `tps` (in order), from one ListOffsets round: log start and
// end, the offset at `timestamp` when given, and the group's offset from `committed`.
Result<std::vector<PartitionFacts>> partition_facts(
    client::SyncClient& c, const std::vector<client::TopicPartition>& tps,
    const std::map<client::TopicPartition, int64_t>& committed, std::optional<int64_t> timestamp);
// The reset's target: the first record at or after the time of --to-datetime or --by-duration.
std::optional<int64_t> reset_timestamp(const ResetSpec& spec);

// How a command reads and writes one group's offsets for --reset-offsets.
struct ResetSteps {
  // Nothing, or why the group's offsets cannot be reset now (it has members, ...).
  Status (*check)(client::SyncClient& c, const std::string& group);
  // The group's offsets now: committed offsets, or a share group's start offsets.
  Result<std::map<client::TopicPartition, int64_t>> (*current)(client::SyncClient& c,
                                                               const std::string& group);
  // Sets the new offsets (--execute).
  Status (*apply)(client::SyncClient& c, const std::string& group,
                  const std::vector<client::OffsetToCommit>& offsets);
};
// --reset-offsets of `groups`: each checked, planned (plan_offset), with --execute applied,
// then the plan printed (GROUP TOPIC PARTITION NEW-OFFSET); failures on stderr as `command`'s.
int run_resets(client::SyncClient& c, std::string_view command, const GroupsCommand& cmd,
               const std::vector<std::string>& groups, const ResetSteps& steps);

// Prints the --describe views of groups one after the other: a blank line between tables, as
// Kafka's tools separate them; a group that could not be described gets its error on stderr
// as `command`'s, and the exit code becomes 1.
class ViewPrinter {
 public:
  explicit ViewPrinter(std::string_view command) : command_(command) {}
  void add(const Result<std::string>& view);
  int exit_code() const { return exit_code_; }

 private:
  std::string_view command_;
  bool printed_ = false;
  int exit_code_ = 0;
};

int describe(client::SyncClient& c, const GroupsCommand& cmd);
int reset_offsets(client::SyncClient& c, const GroupsCommand& cmd);

}  // namespace mirra::cli::groups_cmd
