#include "cli/groups_logic.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/text.h"
#include "cli/common.h"

namespace mirra::cli {
namespace {

Status invalid(std::string message) {
  return Status(ErrorCode::INVALID_CONFIG, std::move(message));
}

// Kafka's consumer group states, as ListGroups/DescribeGroups spell them.
constexpr std::array<std::string_view, 7> kStates = {
    "PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty",
    "Assigning",          "Reconciling"};

// Options that only mean something with one action: (given, option name, action name).
struct OnlyWith {
  bool given;
  std::string_view option;
  bool action_given;
  std::string_view action;
};

Status check_only_with(const std::vector<OnlyWith>& rules) {
  for (const OnlyWith& r : rules) {
    if (r.given && !r.action_given) {
      return invalid(fmt::format("option {} can only be used with {}", r.option, r.action));
    }
  }
  return Status::OK();
}

Result<ResetSpec> reset_spec(const GroupsArgs& a) {
  const int scenarios = a.to_earliest + a.to_latest + a.to_current + a.to_datetime.has_value() +
                        a.by_duration.has_value() + a.to_offset.has_value() +
                        a.shift_by.has_value();
  if (scenarios != 1) {
    return invalid(
        "--reset-offsets takes exactly one of --to-earliest, --to-latest, "
        "--to-current, --to-offset, --shift-by, --to-datetime, --by-duration");
  }
  if (a.to_earliest) return ResetSpec{ResetKind::earliest, 0};
  if (a.to_latest) return ResetSpec{ResetKind::latest, 0};
  if (a.to_current) return ResetSpec{ResetKind::current, 0};
  if (a.to_offset) return ResetSpec{ResetKind::offset, *a.to_offset};
  if (a.shift_by) return ResetSpec{ResetKind::shift_by, *a.shift_by};
  if (a.to_datetime) {
    auto ts = parse_datetime(*a.to_datetime);
    if (!ts.ok()) return ts.status();
    return ResetSpec{ResetKind::datetime, ts.value()};
  }
  auto d = parse_duration(*a.by_duration);
  if (!d.ok()) return d.status();
  return ResetSpec{ResetKind::duration, d.value()};
}

// The value of --state, if one was given (CLI11 stores "" for a bare --state).
std::optional<std::string> state_value(const GroupsArgs& a) {
  if (a.state.empty() || a.state.front().empty()) return std::nullopt;
  return a.state.front();
}

Status check_groups_scope(const GroupsArgs& a, std::string_view action) {
  if (a.all_groups && !a.groups.empty()) {
    return invalid("--all-groups and --group cannot be used together");
  }
  if (!a.all_groups && a.groups.empty()) {
    return invalid(fmt::format("{} takes one of these options: --all-groups, --group", action));
  }
  return Status::OK();
}

Status check_action_args(const GroupsArgs& a, GroupsCommand& c) {
  switch (c.action) {
    case GroupsAction::list:
      return Status::OK();
    case GroupsAction::describe:
      if (a.members + a.offsets + a.state_given > 1) {
        return invalid(
            "--describe takes at most one of these options: --members, --offsets, "
            "--state");
      }
      if (a.verbose && !a.members) return invalid("--verbose can only be used with --members");
      if (state_value(a)) return invalid("--state takes no value with --describe");
      c.view = a.members ? DescribeView::members
                         : (a.state_given ? DescribeView::state : DescribeView::offsets);
      c.verbose = a.verbose;
      return check_groups_scope(a, "--describe");
    case GroupsAction::remove:
      if (!a.topics.empty()) {
        return invalid("--delete removes whole groups; use --delete-offsets for a topic's offsets");
      }
      return check_groups_scope(a, "--delete");
    case GroupsAction::delete_offsets:
      if (a.groups.size() != 1 || a.all_groups || a.topics.empty()) {
        return invalid("--delete-offsets takes one --group and at least one --topic");
      }
      return Status::OK();
    case GroupsAction::reset: {
      if (a.dry_run && a.execute) {
        return invalid("--reset-offsets only accepts one of --execute and --dry-run");
      }
      if (a.all_topics == !a.topics.empty()) {
        return invalid("--reset-offsets takes exactly one of these scopes: --all-topics, --topic");
      }
      auto spec = reset_spec(a);
      if (!spec.ok()) return spec.status();
      c.reset = spec.value();
      c.execute = a.execute;
      return check_groups_scope(a, "--reset-offsets");
    }
  }
  return Status::OK();
}

}  // namespace

Result<GroupsCommand> check_args(const GroupsArgs& a) {
  const int actions = a.list + a.describe + a.remove + a.reset + a.delete_offsets;
  if (actions != 1) {
    return invalid(
        "Command must include exactly one action: --list, --describe, --delete, "
        "--reset-offsets, --delete-offsets");
  }
  const bool scenario = a.to_earliest || a.to_latest || a.to_current || a.to_datetime ||
                        a.by_duration || a.to_offset || a.shift_by;
  Status s = check_only_with({
      {a.members, "--members", a.describe, "--describe"},
      {a.offsets, "--offsets", a.describe, "--describe"},
      {a.verbose, "--verbose", a.describe, "--describe"},
      {a.state_given, "--state", a.describe || a.list, "--describe or --list"},
      {a.all_topics, "--all-topics", a.reset, "--reset-offsets"},
      {scenario, "--to-*/--shift-by/--by-duration", a.reset, "--reset-offsets"},
      {a.dry_run, "--dry-run", a.reset, "--reset-offsets"},
      {a.execute, "--execute", a.reset, "--reset-offsets"},
      {!a.topics.empty(), "--topic", a.reset || a.delete_offsets || a.remove,
       "--reset-offsets or --delete-offsets"},
      {!a.groups.empty() || a.all_groups, "--group/--all-groups", !a.list,
       "--describe, --delete, --reset-offsets or --delete-offsets"},
  });
  if (!s.ok()) return s;
  GroupsCommand c;
  c.action = a.list       ? GroupsAction::list
             : a.describe ? GroupsAction::describe
             : a.remove   ? GroupsAction::remove
             : a.reset    ? GroupsAction::reset
                          : GroupsAction::delete_offsets;
  c.groups = a.groups;
  c.all_groups = a.all_groups;
  c.all_topics = a.all_topics;
  if (Status t = check_action_args(a, c); !t.ok()) return t;
  for (const std::string& t : a.topics) {
    auto spec = parse_topic_spec(t);
    if (!spec.ok()) return spec.status();
    c.topics.push_back(std::move(spec.value()));
  }
  if (c.action == GroupsAction::list && a.state_given) {
    c.with_state = true;
    if (auto value = state_value(a)) {
      auto states = parse_states(*value);
      if (!states.ok()) return states.status();
      c.states = std::move(states.value());
    }
  }
  return c;
}

Result<TopicSpec> parse_topic_spec(std::string_view arg) {
  const size_t colon = arg.find(':');
  if (colon == std::string_view::npos) {
    if (arg.empty()) return invalid("--topic needs a topic name");
    return TopicSpec{std::string(arg), {}};
  }
  TopicSpec spec{std::string(arg.substr(0, colon)), {}};
  std::string_view rest = arg.substr(colon + 1);
  if (spec.topic.empty() || rest.empty() || rest.find(':') != std::string_view::npos) {
    return invalid(fmt::format("Invalid topic arg '{}', expected topic name and partitions", arg));
  }
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    auto p = parse_int(item, "partition");
    if (!p.ok() || p.value() < 0 || p.value() > INT32_MAX) {
      return invalid(fmt::format("Invalid partition '{}' specified in topic arg '{}'", item, arg));
    }
    spec.partitions.push_back(static_cast<int32_t>(p.value()));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return spec;
}

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int days_in_month(int64_t y, int64_t m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

int64_t number(const std::string& s) { return s.empty() ? 0 : std::stoll(s); }

}  // namespace

Result<int64_t> parse_datetime(std::string_view text) {
  static const std::regex kFormat(
      R"((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})(Z|([+-])(\d{2})(:?(\d{2}))?)?)");
  std::match_results<std::string_view::const_iterator> m;
  const auto bad = invalid(fmt::format(
      "--to-datetime '{}' is not of the form YYYY-MM-DDTHH:mm:SS.sss (optionally followed by "
      "Z, +hh, +hhmm or +hh:mm; UTC when none)",
      text));
  if (!std::regex_match(text.begin(), text.end(), m, kFormat)) return bad;
  const int64_t year = number(m[1]), month = number(m[2]), day = number(m[3]);
  const int64_t hour = number(m[4]), minute = number(m[5]), second = number(m[6]);
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 ||
      minute > 59 || second > 59) {
    return bad;
  }
  int64_t offset_minutes = 0;
  if (m[9].matched) {
    const int64_t zh = number(m[10]), zm = number(m[12]);
    if (zh > 18 || zm > 59) return bad;
    offset_minutes = (m[9] == "-" ? -1 : 1) * (zh * 60 + zm);
  }
  const int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 +
                          second - offset_minutes * 60;
  return seconds * 1000 + number(m[7]);
}

Result<int64_t> parse_duration(std::string_view text) {
  static const std::regex kFormat(
      R"(([-+]?)P(?:([-+]?\d+)D)?(T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?)(\d+)(?:[.,](\d{0,9}))?S)?)?)",
      std::regex::icase);
  std::match_results<std::string_view::const_iterator> m;
  const auto bad = invalid(fmt::format(
      "--by-duration '{}' is not an ISO-8601 duration of the form PnDTnHnMnS (e.g. PT1H30M)",
      text));
  if (!std::regex_match(text.begin(), text.end(), m, kFormat)) return bad;
  const bool has_time = m[4].matched || m[5].matched || m[7].matched;
  if ((!m[2].matched && !has_time) || (m[3].matched && !has_time)) return bad;
  if (m[2].length() > 12 || m[4].length() > 14 || m[5].length() > 15 || m[7].length() > 16) {
    return bad;  // beyond any offset's timestamp (and int64 milliseconds)
  }
  std::string fraction = m[8].str().substr(0, 3);
  fraction.resize(3, '0');
  const int64_t second_sign = m[6] == "-" ? -1 : 1;
  int64_t ms = number(m[2]) * 86400000 + number(m[4]) * 3600000 + number(m[5]) * 60000 +
               second_sign * (number(m[7]) * 1000 + number(fraction));
  if (m[1] == "-") ms = -ms;
  return ms;
}

Result<std::vector<std::string>> parse_states(std::string_view text) {
  return parse_states(text, kStates);
}

Result<std::vector<std::string>> parse_states(std::string_view text,
                                              std::span<const std::string_view> valid) {
  std::vector<std::string> out;
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    auto it = std::find_if(valid.begin(), valid.end(),
                           [&](std::string_view s) { return iequals(s, item); });
    if (it == valid.end()) {
      return invalid(fmt::format("Invalid state list '{}'. Valid states are: {}", text,
                                 fmt::join(valid, ", ")));
    }
    if (std::find(out.begin(), out.end(), *it) == out.end()) out.emplace_back(*it);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

Result<int64_t> plan_offset(const ResetSpec& spec, const client::TopicPartition& tp,
                            const PartitionFacts& f) {
  auto clamp = [&f](int64_t o) { return o > f.log_end ? f.log_end : std::max(o, f.log_start); };
  switch (spec.kind) {
    case ResetKind::earliest:
      return f.log_start;
    case ResetKind::latest:
      return f.log_end;
    case ResetKind::current:
      return f.committed.value_or(f.log_end);
    case ResetKind::offset:
      return clamp(spec.value);
    case ResetKind::shift_by:
      if (!f.committed) {
        return invalid(
            fmt::format("Cannot shift offset for partition {} since there is no "
                        "current committed offset",
                        client::to_string(tp)));
      }
      return clamp(*f.committed + spec.value);
    case ResetKind::datetime:
    case ResetKind::duration:
      return f.at_time.value_or(f.log_end);
  }
  return f.log_end;
}

std::optional<int64_t> lag_of(std::optional<int64_t> committed, std::optional<int64_t> log_end) {
  if (!committed || *committed < 0 || !log_end) return std::nullopt;
  return *log_end - *committed;
}

std::vector<OffsetRow> offset_rows(const std::vector<MemberView>& members,
                                   const std::map<client::TopicPartition, int64_t>& committed,
                                   const std::map<client::TopicPartition, int64_t>& log_end) {
  auto find = [](const auto& map, const client::TopicPartition& tp) -> std::optional<int64_t> {
    auto it = map.find(tp);
    return it == map.end() ? std::nullopt : std::optional<int64_t>(it->second);
  };
  auto row = [&](const client::TopicPartition& tp) {
    OffsetRow r;
    r.tp = tp;
    r.current = find(committed, tp);
    r.log_end = find(log_end, tp);
    r.lag = lag_of(r.current, r.log_end);
    return r;
  };
  std::vector<const MemberView*> order;
  for (const MemberView& m : members) {
    if (!m.assignment.empty()) order.push_back(&m);
  }
  std::stable_sort(order.begin(), order.end(), [](const MemberView* a, const MemberView* b) {
    return a->assignment.size() > b->assignment.size();
  });
  std::vector<OffsetRow> rows;
  std::map<client::TopicPartition, bool> assigned;
  for (const MemberView* m : order) {
    std::vector<client::TopicPartition> tps = m->assignment;
    std::sort(tps.begin(), tps.end());
    for (const client::TopicPartition& tp : tps) {
      OffsetRow r = row(tp);
      r.consumer_id = m->consumer_id;
      r.host = m->host;
      r.client_id = m->client_id;
      rows.push_back(std::move(r));
      assigned[tp] = true;
    }
  }
  for (const auto& entry : committed) {
    if (!assigned.count(entry.first)) rows.push_back(row(entry.first));
  }
  return rows;
}

std::string format_assignment(const std::vector<client::TopicPartition>& tps) {
  if (tps.empty()) return "-";
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (const auto& tp : tps) by_topic[tp.topic].push_back(tp.partition);
  std::vector<std::string> parts;
  for (auto& entry : by_topic) {
    std::sort(entry.second.begin(), entry.second.end());
    parts.push_back(fmt::format("{}({})", entry.first, fmt::join(entry.second, ",")));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string members_table(const std::string& group, const std::vector<MemberView>& members,
                          bool with_assignment) {
  if (members.empty()) return "";
  bool instance_ids = false;
  for (const MemberView& m : members) instance_ids = instance_ids || !m.group_instance_id.empty();
  std::vector<std::string> header = {"GROUP", "CONSUMER-ID"};
  if (instance_ids) header.push_back("GROUP-INSTANCE-ID");
  header.insert(header.end(), {"HOST", "CLIENT-ID", "#PARTITIONS"});
  if (with_assignment) header.push_back("ASSIGNMENT");
  Table table(header, {15, 15, instance_ids ? size_t{17} : size_t{15}, 15, 15, 15});
  for (const MemberView& m : members) {
    std::vector<std::string> row = {group, m.consumer_id};
    if (instance_ids) row.push_back(m.group_instance_id);
    row.insert(row.end(), {m.host, m.client_id, std::to_string(m.assignment.size())});
    if (with_assignment) row.push_back(format_assignment(m.assignment));
    table.add(std::move(row));
  }
  return table.render();
}

std::string group_listing(const std::vector<client::GroupListing>& groups, bool with_state) {
  if (!with_state) {
    std::string out;
    for (const client::GroupListing& g : groups) out += g.group_id + "\n";
    return out;
  }
  Table table({"GROUP", "STATE"}, {15, 20});
  for (const client::GroupListing& g : groups) {
    table.add({g.group_id, g.state.empty() ? "Unknown" : g.state});
  }
  return table.render();
}

std::string coordinator_cell(const client::Coordinator& c) {
  return fmt::format("{}:{}  ({})", c.host, c.port, c.node_id);
}

std::string or_dash(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "-"; }

}  // namespace mirra::cli
