// The pure parts of `mirra groups` (kafka-consumer-groups.sh): checking the command line,
// Kafka's value formats (--topic T:P,P, --to-datetime, --by-duration, --state lists), the
// reset plan, lag, the rows of the describe views and column-aligned tables. No I/O here, so
// all of it is unit-tested (tests/cli/groups_logic_test.cc); groups*.cc do the talking.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "cli/table.h"
#include "client/types.h"

namespace mirra::cli {

// What CLI11 fills in; check_args() makes a GroupsCommand of it.
struct GroupsArgs {
  std::string bootstrap;
  std::vector<std::string> command_properties;
  std::string command_config;  // --command-config FILE
  bool list = false, describe = false, remove = false, reset = false, delete_offsets = false;
  std::vector<std::string> groups;
  bool all_groups = false;
  std::vector<std::string> topics;
  bool all_topics = false;
  bool members = false, offsets = false, verbose = false;
  bool state_given = false;  // --state, with or without a value
  std::vector<std::string> state;
  bool to_earliest = false, to_latest = false, to_current = false;
  std::optional<std::string> to_datetime, by_duration;
  std::optional<int64_t> to_offset, shift_by;
  bool dry_run = false, execute = false;
};

enum class GroupsAction { list, describe, remove, reset, delete_offsets };
enum class DescribeView { offsets, members, state };
enum class ResetKind { earliest, latest, current, offset, shift_by, datetime, duration };

struct ResetSpec {
  ResetKind kind = ResetKind::earliest;
  int64_t value = 0;  // the offset, the shift, the timestamp (ms) or the duration (ms)
};

// --topic T (every partition) or T:P,P.
struct TopicSpec {
  std::string topic;
  std::vector<int32_t> partitions;  // empty: all
  bool operator==(const TopicSpec&) const = default;
};

struct GroupsCommand {
  GroupsAction action = GroupsAction::list;
  DescribeView view = DescribeView::offsets;
  bool verbose = false;
  bool with_state = false;          // --list --state: a STATE column
  std::vector<std::string> states;  // --list --state filter (Kafka's names)
  std::vector<std::string> groups;
  bool all_groups = false;
  std::vector<TopicSpec> topics;
  bool all_topics = false;
  ResetSpec reset;
  bool execute = false;
};

// Kafka's rules for which options go together; the error names the offending option.
Result<GroupsCommand> check_args(const GroupsArgs& a);

Result<TopicSpec> parse_topic_spec(std::string_view arg);
// yyyy-MM-ddTHH:mm:ss.SSS with an optional zone (Z, +hh, +hhmm, +hh:mm); none means UTC.
Result<int64_t> parse_datetime(std::string_view text);
// ISO-8601 durations as java.time.Duration reads them: [-]PnDTnHnMn.nS, in milliseconds.
Result<int64_t> parse_duration(std::string_view text);
// "Stable,Empty" (any case) to Kafka's spellings of the consumer group states, or of `valid`.
Result<std::vector<std::string>> parse_states(std::string_view text);
Result<std::vector<std::string>> parse_states(std::string_view text,
                                              std::span<const std::string_view> valid);

// What the reset plan needs to know about one partition.
struct PartitionFacts {
  std::optional<int64_t> committed;
  int64_t log_start = 0;
  int64_t log_end = 0;
  std::optional<int64_t> at_time;  // first offset at/after the --to-datetime/--by-duration time
};

// The new offset as kafka-consumer-groups.sh computes it: explicit offsets and shifts are
// clamped to [log start, log end]; a time with no record after it, and --to-current without a
// committed offset, mean the log end; --shift-by needs a committed offset.
Result<int64_t> plan_offset(const ResetSpec& spec, const client::TopicPartition& tp,
                            const PartitionFacts& f);

// Log end minus the committed offset; none when either is unknown (a committed -1 is none).
std::optional<int64_t> lag_of(std::optional<int64_t> committed, std::optional<int64_t> log_end);

// A group member as the describe views show it, its assignment decoded.
struct MemberView {
  std::string consumer_id;
  std::string group_instance_id;
  std::string host;
  std::string client_id;
  std::vector<client::TopicPartition> assignment;
};

struct OffsetRow {
  client::TopicPartition tp;
  std::optional<int64_t> current, log_end, lag;
  std::string consumer_id = "-", host = "-", client_id = "-";
};

// Kafka's default describe rows: each member's partitions (members with most partitions
// first, partitions in order), then partitions with a committed offset and no member.
std::vector<OffsetRow> offset_rows(const std::vector<MemberView>& members,
                                   const std::map<client::TopicPartition, int64_t>& committed,
                                   const std::map<client::TopicPartition, int64_t>& log_end);

// "t1(0,1), t2(3)", or "-" for none: the --members --verbose ASSIGNMENT column.
std::string format_assignment(const std::vector<client::TopicPartition>& tps);

// The --members table (GROUP, CONSUMER-ID, GROUP-INSTANCE-ID when any member has one, HOST,
// CLIENT-ID, #PARTITIONS, and ASSIGNMENT `with_assignment`); "" without members.
std::string members_table(const std::string& group, const std::vector<MemberView>& members,
                          bool with_assignment);

// --list's output: the group ids one a line, or with `with_state` a GROUP STATE table.
std::string group_listing(const std::vector<client::GroupListing>& groups, bool with_state);

// "host:port  (id)": the --state view's COORDINATOR (ID) column.
std::string coordinator_cell(const client::Coordinator& c);

std::string or_dash(const std::optional<int64_t>& v);

}  // namespace mirra::cli
