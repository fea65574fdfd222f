#include "storage/log_config.h"
#include "base/parse.h"

#include <cerrno>
#include <cstdlib>
#include <functional>
#include <string_view>

namespace mirra::storage {
namespace {

Status bad(const std::string& key, const std::string& value, std::string_view why) {
  return {ErrorCode::INVALID_CONFIG, "config " + key + "=\"" + value + "\": " + std::string(why)};
}

// Parses a whole decimal int64 in [lo, hi]; anything else names the key.
Result<int64_t> parse_long(const std::string& key, const std::string& value, int64_t lo,
                           int64_t hi) {
  auto parsed = parse_decimal<int64_t>(value);
  if (!parsed) return bad(key, value, "expected an integer");
  const int64_t v = *parsed;
  if (v < lo || v > hi)
    return bad(key, value, "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
  return static_cast<int64_t>(v);
}

template <typename T>
Status set_int(T& field, const std::string& key, const std::string& value, int64_t lo,
               int64_t hi = std::numeric_limits<T>::max()) {
  auto v = parse_long(key, value, lo, hi);
  if (!v) return v.status();
  field = static_cast<T>(*v);
  return Status();
}

Status set_cleanup_policy(LogConfig& c, const std::string& key, const std::string& value) {
  bool del = false, compact = false;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string::npos) comma = value.size();
    std::string item = value.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (item == "delete") del = true;
    else if (item == "compact") compact = true;
    else return bad(key, value, "expected a list of \"delete\" and \"compact\"");
    start = comma + 1;
  }
  c.cleanup_delete = del;
  c.cleanup_compact = compact;
  return Status();
}

using Setter = std::function<Status(LogConfig&, const std::string&, const std::string&)>;

const std::map<std::string, Setter>& setters() {
  constexpr int64_t kLong = std::numeric_limits<int64_t>::max();
  static const std::map<std::string, Setter> table = {
      // Kafka's lower bound is 14 bytes (the smallest legacy message); ours is one v2 header.
      {"segment.bytes",
       [](LogConfig& c, auto& k, auto& v) { return set_int(c.segment_bytes, k, v, 61); }},
      {"segment.ms", [](LogConfig& c, auto& k, auto& v) { return set_int(c.segment_ms, k, v, 1); }},
      {"segment.index.bytes",
       [](LogConfig& c, auto& k, auto& v) { return set_int(c.segment_index_bytes, k, v, 12); }},
      {"index.interval.bytes",
       [](LogConfig& c, auto& k, auto& v) { return set_int(c.index_interval_bytes, k, v, 0); }},
      {"retention.ms",
       [](LogConfig& c, auto& k, auto& v) { return set_int(c.retention_ms, k, v, -1); }},
      {"retention.bytes",
       [](LogConfig& c, auto& k, auto& v) { return set_int(c.retention_bytes, k, v, -1); }},
      {"file.delete.delay.ms",
       [](LogConfig& c, auto& k, auto& v) { return set_int(c.file_delete_delay_ms, k, v, 0); }},
      {"max.message.bytes",
       [](LogConfig& c, auto& k, auto& v) { return set_int(c.max_message_bytes, k, v, 0); }},
      {"flush.messages",
       [](LogConfig& c, auto& k, auto& v) { return set_int(c.flush_messages, k, v, 1, kLong); }},
      {"flush.ms",
       [](LogConfig& c, auto& k, auto& v) { return set_int(c.flush_ms, k, v, 0, kLong); }},
      {"delete.retention.ms",
       [](LogConfig& c, auto& k, auto& v) { return set_int(c.delete_retention_ms, k, v, 0); }},
      {"min.compaction.lag.ms",
       [](LogConfig& c, auto& k, auto& v) { return set_int(c.min_compaction_lag_ms, k, v, 0); }},
      {"producer.id.expiration.ms",
       [](LogConfig& c, auto& k, auto& v) {
         return set_int(c.producer_id_expiration_ms, k, v, 1);
       }},
      {"cleanup.policy", set_cleanup_policy},
      {"message.timestamp.type",
       [](LogConfig& c, const std::string& k, const std::string& v) -> Status {
         if (v == "CreateTime") c.timestamp_type = MessageTimestampType::create_time;
         else if (v == "LogAppendTime") c.timestamp_type = MessageTimestampType::log_append_time;
         else return bad(k, v, "expected CreateTime or LogAppendTime");
         return Status();
       }},
  };
  return table;
}

}  // namespace

Status LogConfig::apply(const std::map<std::string, std::string>& props) {
  for (const auto& [key, value] : props) {
    auto it = setters().find(key);
    if (it == setters().end())
      return {ErrorCode::INVALID_CONFIG, "unknown topic config \"" + key + "\""};
    if (Status st = it->second(*this, key, value); !st) return st;
  }
  return check();
}

Result<LogConfig> LogConfig::parse(const std::map<std::string, std::string>& props) {
  LogConfig c;
  if (Status st = c.apply(props); !st) return st;
  return c;
}

Status LogConfig::check() const {
  if (max_offset_index_entries() < 1 || max_time_index_entries() < 1)
    return {ErrorCode::INVALID_CONFIG,
            "config segment.index.bytes=" + std::to_string(segment_index_bytes) +
                ": must hold at least one time index entry (12 bytes)"};
  if (segment_bytes < 61)
    return {ErrorCode::INVALID_CONFIG, "config segment.bytes=" + std::to_string(segment_bytes) +
                                           ": must be at least 61 (one batch header)"};
  return Status();
}

}  // namespace mirra::storage
