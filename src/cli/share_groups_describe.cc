// `mirra share-groups --describe`: per share group, the partitions it holds state for with
// their start offsets and lag (the default, as kafka-share-groups.sh), or the members with
// their assignments (--members), or the group's state and epochs (--state).
#include <fmt/format.h>

#include "cli/common.h"
#include "cli/share_groups_command.h"

namespace mirra::cli::share_groups_cmd {
namespace {

Result<std::string> offsets_view(client::SyncClient& c, const std::string& group) {
  auto described = c.share_group_offsets(std::vector<std::string>{group}, std::nullopt);
  if (!described.ok()) return described.status();
  const client::ShareGroupOffsets& g = described->front();
  if (!g.status.ok()) return g.status;
  // A broker without DescribeShareGroupOffsets v1 gives no lag: log end minus start instead.
  auto log_end = groups_cmd::log_end_offsets(c, lag_unknown(g.offsets));
  if (!log_end.ok()) return log_end.status();
  return share_offsets_table(group, g.offsets, log_end.value());
}

// Kafka's remarks on a group's state (stderr).
void announce_state(const client::ShareGroupDescription& d) {
  if (d.state == "Empty") {
    fmt::print(stderr, "Share group '{}' has no active members.\n", d.group_id);
  }
}

Result<std::string> view_of(client::SyncClient& c, const client::ShareGroupDescription& d,
                            const GroupsCommand& cmd) {
  switch (cmd.view) {
    case DescribeView::state:
      return share_state_table(d);
    case DescribeView::members:
      return members_table(d.group_id, share_member_views(d), true);
    case DescribeView::offsets:
      break;
  }
  return offsets_view(c, d.group_id);
}

}  // namespace

int describe(client::SyncClient& c, const GroupsCommand& cmd) {
  auto groups = target_groups(c, cmd);
  if (!groups.ok()) return fail(kCommand, groups.status().message());
  auto described = c.describe_share_groups(groups.value());
  if (!described.ok()) return fail(kCommand, described.status().message());
  int exit_code = 0;
  bool printed = false;
  for (const client::ShareGroupDescription& d : *described) {
    if (d.status.code() == ErrorCode::GROUP_ID_NOT_FOUND || d.state == "Dead") {
      exit_code = fail(kCommand, missing_group(c, d.group_id));
      continue;
    }
    if (!d.status.ok()) {
      exit_code = fail(kCommand, d.status.message());
      continue;
    }
    announce_state(d);
    auto view = view_of(c, d, cmd);
    if (!view.ok()) {
      exit_code = fail(kCommand, view.status().message());
      continue;
    }
    if (view->empty()) continue;
    // A blank line between the groups' tables, as Kafka's tool separates them.
    fmt::print("{}{}", printed ? "\n" : "", view.value());
    printed = true;
  }
  return exit_code;
}

}  // namespace mirra::cli::share_groups_cmd
