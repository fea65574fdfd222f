// The pure parts of `mirra share-groups` (kafka-share-groups.sh): its option rules over those of
// `mirra groups` (groups_logic.h, whose options, value formats and reset plan it shares) and the
// rows of its describe views. No I/O here, so all of it is unit-tested
// (tests/cli/share_groups_logic_test.cc); share_groups*.cc do the talking.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "cli/groups_logic.h"
#include "client/types.h"

namespace mirra::cli {

// Kafka's share group states, as ListGroups and ShareGroupDescribe spell them.
constexpr std::array<std::string_view, 3> kShareGroupStates = {"Stable", "Empty", "Dead"};

// The command line of `mirra share-groups` checked: the rules of `mirra groups` (one action,
// options that go with it, one reset scenario, ...), plus its own: --to-earliest, --to-latest,
// --to-offset and --to-datetime are the scenarios, --delete-offsets takes whole topics, and
// --list --state names share group states. CLI11 registers no other options for it.
Result<GroupsCommand> check_share_args(const GroupsArgs& a);

// The default --describe view (GROUP TOPIC PARTITION START-OFFSET LAG), a row per partition the
// group holds state for, in order; "" when there is none. The lag is the broker's
// (DescribeShareGroupOffsets v1), else log end minus start offset when `log_end` has it, else
// "-"; a partition the broker could not describe shows "-".
std::string share_offsets_table(const std::string& group,
                                const std::vector<client::ShareGroupOffset>& offsets,
                                const std::map<client::TopicPartition, int64_t>& log_end);
// The partitions whose lag the broker did not give (v0) but that have a start offset: those
// share_offsets_table wants log end offsets for.
std::vector<client::TopicPartition> lag_unknown(
    const std::vector<client::ShareGroupOffset>& offsets);

// The members as the --members view shows them (groups_logic.h's members_table, with the
// assignment column, as kafka-share-groups.sh shows it).
std::vector<MemberView> share_member_views(const client::ShareGroupDescription& d);

// The --state view: GROUP COORDINATOR (ID) STATE GROUP-EPOCH ASSIGNMENT-EPOCH #MEMBERS.
std::string share_state_table(const client::ShareGroupDescription& d);

}  // namespace mirra::cli
