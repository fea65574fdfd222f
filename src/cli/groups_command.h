// What the files of `mirra groups` share (groups.cc: options, --list, --delete, --delete-offsets;
// groups_describe.cc; groups_reset.cc). The pure logic is in groups_logic.h.
#pragma once

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
// The partitions of --topic specs; a topic named alone means all of its partitions.
Result<std::vector<client::TopicPartition>> resolve_topics(client::SyncClient& c,
                                                           const std::vector<TopicSpec>& specs);

int describe(client::SyncClient& c, const GroupsCommand& cmd);
int reset_offsets(client::SyncClient& c, const GroupsCommand& cmd);

}  // namespace mirra::cli::groups_cmd
