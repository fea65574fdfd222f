#include "mirror/mirror_filters.h"

#include <set>

#include "cluster/topic_config.h"

namespace mirra::mirror {

PatternList::PatternList(const std::string& list) {
  size_t start = 0;
  while (start < list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    const std::string item = list.substr(start, comma - start);
    if (!item.empty()) {
      try {
        regexes_.emplace_back(item);
      } catch (const std::regex_error&) {
        // Matches nothing (see the header): mirror configs are validated before use.
      }
    }
    start = comma + 1;
  }
}

bool PatternList::matches(const std::string& name) const {
  for (const std::regex& r : regexes_) {
    if (std::regex_match(name, r)) return true;
  }
  return false;
}

bool matches_any(const std::string& list, const std::string& text) {
  return PatternList(list).matches(text);
}

bool never_copied(const std::string& key) {
  static const std::set<std::string> keys = {std::string(cluster::kMirrorNameConfig),
                                             "leader.replication.throttled.replicas",
                                             "follower.replication.throttled.replicas",
                                             "mirror.replication.throttled.replicas",
                                             "min.insync.replicas",
                                             "unclean.leader.election.enable",
                                             "remote.storage.enable"};
  return keys.count(key) != 0 || key.rfind("message.timestamp.", 0) == 0;
}

std::map<std::string, std::string> copied_topic_configs(
    const std::vector<client::ConfigEntry>& source_entries, const PatternList& excluded,
    const std::function<void(const std::string& key, const std::string& why)>& on_refused) {
  std::map<std::string, std::string> out;
  for (const client::ConfigEntry& e : source_entries) {
    if (e.source != client::ConfigSource::dynamic_topic || !e.value || e.sensitive) continue;
    if (never_copied(e.name) || excluded.matches(e.name)) continue;
    if (Status s = cluster::validate_topic_config(e.name, *e.value); !s.ok()) {
      if (on_refused) on_refused(e.name, s.message());
      continue;
    }
    out.emplace(e.name, *e.value);
  }
  return out;
}

}  // namespace mirra::mirror
