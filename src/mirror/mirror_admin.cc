#include "mirror/mirror_admin.h"

#include <fmt/format.h>

#include "base/log.h"
#include "cluster/topic_config.h"
#include "mirror/mirror_secrets.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

using Records = std::vector<metadata::MetadataRecord>;

}  // namespace

std::vector<const metadata::TopicInfo*> mirror_topics(const metadata::MetadataImage& image,
                                                      std::string_view name) {
  std::vector<const metadata::TopicInfo*> out;
  for (const auto& [topic, info] : image.topics()) {
    auto it = info.configs.find(std::string(cluster::kMirrorNameConfig));
    if (it != info.configs.end() && it->second == name) out.push_back(&info);
  }
  return out;
}

std::optional<std::string> recorded_source_cluster_id(
    const MirrorStateStore& states, const std::vector<const metadata::TopicInfo*>& topics) {
  for (const metadata::TopicInfo* t : topics) {
    const MirrorStateValue* v = states.get({t->id, 0});
    if (v != nullptr && !v->source_cluster_id.empty()) return v->source_cluster_id;
  }
  return std::nullopt;
}

std::string_view mirror_state_name(int8_t state) {
  static constexpr std::string_view names[] = {"PREPARING", "MIRRORING", "PAUSED",      "STOPPING",
                                               "STOPPED",   "FAILED",    "NOT_MIRRORED"};
  return state >= 0 && state <= kNotMirroredState ? names[state] : "-";
}

int8_t topic_state(const std::vector<const MirrorStateValue*>& partitions) {
  for (const MirrorStateValue* v : partitions) {
    if (v == nullptr) return static_cast<int8_t>(MirrorState::preparing);
    if (static_cast<MirrorState>(v->state) != MirrorState::stopped) return v->state;
  }
  return static_cast<int8_t>(MirrorState::stopped);
}

int8_t topic_state(const MirrorStateStore& states, const metadata::TopicInfo& topic) {
  std::vector<const MirrorStateValue*> partitions;
  for (const metadata::PartitionInfo& p : topic.partitions) {
    partitions.push_back(states.get({topic.id, p.partition}));
  }
  return topic_state(partitions);
}

Status check_writable(const metadata::MetadataImage& image, const MirrorStateStore* states,
                      std::string_view topic, int32_t partition) {
  const metadata::TopicInfo* t = image.topic(topic);
  if (t == nullptr) return Status::OK();
  auto it = t->configs.find(std::string(cluster::kMirrorNameConfig));
  if (it == t->configs.end()) return Status::OK();
  auto stopped = [&](int32_t p) {
    const MirrorStateValue* v = states == nullptr ? nullptr : states->get({t->id, p});
    return v != nullptr && static_cast<MirrorState>(v->state) == MirrorState::stopped;
  };
  bool writable = true;
  if (partition >= 0) {
    writable = stopped(partition);
  } else {
    for (const metadata::PartitionInfo& p : t->partitions)
      writable = writable && stopped(p.partition);
  }
  if (writable) return Status::OK();
  return Status(ErrorCode::READ_ONLY_TOPIC,
                fmt::format("topic {} is read-only: it is mirrored by mirror {}; fail it over "
                            "(mirra mirror --remove --mirror {} --topic {}) to write to it",
                            topic, it->second, it->second, topic));
}

asio::awaitable<Status> MirrorAdmin::create(
    const std::string& name,
    const std::vector<std::pair<std::string, std::optional<std::string>>>& configs,
    bool validate_only) {
  MIRRA_ASSERT_OWNER(owner_);
  if (Status s = validate_mirror_name(name); !s.ok()) co_return s;
  auto valid = validate_mirror_configs(configs);
  if (!valid.ok()) co_return valid.status();
  auto sealed = seal_mirror_secrets(valid.value(), encoder_);
  if (!sealed.ok()) co_return sealed.status();
  auto build = [&](const metadata::MetadataImage& image) -> Result<Records> {
    if (image.mirror(name) != nullptr) {
      return Status(ErrorCode::MIRROR_ALREADY_EXISTS,
                    fmt::format("mirror '{}' already exists", name));
    }
    if (validate_only) return Records{};
    return Records{metadata::MirrorRecord{name, {sealed->begin(), sealed->end()}}};
  };
  Status s = co_await store_.change(build);
  if (s.ok() && !validate_only) {
    MIRRA_LOG_INFO("created mirror {} ({})", name, describe_for_log(valid.value()));
    changed();  // its runner starts
  }
  co_return s;
}

asio::awaitable<Status> MirrorAdmin::alter_configs(
    const std::string& name, const std::map<std::string, std::optional<std::string>>& changes,
    bool validate_only) {
  MIRRA_ASSERT_OWNER(owner_);
  MirrorConfigs next;
  auto build = [&](const metadata::MetadataImage& image) -> Result<Records> {
    const metadata::MirrorInfo* m = image.mirror(name);
    if (m == nullptr) {
      return Status(ErrorCode::UNKNOWN_MIRROR, fmt::format("mirror '{}' does not exist", name));
    }
    // The secrets being replaced or removed need not decrypt: that is how a mirror stored
    // under another password.encoder.secret is repaired.
    std::set<std::string> replaced;
    for (const auto& change : changes) replaced.insert(change.first);
    auto current = open_mirror_secrets(m->configs, encoder_, replaced);
    if (!current.ok()) return current.status();
    auto altered = altered_mirror_configs(current.value(), changes);
    if (!altered.ok()) return altered.status();
    next = std::move(altered.value());
    auto sealed = seal_mirror_secrets(next, encoder_);
    if (!sealed.ok()) return sealed.status();
    if (validate_only) return Records{};
    // The remembered topic patterns are not configs: they stay (§8).
    return Records{
        metadata::MirrorRecord{name, {sealed->begin(), sealed->end()}, m->topic_patterns}};
  };
  Status s = co_await store_.change(build);
  if (s.ok() && !validate_only) {
    MIRRA_LOG_INFO("mirror {}: configs altered, now {}", name, describe_for_log(next));
    changed();  // its runner reconnects with them
  }
  co_return s;
}

asio::awaitable<Status> MirrorAdmin::remove(const std::string& name,
                                            const MirrorStateStore& states) {
  MIRRA_ASSERT_OWNER(owner_);
  auto build = [&](const metadata::MetadataImage& image) -> Result<Records> {
    if (image.mirror(name) == nullptr) {
      return Status(ErrorCode::UNKNOWN_MIRROR, fmt::format("mirror '{}' does not exist", name));
    }
    Records out;
    for (const metadata::TopicInfo* t : mirror_topics(image, name)) {
      const int8_t state = topic_state(states, *t);
      if (static_cast<MirrorState>(state) != MirrorState::stopped) {
        return Status(ErrorCode::MIRROR_NOT_EMPTY,
                      fmt::format("mirror '{}' still mirrors topic {} (state {}); fail it over "
                                  "first (mirra mirror --remove --mirror {} --topic {})",
                                  name, t->name, mirror_state_name(state), name, t->name));
      }
      // A STOPPED topic becomes an ordinary one. Its state (the LMO) stays in __mirror_state
      // for a later failback from the other side (LastMirroredOffsets).
      out.push_back(metadata::ConfigRecord{2, t->name, std::string(cluster::kMirrorNameConfig),
                                           std::nullopt});
    }
    out.push_back(metadata::RemoveMirrorRecord{name});
    return out;
  };
  Status s = co_await store_.change(build);
  if (s.ok()) {
    MIRRA_LOG_INFO("deleted mirror {}", name);
    changed();  // its runner stops
  }
  co_return s;
}

void MirrorAdmin::changed() const {
  if (on_change_) on_change_();
}

}  // namespace mirra::mirror
