// What the files of `mirra groups` share (groups.cc: options, --list, --delete, --delete-offsets;
// groups_describe.cc; groups_reset.cc). The pure logic is in groups_logic.h.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/groups_logic.h"
#include "client/sync_client.h"

namespace mirra::cli::groups_cmd {

constexpr std::string_view kCommand = "groups";

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

int describe(client::SyncClient& c, const GroupsCommand& cmd);
int reset_offsets(client::SyncClient& c, const GroupsCommand& cmd);

}  // namespace mirra::cli::groups_cmd
