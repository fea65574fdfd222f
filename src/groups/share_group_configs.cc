#include "groups/share_group_configs.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>

namespace mirra::groups {
namespace {

constexpr std::string_view kReset = "share.auto.offset.reset";
constexpr std::string_view kIsolation = "share.isolation.level";
constexpr std::string_view kLock = "share.record.lock.duration.ms";
constexpr std::string_view kHeartbeat = "share.heartbeat.interval.ms";
constexpr std::string_view kSession = "share.session.timeout.ms";
constexpr std::string_view kByDuration = "by_duration:";

Status invalid(std::string message) {
  return Status(ErrorCode::INVALID_CONFIG, std::move(message));
}

Status check_int(std::string_view key, const std::string& value, int32_t lo, int32_t hi,
                 std::string_view bounds) {
  int32_t v = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || end != value.data() + value.size()) {
    return invalid(
        fmt::format("Invalid value {} for configuration {}: Not a number of type INT", value, key));
  }
  if (v < lo || v > hi) {
    return invalid(
        fmt::format("{} must be between {} and {} ({}), not {}", key, lo, hi, bounds, v));
  }
  return Status::OK();
}

int32_t int_of(const std::map<std::string, std::string>* overrides, std::string_view key,
               int32_t fallback) {
  if (overrides == nullptr) return fallback;
  auto it = overrides->find(std::string(key));
  int32_t v = fallback;
  if (it != overrides->end())
    std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  return v;
}

}  // namespace

const std::vector<ShareGroupConfigKey>& share_group_config_keys() {
  static const std::vector<ShareGroupConfigKey> keys{
      {kReset, false,
       "Where a share group starts reading a partition it has no state for: latest, earliest, "
       "or by_duration:<ISO-8601 duration> (the first record at most that old)."},
      {kIsolation, false,
       "read_uncommitted hands out every record; read_committed stops at the last stable "
       "offset and skips aborted records."},
      {kLock, true, "How long a consumer holds a record it was handed before it goes back."},
      {kHeartbeat, true, "How often members heartbeat."},
      {kSession, true, "How long a member may stay silent before it is removed."},
  };
  return keys;
}

const ShareGroupConfigKey* find_share_group_config_key(std::string_view name) {
  for (const ShareGroupConfigKey& k : share_group_config_keys()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::string share_group_config_default(const ShareGroupConfig& broker, std::string_view key) {
  if (key == kReset) return "latest";
  if (key == kIsolation) return "read_uncommitted";
  if (key == kLock) return std::to_string(broker.record_lock_duration_ms);
  if (key == kHeartbeat) return std::to_string(broker.heartbeat_interval_ms);
  if (key == kSession) return std::to_string(broker.session_timeout_ms);
  return {};
}

Status validate_share_group_config(const ShareGroupConfig& broker, std::string_view key,
                                   const std::optional<std::string>& value) {
  if (find_share_group_config_key(key) == nullptr) {
    return invalid(fmt::format("Unknown group config name: {}", key));
  }
  if (!value) return Status::OK();
  const std::string& v = *value;
  if (key == kReset) {
    if (v == "latest" || v == "earliest") return Status::OK();
    if (v.starts_with(kByDuration) && parse_iso_duration_ms(v.substr(kByDuration.size()))) {
      return Status::OK();
    }
    return invalid(
        fmt::format("Invalid value {} for configuration {}: latest, earliest or "
                    "by_duration:<ISO-8601 duration>",
                    v, key));
  }
  if (key == kIsolation) {
    if (v == "read_uncommitted" || v == "read_committed") return Status::OK();
    return invalid(fmt::format(
        "Invalid value {} for configuration {}: read_uncommitted or read_committed", v, key));
  }
  if (key == kLock) {
    return check_int(key, v, broker.min_record_lock_duration_ms, broker.max_record_lock_duration_ms,
                     "group.share.min/max.record.lock.duration.ms");
  }
  if (key == kHeartbeat) {
    return check_int(key, v, broker.min_heartbeat_interval_ms, broker.max_heartbeat_interval_ms,
                     "group.share.min/max.heartbeat.interval.ms");
  }
  return check_int(key, v, broker.min_session_timeout_ms, broker.max_session_timeout_ms,
                   "group.share.min/max.session.timeout.ms");
}

ShareGroupSettings share_group_settings(const ShareGroupConfig& broker,
                                        const std::map<std::string, std::string>* overrides) {
  ShareGroupSettings s;
  s.record_lock_duration_ms = int_of(overrides, kLock, broker.record_lock_duration_ms);
  s.heartbeat_interval_ms = int_of(overrides, kHeartbeat, broker.heartbeat_interval_ms);
  s.session_timeout_ms = int_of(overrides, kSession, broker.session_timeout_ms);
  if (overrides == nullptr) return s;
  if (auto it = overrides->find(std::string(kIsolation)); it != overrides->end()) {
    s.read_committed = it->second == "read_committed";
  }
  if (auto it = overrides->find(std::string(kReset)); it != overrides->end()) {
    if (it->second == "earliest") {
      s.auto_offset_reset = ShareGroupSettings::Reset::earliest;
    } else if (it->second.starts_with(kByDuration)) {
      s.auto_offset_reset = ShareGroupSettings::Reset::by_duration;
      s.reset_duration_ms =
          parse_iso_duration_ms(it->second.substr(kByDuration.size())).value_or(0);
    }
  }
  return s;
}

std::optional<int64_t> parse_iso_duration_ms(std::string_view text) {
  if (text.size() < 3 || (text[0] != 'P' && text[0] != 'p')) return std::nullopt;
  size_t i = 1;
  bool in_time = false, any = false;
  int64_t ms = 0;
  while (i < text.size()) {
    if (text[i] == 'T' || text[i] == 't') {
      if (in_time) return std::nullopt;
      in_time = true;
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.'))
      ++j;
    if (j == i || j == text.size()) return std::nullopt;
    const std::string number(text.substr(i, j - i));
    double v = 0;
    try {
      size_t used = 0;
      v = std::stod(number, &used);
      if (used != number.size()) return std::nullopt;
    } catch (...) {
      return std::nullopt;
    }
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(text[j])));
    double unit_ms = 0;
    if (!in_time && unit == 'D') unit_ms = 86'400'000.0;
    else if (in_time && unit == 'H') unit_ms = 3'600'000.0;
    else if (in_time && unit == 'M') unit_ms = 60'000.0;
    else if (in_time && unit == 'S') unit_ms = 1000.0;
    else return std::nullopt;
    if (unit != 'S' && number.find('.') != std::string::npos) return std::nullopt;
    if (v * unit_ms > 1e15) return std::nullopt;  // past 30,000 years: not a duration anyone means
    ms += static_cast<int64_t>(v * unit_ms);
    any = true;
    i = j + 1;
  }
  const char last = text.back();
  if (!any || last == 'T' || last == 't') return std::nullopt;
  return ms;
}

}  // namespace mirra::groups
