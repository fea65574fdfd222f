// `mirra mirror --describe`'s tables and JSON (mirror_describe_format.h).
#include "cli/mirror_describe_format.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error_codes.h"
#include "cli/table.h"
#include "mirror/describe_json.h"
#include "mirror/mirror_admin.h"

namespace mirra::cli {
namespace {

std::string state_name(int8_t state) { return std::string(mirror::mirror_state_name(state)); }

std::string or_dash(int64_t v) { return v < 0 ? "-" : std::to_string(v); }

std::string partition_table(const std::vector<client::MirrorDescription>& mirrors) {
  Table table({"MIRROR", "TOPIC", "PARTITION", "STATE", "SOURCE-HW", "DEST-LEO", "LAG", "LAG-MS",
               "LMO", "RETRIES", "BYTES/S", "RECORDS/S", "FETCH-MS", "LAST-ERROR"});
  for (const auto& m : mirrors) {
    for (const auto& t : m.topics) {
      for (const auto& p : t.partitions) {
        table.add({m.name, t.name, std::to_string(p.partition), state_name(p.state),
                   or_dash(p.source_high_watermark), or_dash(p.destination_log_end), or_dash(p.lag),
                   or_dash(p.lag_ms), or_dash(p.last_mirrored_offset), std::to_string(p.retries),
                   std::to_string(p.bytes_per_second), std::to_string(p.records_per_second),
                   or_dash(p.fetch_latency_ms), p.last_error.ok() ? "-" : p.last_error.message()});
      }
    }
  }
  return table.render();
}

// "Sync of mirror M": a row per kind, then the groups with something to say. Nothing for a
// mirror without sync tasks (no runner) or from a broker that predates them.
std::string sync_tables(const client::MirrorDescription& m, int64_t now_ms) {
  if (m.sync_kinds.empty() && m.sync_groups.empty()) return "";
  std::string out = fmt::format("\nSync of mirror {}\n", m.name);
  Table kinds({"KIND", "RUNS", "FAILURES", "LAST-SUCCESS", "LAST-ERROR", "LOOKED-AT", "CHANGED"});
  for (const auto& k : m.sync_kinds) {
    const std::string error = k.last_error.ok() ? "-"
                                                : fmt::format("{} ({})", k.last_error.message(),
                                                              age(k.last_error_ms, now_ms));
    kinds.add({mirror::sync_kind_name(k.kind), std::to_string(k.runs), std::to_string(k.failures),
               age(k.last_success_ms, now_ms), error, std::to_string(k.looked_at),
               std::to_string(k.changed)});
  }
  out += kinds.render();
  if (m.sync_groups.empty()) return out;
  out += "\n";
  Table groups({"GROUP", "KIND", "ACTIVE-ON-DESTINATION", "LAST-SYNCED", "OFFSETS", "ERROR"});
  for (const auto& g : m.sync_groups) {
    groups.add({g.group_id, mirror::sync_kind_name(g.kind), g.active_on_destination ? "yes" : "no",
                age(g.last_synced_ms, now_ms), std::to_string(g.offsets_committed),
                g.error.ok() ? "-" : g.error.message()});
  }
  return out + groups.render();
}

// A rate is set or the mirror was ever throttled: worth a line (and a JSON row).
bool throttling_to_show(const client::MirrorDescription& m) {
  return m.throttled_rate >= 0 || m.destination_throttled_ms > 0 || m.source_throttled_ms > 0;
}

// "Throttling of mirror M: ...".
std::string throttle_line(const client::MirrorDescription& m) {
  if (!throttling_to_show(m)) return "";
  const std::string rate = m.throttled_rate < 0 ? "none"
                                                : fmt::format("{} bytes/s", m.throttled_rate);
  return fmt::format(
      "\nThrottling of mirror {}: mirror.replication.throttled.rate {}; held back here {:.1f}s; "
      "throttled by the source {:.1f}s\n",
      m.name, rate, static_cast<double>(m.destination_throttled_ms) / 1000.0,
      static_cast<double>(m.source_throttled_ms) / 1000.0);
}

}  // namespace

std::string age(int64_t then_ms, int64_t now_ms) {
  if (then_ms < 0) return "-";
  const int64_t ms = std::max<int64_t>(0, now_ms - then_ms);
  if (ms < 60'000) return fmt::format("{:.1f}s ago", static_cast<double>(ms) / 1000.0);
  const int64_t s = ms / 1000;
  if (s < 3600) return fmt::format("{}m{:02}s ago", s / 60, s % 60);
  return fmt::format("{}h{:02}m ago", s / 3600, s / 60 % 60);
}

std::string describe_text(const std::vector<client::MirrorDescription>& mirrors, int64_t now_ms) {
  std::string out = partition_table(mirrors);
  for (const auto& m : mirrors) out += sync_tables(m, now_ms);
  for (const auto& m : mirrors) out += throttle_line(m);
  return out;
}

std::string describe_json(const std::vector<client::MirrorDescription>& mirrors) {
  std::vector<std::string> rows;
  for (const auto& m : mirrors) {
    for (const auto& t : m.topics) {
      for (const auto& p : t.partitions) rows.push_back(mirror::partition_json(m, t, p));
    }
  }
  for (const auto& m : mirrors) {
    if (throttling_to_show(m)) rows.push_back(mirror::throttle_json(m));
    for (const auto& k : m.sync_kinds) rows.push_back(mirror::sync_kind_json(m, k));
    for (const auto& g : m.sync_groups) rows.push_back(mirror::sync_group_json(m, g));
  }
  return fmt::format("[{}]\n", fmt::join(rows, ",\n "));
}

}  // namespace mirra::cli
