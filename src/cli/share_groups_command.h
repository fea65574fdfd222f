// What the files of `mirra share-groups` share (share_groups.cc: options, --list, --delete,
// --delete-offsets; share_groups_describe.cc; share_groups_reset.cc). The pure logic is in
// share_groups_logic.h; what it has in common with `mirra groups` in groups_command.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cli/groups_command.h"
#include "cli/share_groups_logic.h"
#include "client/sync_client.h"

namespace mirra::cli::share_groups_cmd {

constexpr std::string_view kCommand = "share-groups";

// Every share group (ListGroups with the type filter, client_groups.cc).
Result<std::vector<std::string>> all_share_groups(client::SyncClient& c);
// The groups a command names: --group values, or every share group.
Result<std::vector<std::string>> target_groups(client::SyncClient& c, const GroupsCommand& cmd);
// Whether a group of another type (a consumer group) has the id: DescribeGroups finds it.
bool other_type_group(client::SyncClient& c, const std::string& group);
// What to say of a group a share-group API answered GROUP_ID_NOT_FOUND for: another type's
// group of that id, or no group at all.
std::string missing_group(client::SyncClient& c, const std::string& group);

int describe(client::SyncClient& c, const GroupsCommand& cmd);
int reset_offsets(client::SyncClient& c, const GroupsCommand& cmd);

}  // namespace mirra::cli::share_groups_cmd
