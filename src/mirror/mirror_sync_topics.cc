// MirrorSync's topics sync (docs/mirroring-design.md §8), from the round's metadata of every
// source topic:
// - a source topic matching one of the mirror's patterns (its remembered `--add --topic`
//   patterns, an explicit mirror.topics.include), taken by mirror.topics.include/exclude, not
//   internal, and with no topic of its name here, is added as `mirra mirror --add` would;
// - a mirror topic missing from the source on two rounds in a row (one miss may be a metadata
//   answer caught mid-change), or there with another topic id at once, is FAILED for good.
#include <algorithm>
#include <regex>

#include <fmt/format.h>

#include "mirror/mirror_filters.h"
#include "mirror/mirror_sync.h"

namespace mirra::mirror {
namespace {

// Each pattern is one whole expression (a `--topic` regex may hold commas); one that does not
// compile (the add refused it) takes nothing.
std::vector<std::regex> compile(const std::vector<std::string>& patterns) {
  std::vector<std::regex> out;
  for (const std::string& p : patterns) {
    try {
      out.emplace_back(p);
    } catch (const std::regex_error&) {
    }
  }
  return out;
}

bool internal_topic(const client::TopicInfo& t) { return t.internal || t.name.rfind("__", 0) == 0; }

// The first error of a round is its error; the others are in the log.
void note(Status& round, Status s) {
  if (round.ok() && !s.ok()) round = std::move(s);
}

}  // namespace

asio::awaitable<SyncRound> MirrorSync::sync_topics() {
  MIRRA_ASSERT_OWNER(owner_);
  if (!round_metadata_.ok()) co_return SyncRound{round_metadata_.status()};
  // A copy: the round's metadata is only replaced by the next round, but the adds below wait.
  const client::ClusterMetadata source = round_metadata_.value();
  SyncRound round;
  round.looked_at = static_cast<int64_t>(source.topics.size());

  // Topics gone or replaced on the source first: a name deleted and created again between two
  // rounds is the old topic failed, never a new one added over it.
  const std::vector<SinkTopic> synced = synced_topics();
  // Two misses in a row count: a topic paused or failed over in between starts again.
  std::erase_if(missing_once_, [&](const std::string& name) {
    return std::none_of(synced.begin(), synced.end(),
                        [&](const SinkTopic& t) { return t.name == name; });
  });
  for (const SinkTopic& t : synced) {
    const Status gone = source_topic_gone(t, source);
    if (gone.ok()) continue;
    Status s = co_await ctx_.destination.fail_topic(mirror_, t.name, gone);
    if (s.ok()) {
      ++round.changed;
    } else {
      note(round.status,
           Status(s.code(), fmt::format("cannot fail topic {}: {}", t.name, s.message())));
    }
  }

  std::vector<std::string> added = new_source_topics(source);
  if (!added.empty()) {
    const std::vector<Status> outcomes = co_await ctx_.destination.add_topics(mirror_, added);
    for (size_t i = 0; i < added.size() && i < outcomes.size(); ++i) {
      if (outcomes[i].ok()) {
        ++round.changed;
      } else {
        note(round.status,
             Status(outcomes[i].code(),
                    fmt::format("cannot add topic {}: {}", added[i], outcomes[i].message())));
      }
    }
  }
  co_return round;
}

std::vector<std::string> MirrorSync::new_source_topics(
    const client::ClusterMetadata& source) const {
  const std::vector<std::regex> patterns = compile(ctx_.destination.topic_patterns(mirror_));
  if (patterns.empty()) return {};
  const NameFilter filter{PatternList(settings_.topics_include),
                          PatternList(settings_.topics_exclude)};
  std::set<std::string> mine;
  for (const SinkTopic& t : ctx_.sink.topics(mirror_)) mine.insert(t.name);
  std::vector<std::string> out;
  for (const client::TopicInfo& t : source.topics) {
    if (t.error != ErrorCode::NONE || internal_topic(t) || mine.count(t.name) != 0) continue;
    const bool matched = std::any_of(patterns.begin(), patterns.end(), [&](const std::regex& re) {
      return std::regex_match(t.name, re);
    });
    // A topic of that name here (an ordinary one, another mirror's) is left alone: adding it
    // would be refused every round.
    if (matched && filter.takes(t.name) && !ctx_.destination.has_topic(t.name)) {
      out.push_back(t.name);
    }
  }
  return out;
}

Status MirrorSync::source_topic_gone(const SinkTopic& t, const client::ClusterMetadata& source) {
  if (failed_for_good(t)) {
    missing_once_.erase(t.name);
    return Status::OK();  // failed already: said once
  }
  const client::TopicInfo* s = source.topic(t.name);
  if (s == nullptr || s->error == ErrorCode::UNKNOWN_TOPIC_OR_PARTITION) {
    if (missing_once_.insert(t.name).second) return Status::OK();  // the first miss
    missing_once_.erase(t.name);
    return Status(ErrorCode::UNKNOWN_TOPIC_ID,
                  fmt::format("topic {} was deleted on the source", t.name));
  }
  missing_once_.erase(t.name);  // back (or never gone): a single miss is forgotten
  // A source without topic ids (before Kafka 2.8) cannot tell a recreated topic.
  if (!s->id.is_zero() && s->id != t.id) {
    return Status(ErrorCode::INCONSISTENT_TOPIC_ID,
                  fmt::format("topic {} was deleted and recreated on the source (id {}, was {})",
                              t.name, s->id.to_string(), t.id.to_string()));
  }
  return Status::OK();
}

bool MirrorSync::failed_for_good(const SinkTopic& t) const {
  if (t.partitions.empty()) return false;
  return std::all_of(t.partitions.begin(), t.partitions.end(), [&](int32_t p) {
    const MirrorStateValue* v = ctx_.sink.state({t.id, p});
    if (v == nullptr || static_cast<MirrorState>(v->state) != MirrorState::failed) return false;
    const ErrorCode cause = error_from_number(v->last_error_code);
    return cause == ErrorCode::UNKNOWN_TOPIC_ID || cause == ErrorCode::INCONSISTENT_TOPIC_ID;
  });
}

}  // namespace mirra::mirror
