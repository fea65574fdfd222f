// MirrorManager's PauseMirrorTopics and ResumeMirrorTopics (docs/mirroring-design.md §3, §7):
// PAUSED partitions are not fetched and stay read-only; resume continues from the local log end. A
// FAILED partition is recovered by a resume: back to its previous state, retries from zero.
#include <fmt/format.h>

#include "base/log.h"
#include "mirror/mirror_manager.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

MirrorState state_of(const MirrorStateStore& states, const MirrorStateKey& key) {
  const MirrorStateValue* v = states.get(key);
  return v == nullptr ? MirrorState::preparing : static_cast<MirrorState>(v->state);
}

// Why a partition in `state` cannot be paused (OK if it can or already is).
Status pause_refusal(const std::string& topic, MirrorState state) {
  switch (state) {
    case MirrorState::stopping:
      return Status(ErrorCode::MIRROR_TOPIC_BEING_STOPPED,
                    fmt::format("topic {} is being failed over", topic));
    case MirrorState::stopped:
      return Status(ErrorCode::INVALID_MIRROR_STATE,
                    fmt::format("topic {} was failed over (STOPPED); add it to the mirror again "
                                "to restart mirroring",
                                topic));
    case MirrorState::failed:
      return Status(ErrorCode::INVALID_MIRROR_STATE,
                    fmt::format("topic {} has FAILED partitions; --resume recovers them", topic));
    default:
      return Status::OK();
  }
}

// The state a resumed partition returns to: the one it had before PAUSED or FAILED.
MirrorState resumed_state(const MirrorStateValue& v) {
  const auto previous = static_cast<MirrorState>(v.previous_state);
  return previous == MirrorState::preparing ? MirrorState::preparing : MirrorState::mirroring;
}

}  // namespace

asio::awaitable<Result<std::vector<MirrorTopicOutcome>>> MirrorManager::for_each_topic(
    const std::string& mirror, const std::vector<std::string>& names,
    const std::vector<std::string>& patterns, TopicAction action) {
  MIRRA_ASSERT_OWNER(owner_);
  auto selection = select_topics(mirror, names, patterns);
  if (!selection.ok()) co_return selection.status();
  std::vector<MirrorTopicOutcome> out = std::move(selection->refused);
  for (const std::string& name : selection->chosen) {
    const metadata::TopicInfo* t = store_.image().topic(name);
    if (t == nullptr) continue;
    const metadata::TopicInfo topic = *t;  // the image may change while states are written
    // Named, not inside a braced list: g++ 12 miscompiles co_await there.
    Status s = co_await (this->*action)(topic);
    out.push_back({name, topic.id, std::move(s)});
  }
  if (auto it = runners_.find(mirror); it != runners_.end()) it->second->wake();
  co_return out;
}

asio::awaitable<Result<std::vector<MirrorTopicOutcome>>> MirrorManager::pause(
    const std::string& mirror, const std::vector<std::string>& names,
    const std::vector<std::string>& patterns) {
  return for_each_topic(mirror, names, patterns, &MirrorManager::pause_topic);
}

asio::awaitable<Result<std::vector<MirrorTopicOutcome>>> MirrorManager::resume(
    const std::string& mirror, const std::vector<std::string>& names,
    const std::vector<std::string>& patterns) {
  return for_each_topic(mirror, names, patterns, &MirrorManager::resume_topic);
}

asio::awaitable<Status> MirrorManager::pause_topic(const metadata::TopicInfo& topic) {
  bool all_paused = true;
  for (const metadata::PartitionInfo& p : topic.partitions) {
    const MirrorState state = state_of(states_, {topic.id, p.partition});
    if (Status s = pause_refusal(topic.name, state); !s.ok()) co_return s;
    all_paused = all_paused && state == MirrorState::paused;
  }
  if (all_paused) {
    co_return Status(ErrorCode::MIRROR_TOPIC_ALREADY_PAUSED,
                     fmt::format("topic {} is paused already", topic.name));
  }
  const std::string mirror = topic.configs.at(std::string(cluster::kMirrorNameConfig));
  for (const metadata::PartitionInfo& p : topic.partitions) {
    const MirrorStateKey key{topic.id, p.partition};
    if (state_of(states_, key) == MirrorState::paused) continue;
    if (Status s = co_await write_state(key, mirror, MirrorState::paused); !s.ok()) co_return s;
  }
  MIRRA_LOG_INFO("mirror {}: paused topic {}", mirror, topic.name);
  co_return Status::OK();
}

asio::awaitable<Status> MirrorManager::resume_topic(const metadata::TopicInfo& topic) {
  bool any = false;
  for (const metadata::PartitionInfo& p : topic.partitions) {
    const MirrorState state = state_of(states_, {topic.id, p.partition});
    if (state == MirrorState::stopping) co_return pause_refusal(topic.name, state);
    any = any || state == MirrorState::paused || state == MirrorState::failed;
  }
  if (!any) {
    co_return Status(ErrorCode::MIRROR_TOPIC_NOT_PAUSED,
                     fmt::format("topic {} is neither paused nor failed", topic.name));
  }
  const std::string mirror = topic.configs.at(std::string(cluster::kMirrorNameConfig));
  for (const metadata::PartitionInfo& p : topic.partitions) {
    const MirrorStateKey key{topic.id, p.partition};
    const MirrorStateValue* v = states_.get(key);
    if (v == nullptr) continue;
    const auto state = static_cast<MirrorState>(v->state);
    if (state != MirrorState::paused && state != MirrorState::failed) continue;
    MirrorStateValue next = *v;
    next.previous_state = v->state;
    next.state = static_cast<int8_t>(resumed_state(*v));
    next.retries = 0;
    next.last_error_code = 0;
    next.last_error.reset();
    if (Status s = co_await states_.put(key, std::move(next), v->state_epoch); !s.ok()) {
      co_return s;
    }
    if (auto r = runners_.find(mirror); r != runners_.end()) {
      r->second->reset({topic.name, p.partition});
    }
  }
  MIRRA_LOG_INFO("mirror {}: resumed topic {}", mirror, topic.name);
  co_return Status::OK();
}

}  // namespace mirra::mirror
