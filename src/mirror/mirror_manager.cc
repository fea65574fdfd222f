#include "mirror/mirror_manager.h"

#include <algorithm>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "base/failpoint.h"
#include "base/log.h"
#include "cluster/topic_config.h"
#include "mirror/mirror_admin.h"
#include "mirror/mirror_filters.h"
#include "mirror/mirror_secrets.h"

namespace mirra::mirror {
namespace {

constexpr const char* kMirraLogComponent = "mirror";

// The --topic patterns of Add/RemoveTopicsFromMirror; INVALID_REQUEST names a bad one.
Result<std::vector<std::regex>> compile_patterns(const std::vector<std::string>& patterns) {
  std::vector<std::regex> out;
  for (const std::string& p : patterns) {
    try {
      out.emplace_back(p);
    } catch (const std::regex_error& e) {
      return Status(ErrorCode::INVALID_REQUEST,
                    fmt::format("'{}' is not a regular expression ({})", p, e.what()));
    }
  }
  return out;
}

// A partition's state after a change to `state` (the previous one remembered), from its stored
// one (`old`, null for none): what MirrorManager::write_state() and a topic's first states write.
MirrorStateValue changed_state(const MirrorStateValue* old, const std::string& mirror,
                               MirrorState state, int64_t lmo, const std::string& source_cluster_id,
                               const Status& cause) {
  MirrorStateValue v;
  if (old != nullptr) v = *old;
  v.mirror = mirror;
  if (!source_cluster_id.empty()) v.source_cluster_id = source_cluster_id;
  if (v.state != static_cast<int8_t>(state)) v.previous_state = v.state;
  v.state = static_cast<int8_t>(state);
  if (lmo >= 0) v.last_mirrored_offset = lmo;
  if (!cause.ok()) {
    v.retries = std::max(v.retries, 1);
    v.last_error_code = error_number(cause.code());
    v.last_error = cause.message();
  }
  return v;
}

bool matches_one(const std::vector<std::regex>& regexes, const std::string& name) {
  return std::any_of(regexes.begin(), regexes.end(),
                     [&](const std::regex& re) { return std::regex_match(name, re); });
}

bool in_mirror(const metadata::TopicInfo& t, const std::string& mirror) {
  auto m = t.configs.find(std::string(cluster::kMirrorNameConfig));
  return m != t.configs.end() && m->second == mirror;
}

}  // namespace

MirrorManager::MirrorManager(asio::any_io_executor core, cluster::MetadataStore& store,
                             cluster::PartitionManager& partitions, cluster::TopicAdmin& topics,
                             int32_t node_id, MirrorBrokerConfig config)
    : core_(core),
      store_(store),
      partitions_(partitions),
      topics_(topics),
      node_id_(node_id),
      config_(config),
      state_topic_(store, partitions, topics, state_topic_spec(config.state_topic_partitions)),
      states_(state_topic_),
      writer_(partitions.take_mirror_writer()),
      sink_(store, partitions, writer_, topics, states_),
      sync_destination_(*this, store, partitions, topics, config.authorizer),
      throttle_([this] { return throttled_rate_in_force(); }) {
  partitions.set_read_only_check(
      [this](const cluster::Partition& p) { return check_writable(p.topic, p.index); });
}

// This node's dynamic value, else the cluster-wide one, else server.properties' (Kafka's order
// for dynamic broker configs). Values are checked when they are set.
int64_t MirrorManager::throttled_rate_in_force() const {
  const metadata::MetadataImage& image = store_.image();
  const std::string key(kMirrorThrottledRateKey);
  const std::string* value = nullptr;
  if (auto node = image.node_configs().find(std::to_string(node_id_));
      node != image.node_configs().end()) {
    if (auto it = node->second.find(key); it != node->second.end()) value = &it->second;
  }
  if (value == nullptr) {
    if (auto it = image.broker_configs().find(key); it != image.broker_configs().end())
      value = &it->second;
  }
  if (value == nullptr) return config_.replication_throttled_rate;
  auto rate = parse_throttled_rate(*value);
  return rate.ok() ? rate.value() : config_.replication_throttled_rate;
}

Status MirrorManager::check_writable(std::string_view topic, int32_t partition) const {
  MIRRA_ASSERT_OWNER(owner_);
  if (restarting_topics_.count(topic) != 0) {
    return Status(
        ErrorCode::READ_ONLY_TOPIC,
        fmt::format("topic {} is read-only: it is being restarted as a mirror topic", topic));
  }
  return mirror::check_writable(store_.image(), &states_, topic, partition);
}

std::optional<AddedTopic> existing_topic_outcome(const std::string& mirror,
                                                 const client::TopicInfo& source,
                                                 const metadata::TopicInfo& existing,
                                                 int8_t state) {
  AddedTopic out{source.name, existing.id, Status::OK()};
  auto m = existing.configs.find(std::string(cluster::kMirrorNameConfig));
  const bool ours = m != existing.configs.end() && m->second == mirror;
  if (m != existing.configs.end() && !ours) {
    out.status = Status(ErrorCode::TOPIC_ALREADY_IN_MIRROR,
                        fmt::format("topic {} belongs to mirror {}", source.name, m->second));
    return out;
  }
  // A source without topic ids (before Kafka 2.8) is matched by name (§1).
  const bool other_id = !source.id.is_zero() && existing.id != source.id;
  if (ours && other_id) {
    out.status = Status(
        ErrorCode::INCONSISTENT_TOPIC_ID,
        fmt::format("the source topic {} was recreated: its id is now {}, but mirror {} copies "
                    "the topic with id {}, a different topic. To mirror the new one, fail this "
                    "one over (mirra mirror --remove --mirror {} --topic {}), delete it, then "
                    "add the topic again",
                    source.name, source.id.to_string(), mirror, existing.id.to_string(), mirror,
                    source.name));
    return out;
  }
  if (ours && state != static_cast<int8_t>(MirrorState::stopped)) {
    return out;  // already mirrored by this mirror: nothing to do
  }
  if (!ours && (source.id.is_zero() || other_id)) {
    out.status = Status(ErrorCode::TOPIC_ALREADY_EXISTS,
                        fmt::format("topic {} exists here with another topic id ({}, the "
                                    "source's is {})",
                                    source.name, existing.id.to_string(), source.id.to_string()));
    return out;
  }
  return std::nullopt;  // the same topic seen from the other side (§6): restart it
}

cluster::InternalTopicSpec state_topic_spec(int32_t partitions) {
  cluster::InternalTopicSpec spec;
  spec.name = "__mirror_state";
  spec.partitions = partitions;
  spec.configs = {{"cleanup.policy", "compact"}, {"compression.type", "uncompressed"}};
  return spec;
}

asio::awaitable<Status> MirrorManager::start() {
  MIRRA_ASSERT_OWNER(owner_);
  if (Status s = co_await states_.load(); !s.ok()) co_return s;
  // A failover that a crash interrupted is finished before anything fetches (§3).
  const auto states = states_.all();  // a copy: stopping changes the map
  for (const auto& [key, v] : states) {
    if (static_cast<MirrorState>(v.state) != MirrorState::stopping) continue;
    const metadata::TopicInfo* t = store_.image().topic(key.topic_id);
    if (t == nullptr) continue;
    const std::string topic = t->name;
    auto lmo = co_await stop_partition(v.mirror, *t, key.partition);
    if (!lmo.ok()) {
      MIRRA_LOG_ERROR("mirror {}: cannot finish the failover of {}-{}: {}", v.mirror, topic,
                      key.partition, lmo.status().to_string());
    }
  }
  started_ = true;
  sync();
  co_return Status::OK();
}

asio::awaitable<Status> MirrorManager::write_state(const MirrorStateKey& key,
                                                   const std::string& mirror, MirrorState state,
                                                   int64_t lmo,
                                                   const std::string& source_cluster_id,
                                                   const Status& cause) {
  MIRRA_ASSERT_OWNER(owner_);
  MIRRA_ASSERT(cause.ok() || state == MirrorState::failed, "a cause is only recorded with FAILED");
  MirrorStateValue v =
      changed_state(states_.get(key), mirror, state, lmo, source_cluster_id, cause);
  co_return co_await states_.put(key, std::move(v), states_.epoch_of(key));
}

asio::awaitable<Result<PartitionStop>> MirrorManager::stop_partition(
    const std::string& mirror, const metadata::TopicInfo& topic, int32_t partition) {
  const MirrorStateKey key{topic.id, partition};
  const MirrorStateValue* v = states_.get(key);
  if (v != nullptr && static_cast<MirrorState>(v->state) == MirrorState::stopped) {
    co_return PartitionStop{partition, v->last_mirrored_offset, 0};  // already failed over
  }
  // 1-2: STOPPING is durable, and the runner appends nothing for a STOPPING partition.
  if (v == nullptr || static_cast<MirrorState>(v->state) != MirrorState::stopping) {
    if (Status s = co_await write_state(key, mirror, MirrorState::stopping); !s.ok()) co_return s;
  }
  // Tests: a crash between the steps; start-up must finish the failover.
  if (Status s = failpoint("mirror.failover.stopping"); !s.ok()) co_return s;
  auto handle = partitions_.find(topic.name, partition);
  if (handle == nullptr) {
    co_return Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                     fmt::format("{}-{} is not open", topic.name, partition));
  }
  // 3: whatever lies above the LSO belongs to transactions whose end never arrived.
  auto stop = co_await partitions_.run_write(
      handle, writer_, [partition](storage::PartitionLog& log) -> Result<PartitionStop> {
        const int64_t end = log.log_end_offset();
        const int64_t lso = log.last_stable_offset();
        if (Status s = log.truncate_to(lso); !s.ok()) return s;
        return PartitionStop{partition, lso, end - lso};
      });
  if (!stop.ok()) co_return stop.status();
  handle->wake_waiters();
  if (Status s = failpoint("mirror.failover.truncated"); !s.ok()) co_return s;
  // 4-5: the LMO, and the partition is writable.
  const int64_t lmo = stop->last_mirrored_offset;
  if (Status s = co_await write_state(key, mirror, MirrorState::stopped, lmo); !s.ok()) {
    co_return s;
  }
  MIRRA_LOG_INFO(
      "mirror {}: failed over {}-{}: truncated to its LSO {}, the LMO ({} offset(s) above it "
      "discarded)",
      mirror, topic.name, partition, lmo, stop->discarded);
  co_return stop.value();
}

asio::awaitable<Result<std::vector<StoppedTopic>>> MirrorManager::failover(
    const std::string& mirror, const std::vector<std::string>& names,
    const std::vector<std::string>& patterns) {
  MIRRA_ASSERT_OWNER(owner_);
  if (!started_) {
    co_return Status(ErrorCode::INVALID_REQUEST, "mirroring does not run in this broker");
  }
  auto selection = select_topics(mirror, names, patterns);
  if (!selection.ok()) co_return selection.status();
  std::vector<StoppedTopic> out;
  for (MirrorTopicOutcome& r : selection->refused) {
    out.push_back({std::move(r.name), r.id, std::move(r.status), {}});
  }
  for (const std::string& name : selection->chosen) {
    const metadata::TopicInfo* t = store_.image().topic(name);
    if (t == nullptr) continue;
    StoppedTopic& r = out.emplace_back(StoppedTopic{name, t->id, Status::OK(), {}});
    const metadata::TopicInfo topic = *t;  // the image may change while partitions stop
    for (const metadata::PartitionInfo& p : topic.partitions) {
      auto stop = co_await stop_partition(mirror, topic, p.partition);
      if (!stop.ok()) {
        r.status = stop.status();
        break;
      }
      r.partitions.push_back(stop.value());
    }
  }
  co_return out;
}

Result<MirrorManager::TopicSelection> MirrorManager::select_topics(
    const std::string& mirror, const std::vector<std::string>& names,
    const std::vector<std::string>& patterns) const {
  if (store_.image().mirror(mirror) == nullptr) {
    return Status(ErrorCode::UNKNOWN_MIRROR, fmt::format("mirror '{}' does not exist", mirror));
  }
  auto regexes = compile_patterns(patterns);
  if (!regexes.ok()) return regexes.status();
  TopicSelection out;
  for (const std::string& name : names) {
    const metadata::TopicInfo* t = store_.image().topic(name);
    if (t == nullptr || !in_mirror(*t, mirror)) {
      out.refused.push_back({name, t == nullptr ? Uuid::zero() : t->id,
                             Status(ErrorCode::TOPIC_NOT_IN_MIRROR,
                                    fmt::format("topic {} is not in mirror {}", name, mirror))});
    } else {
      out.chosen.push_back(name);
    }
  }
  for (const metadata::TopicInfo* t : mirror_topics(store_.image(), mirror)) {
    const bool named = std::find(out.chosen.begin(), out.chosen.end(), t->name) != out.chosen.end();
    if (matches_one(regexes.value(), t->name) && !named) out.chosen.push_back(t->name);
  }
  return out;
}

void MirrorManager::sync() {
  MIRRA_ASSERT_OWNER(owner_);
  if (!started_ || stopped_) return;
  const auto& mirrors = store_.image().mirrors();
  for (auto it = runners_.begin(); it != runners_.end();) {
    auto m = mirrors.find(it->first);
    if (m == mirrors.end()) {
      it->second->stop();
      stop_sync(it->first);
      stored_configs_.erase(it->first);
      it = runners_.erase(it);
    } else if (m->second.configs != stored_configs_[it->first]) {
      MIRRA_LOG_INFO("mirror {}: configs changed; reconnecting with them", it->first);
      it->second->stop();
      restarting_.emplace(it->first, it->second);
      asio::co_spawn(core_, restart_when_stopped(it->first, it->second, stop_sync(it->first)),
                     asio::detached);
      it = runners_.erase(it);
    } else {
      ++it;
    }
  }
  std::erase_if(not_started_, [&](const auto& entry) { return !mirrors.count(entry.first); });
  for (const auto& [name, m] : mirrors) {
    if (runners_.count(name) || restarting_.count(name)) continue;
    const MirrorRunnerContext ctx{core_, sink_, config_, node_id_, {}, {}, &throttle_};
    // A secret that does not decrypt (another password.encoder.secret) fails the mirror the
    // way configs that cannot start do: FAILED partitions, the reason in describe.
    auto plain = open_mirror_secrets(m.configs, encoder_);
    auto runner = plain.ok() ? MirrorRunner::create(ctx, name, std::move(plain.value()))
                             : Result<std::shared_ptr<MirrorRunner>>(plain.status());
    if (!runner.ok()) {
      const Status why(runner.status().code(),
                       fmt::format("mirror {} is not running: {}; change its configs "
                                   "(IncrementalAlterConfigs on the mirror) to start it",
                                   name, runner.status().message()));
      MIRRA_LOG_ERROR("{}", why.message());
      not_started_.insert_or_assign(name, why);
      asio::co_spawn(core_, fail_unstartable(name, why), asio::detached);
      continue;
    }
    not_started_.erase(name);
    runner.value()->start();
    start_sync(name, *runner.value());
    runners_.emplace(name, std::move(runner.value()));
    stored_configs_.insert_or_assign(name, m.configs);
  }
}

asio::awaitable<void> MirrorManager::fail_unstartable(std::string mirror, Status why) {
  MIRRA_ASSERT_OWNER(owner_);
  std::vector<MirrorStateKey> keys;  // the image may change while the states are written
  for (const metadata::TopicInfo* t : mirror_topics(store_.image(), mirror)) {
    for (const metadata::PartitionInfo& p : t->partitions) keys.push_back({t->id, p.partition});
  }
  for (const MirrorStateKey& key : keys) {
    const MirrorStateValue* v = states_.get(key);
    const MirrorState state = v == nullptr ? MirrorState::preparing
                                           : static_cast<MirrorState>(v->state);
    const bool fetched = state == MirrorState::preparing || state == MirrorState::mirroring ||
                         state == MirrorState::failed;
    if (!fetched || (v != nullptr && v->last_error == why.message())) continue;
    Status s = co_await write_state(key, mirror, MirrorState::failed, -1, "", why);
    if (!s.ok()) {
      MIRRA_LOG_WARN("mirror {}: cannot record a partition as FAILED: {}", mirror, s.to_string());
    }
  }
}

asio::awaitable<void> MirrorManager::restart_when_stopped(std::string name,
                                                          std::shared_ptr<MirrorRunner> old,
                                                          std::shared_ptr<MirrorSync> old_sync) {
  co_await old->stopped();
  if (old_sync != nullptr) co_await old_sync->stopped();
  restarting_.erase(name);
  sync();
}

asio::awaitable<void> MirrorManager::stop() {
  MIRRA_ASSERT_OWNER(owner_);
  stopped_ = true;
  for (auto& [name, r] : runners_) r->stop();
  auto syncs = std::move(syncs_);
  for (auto& [name, s] : syncs) s->stop();
  for (auto& [name, r] : runners_) co_await r->stopped();
  for (auto& [name, s] : syncs) co_await s->stopped();
  runners_.clear();
  auto restarting = restarting_;  // restart_when_stopped() erases from it meanwhile
  for (auto& [name, r] : restarting) co_await r->stopped();
}

void MirrorManager::start_sync(const std::string& name, const MirrorRunner& runner) {
  auto client =
      ClientMirrorSource(core_, runner.settings().bootstrap_servers, runner.settings().security)
          .admin_client(sync_client_id(name, node_id_));
  if (!client.ok()) {  // the runner's own clients were made from the same settings
    MIRRA_LOG_ERROR("mirror {}: no sync tasks: {}", name, client.status().message());
    return;
  }
  const MirrorSyncContext ctx{core_,
                              sink_,
                              sync_destination_,
                              std::chrono::milliseconds(config_.metadata_refresh_interval_ms),
                              {},
                              {}};
  auto sync = std::make_shared<MirrorSync>(
      ctx, name, runner.settings(), std::make_unique<ClientSyncSource>(std::move(client.value())));
  sync->start();
  syncs_.insert_or_assign(name, std::move(sync));
}

std::shared_ptr<MirrorSync> MirrorManager::stop_sync(const std::string& name) {
  auto it = syncs_.find(name);
  if (it == syncs_.end()) return nullptr;
  std::shared_ptr<MirrorSync> sync = std::move(it->second);
  syncs_.erase(it);
  sync->stop();
  return sync;
}

const MirrorSync* MirrorManager::sync_of(const std::string& mirror) const {
  auto it = syncs_.find(mirror);
  return it == syncs_.end() ? nullptr : it->second.get();
}

const MirrorRunner* MirrorManager::runner(const std::string& mirror) const {
  auto it = runners_.find(mirror);
  return it == runners_.end() ? nullptr : it->second.get();
}

asio::awaitable<Result<std::vector<AddedTopic>>> MirrorManager::add_topics(
    const std::string& mirror, const std::vector<std::string>& names,
    const std::vector<std::string>& patterns) {
  MIRRA_ASSERT_OWNER(owner_);
  auto it = runners_.find(mirror);
  if (auto refused = not_started_.find(mirror);
      store_.image().mirror(mirror) != nullptr && refused != not_started_.end()) {
    co_return refused->second;
  }
  if (store_.image().mirror(mirror) == nullptr || it == runners_.end()) {
    co_return Status(ErrorCode::UNKNOWN_MIRROR, fmt::format("mirror '{}' does not exist", mirror));
  }
  std::shared_ptr<MirrorRunner> runner = it->second;
  auto regexes = compile_patterns(patterns);
  if (!regexes.ok()) co_return regexes.status();
  // Remembered first (§8): a pattern given is applied to topics created later too, even when
  // the rest of this add fails.
  if (!patterns.empty()) {
    if (Status s = co_await remember_topic_patterns(mirror, patterns); !s.ok()) co_return s;
  }
  auto md = co_await runner->source().metadata(std::nullopt);
  if (!md.ok()) {
    co_return Status(md.status().code(), fmt::format("cannot read the topics of mirror {}'s "
                                                     "source: {}",
                                                     mirror, md.status().message()));
  }
  auto cluster = co_await runner->source().describe_cluster();
  if (!cluster.ok()) co_return cluster.status();
  const std::string cluster_id = cluster->cluster_id;
  const std::string include = runner->settings().topics_include;
  const std::string exclude = runner->settings().topics_exclude;
  std::vector<AddedTopic> out;
  for (const std::string& name : names) {
    const client::TopicInfo* t = md->topic(name);
    if (t == nullptr || t->error != ErrorCode::NONE) {
      out.push_back({name, Uuid::zero(),
                     Status(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
                            fmt::format("topic {} does not exist on the source", name))});
    } else if (!matches_any(include, name) || matches_any(exclude, name)) {
      out.push_back(
          {name, t->id,
           Status(ErrorCode::INVALID_REQUEST, fmt::format("topic {} is excluded by mirror {}'s "
                                                          "mirror.topics.include/exclude",
                                                          name, mirror))});
    } else {
      out.push_back(co_await add_topic(*runner, *t, cluster_id));
    }
  }
  for (const client::TopicInfo& t : md->topics) {
    if (t.error != ErrorCode::NONE || !matches_any(include, t.name) ||
        matches_any(exclude, t.name)) {
      continue;
    }
    const bool named = std::find(names.begin(), names.end(), t.name) != names.end();
    if (matches_one(regexes.value(), t.name) && !named) {
      out.push_back(co_await add_topic(*runner, t, cluster_id));
    }
  }
  runner->wake();
  co_return out;
}

asio::awaitable<Result<std::map<std::string, std::string>>> MirrorManager::source_topic_configs(
    MirrorRunner& runner, const std::string& topic) {
  // Named, not a braced list inside co_await: g++ 12 miscompiles those.
  std::vector<client::ConfigResource> resources{
      client::ConfigResource{client::ConfigResourceType::topic, topic, {}}};
  auto described = co_await runner.source().describe_configs(std::move(resources));
  if (!described.ok() && described.status().code() == ErrorCode::UNSUPPORTED_VERSION) {
    // A source without admin APIs (librdkafka's mock cluster) still has data worth mirroring:
    // the topic gets this broker's defaults.
    MIRRA_LOG_INFO(
        "mirror {}: topic {}: the source has no DescribeConfigs, so no topic configs "
        "are copied ({})",
        runner.name(), topic, described.status().message());
    co_return std::map<std::string, std::string>{};
  }
  if (!described.ok()) co_return described.status();
  if (described->empty()) co_return std::map<std::string, std::string>{};
  if (!described->front().status.ok()) co_return described->front().status;
  // A key this broker does not know (a newer source) or a value it refuses is left out.
  co_return copied_topic_configs(described->front().entries,
                                 PatternList(runner.settings().topic_properties_exclude),
                                 [&](const std::string& key, const std::string& why) {
                                   MIRRA_LOG_WARN("mirror {}: topic {}: not copying config {}: {}",
                                                  runner.name(), topic, key, why);
                                 });
}

asio::awaitable<AddedTopic> MirrorManager::add_topic(MirrorRunner& runner,
                                                     const client::TopicInfo& source,
                                                     const std::string& source_cluster_id) {
  const metadata::TopicInfo* existing = store_.image().topic(source.name);
  if (existing == nullptr)
    co_return co_await create_mirror_topic(runner, source, source_cluster_id);
  if (auto outcome = existing_topic_outcome(runner.name(), source, *existing,
                                            topic_state(states_, *existing))) {
    co_return *outcome;
  }
  // A restart after a failover, or a failback. A copy: the image changes while it restarts.
  const metadata::TopicInfo topic = *existing;
  co_return co_await restart_topic(runner, topic, source_cluster_id);
}

asio::awaitable<AddedTopic> MirrorManager::create_mirror_topic(
    MirrorRunner& runner, const client::TopicInfo& source, const std::string& source_cluster_id) {
  AddedTopic out{source.name, source.id, Status::OK()};
  auto configs = co_await source_topic_configs(runner, source.name);
  if (!configs.ok()) {
    out.status = configs.status();
    co_return out;
  }
  cluster::NewTopic topic;
  topic.name = source.name;
  topic.partitions = static_cast<int32_t>(source.partitions.size());
  topic.configs = std::move(configs.value());
  // A source without topic ids (Metadata before v10, librdkafka's mock) gets a fresh one; the
  // topic is then matched by name (docs/mirroring-design.md §4).
  if (!source.id.is_zero()) topic.id = source.id;
  topic.mirror_name = runner.name();
  auto created = co_await topics_.create_topic(std::move(topic), false);
  if (!created.ok()) {
    out.status = created.status();
    co_return out;
  }
  out.id = created.value();
  // Every partition's first state in one write (a topic's states share a partition of
  // __mirror_state): with 1,000 partitions, 1,000 writes in turn held up the --add.
  std::vector<MirrorStateStore::Put> firsts;
  for (size_t p = 0; p < source.partitions.size(); ++p) {
    const MirrorStateKey key{out.id, static_cast<int32_t>(p)};
    // The runner fetches a mirror topic as soon as it is in the image, so it may have
    // recorded a state first (FAILED, with its retry count): that state stays.
    const MirrorStateValue* first = states_.get(key);
    const MirrorState state = first != nullptr ? static_cast<MirrorState>(first->state)
                                               : MirrorState::preparing;
    firsts.push_back({key, changed_state(first, runner.name(), state, -1, source_cluster_id, {}),
                      states_.epoch_of(key)});
  }
  if (Status s = co_await states_.put_all(std::move(firsts)); !s.ok()) {
    out.status = s;
    co_return out;
  }
  MIRRA_LOG_INFO("mirror {}: added topic {} (id {}, {} partition(s))", runner.name(), source.name,
                 out.id.to_string(), source.partitions.size());
  co_return out;
}

}  // namespace mirra::mirror
