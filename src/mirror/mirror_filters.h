// What a mirror takes from its source and what it leaves (docs/mirroring-design.md §8): the
// topic and group filters (`mirror.topics.include/exclude`, `mirror.groups.include/exclude`,
// comma-separated regular expressions matching whole names) and the source topic configs it
// copies. Shared by AddTopicsToMirror (mirror_manager.cc) and the sync tasks (mirror_sync_*.cc),
// so that a topic added by hand and one added by the sync get the same configs.
//
// Pure: unit-tested in tests/mirror/mirror_filters_test.cc.
#pragma once

#include <functional>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "client/types.h"

namespace mirra::mirror {

// A comma-separated list of regular expressions, compiled once (a sync round matches thousands
// of names). An expression that does not compile matches nothing; validate_mirror_configs
// refuses such lists before a mirror is created.
class PatternList {
 public:
  PatternList() = default;
  explicit PatternList(const std::string& list);
  bool empty() const { return regexes_.empty(); }
  // Whether one expression matches the whole of `name`.
  bool matches(const std::string& name) const;

 private:
  std::vector<std::regex> regexes_;
};

// A name taken by an include/exclude pair: matched by `include` and not by `exclude`.
struct NameFilter {
  PatternList include;
  PatternList exclude;
  bool takes(const std::string& name) const {
    return include.matches(name) && !exclude.matches(name);
  }
};

// Whether `text` matches one of a comma-separated list of regular expressions (whole match).
// Compiles the list on every call: for one-off checks; loops use PatternList.
bool matches_any(const std::string& list, const std::string& text);

// Source topic configs a mirror never copies: its own membership, throttling lists, settings
// that only make sense for the source's replicas or clients, and tiered storage, which
// destination mirror topics cannot enable.
bool never_copied(const std::string& key);

// The configs of a source topic a mirror copies: dynamic topic configs only (no defaults, no
// broker-level ones), not sensitive, not never_copied(), not matched by
// `mirror.topic.properties.exclude`, and valid here. `on_refused(key, why)` hears of a key this
// broker does not accept (a newer source), which is left out so that one setting never blocks
// the data.
std::map<std::string, std::string> copied_topic_configs(
    const std::vector<client::ConfigEntry>& source_entries, const PatternList& excluded,
    const std::function<void(const std::string& key, const std::string& why)>& on_refused);

}  // namespace mirra::mirror
