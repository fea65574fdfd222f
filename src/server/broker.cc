#include "server/broker.h"

#include <fmt/format.h>

#include <cstdlib>

#include "base/log.h"
#include "base/parse.h"
#include "groups/group_coordinator.h"
#include "groups/offsets_topic.h"
#include "metadata/meta_properties.h"
#include "server/handlers/authorize.h"
#include "server/mirror_group_hooks.h"
#include "server/scram_lookup.h"
#include "storage/file_cache.h"

namespace mirra::server {
namespace {

constexpr std::string_view kMirraLogComponent = "broker";

// A numeric setting given only as a string (keys Kafka has that ServerConfig does not model).
int64_t setting_or(const std::map<std::string, std::string>& settings, const std::string& key,
                   int64_t fallback) {
  auto it = settings.find(key);
  if (it == settings.end()) return fallback;
  return parse_decimal<int64_t>(it->second).value_or(fallback);
}

}  // namespace

asio::awaitable<Status> Broker::load_share_state() {
  auto loaded = co_await share_store_->load();
  if (!loaded.ok()) {
    co_return Status(loaded.status().code(), fmt::format("reading {}: {}", share::kShareStateTopic,
                                                         loaded.status().message()));
  }
  for (const auto& [key, snapshot] : loaded.value()) {
    auto partition = share::SharePartition::restore(snapshot);
    if (!partition.ok()) {
      co_return Status(ErrorCode::CORRUPT_MESSAGE,
                       fmt::format("{}: group {} partition {}: {}", share::kShareStateTopic,
                                   key.group_id, key.partition, partition.status().message()));
    }
    share_->restore(key, std::move(partition.value()));
  }
  for (const std::string& group : share_->group_ids()) groups_->restore_share_group(group);
  if (!loaded.value().empty()) {
    MIRRA_LOG_INFO("share state of {} share partition(s) loaded", loaded.value().size());
  }
  co_return Status::OK();
}

Broker::Broker(asio::io_context& io, const LoadedConfig& loaded) : io_(io), config_(loaded.config) {
  for (const auto& [key, entry] : loaded.set) static_settings_[key] = entry.first;
  state_.config = &config_;
  state_.log_dir = config_.log_dir;
  state_.static_settings = &static_settings_;
}

Broker::~Broker() = default;

asio::awaitable<Status> Broker::start(bool listen) {
  auto meta = metadata::load_or_create_meta_properties(config_.log_dir, config_.node_id);
  if (!meta.ok()) co_return meta.status();
  MIRRA_LOG_INFO("cluster id {}, node id {}", meta->cluster_id, meta->node_id);

  // Before any log is opened: every segment and index file goes through this cache.
  storage::FileCache::instance().set_capacity(config_.log_open_files_max > 0
                                                  ? static_cast<size_t>(config_.log_open_files_max)
                                                  : storage::FileCache::default_capacity());
  const size_t threads = static_cast<size_t>(std::max(1, config_.num_io_threads));
  shards_ = std::make_unique<cluster::ShardPool>(threads);
  auto store = cluster::LocalMetadataStore::open(config_.log_dir, meta->cluster_id, *shards_);
  if (!store.ok()) co_return store.status();
  metadata_ = std::move(store.value());

  cluster::PartitionManagerOptions pm;
  pm.log_dir = config_.log_dir;
  pm.broker =
      cluster::broker_config_sources(metadata_->image(), &static_settings_, config_.node_id);
  pm.retention_check_interval = std::chrono::milliseconds(
      setting_or(static_settings_, "log.retention.check.interval.ms", 300000));
  pm.checkpoint_interval = std::chrono::milliseconds(
      setting_or(static_settings_, "log.flush.offset.checkpoint.interval.ms", 60000));
  partitions_ = std::make_unique<cluster::PartitionManager>(io_.get_executor(), *shards_, pm);
  // The broker-wide topic defaults must make a valid storage config: a bad one is a bad
  // server.properties, reported before anything is served.
  if (auto defaults = partitions_->log_config_for({}); !defaults.ok()) co_return defaults.status();
  co_await partitions_->open_all(metadata_->image());

  topic_admin_ = std::make_unique<cluster::TopicAdmin>(
      *metadata_, *partitions_,
      cluster::TopicDefaults{config_.node_id, config_.num_partitions,
                             config_.default_replication_factor,
                             cluster::TopicDefaults::kMaxPartitionsPerTopic});
  // Before anything is produced: after an unclean stop the logs may have lost tails they had
  // served, and a new leader epoch is what lets a mirror tell (docs/mirroring-design.md §2.4).
  if (!partitions_->opened_after_clean_shutdown()) {
    auto bumped = co_await topic_admin_->bump_leader_epochs();
    if (!bumped.ok()) co_return bumped.status();
    if (bumped.value() > 0) {
      MIRRA_LOG_INFO("leader epochs of {} partition(s) bumped after an unclean shutdown",
                     bumped.value());
    }
  }
  fetch_sessions_ = std::make_unique<FetchSessionCache>(static_cast<size_t>(
      setting_or(static_settings_, "max.incremental.fetch.session.cache.slots", 1000)));
  state_.metadata = metadata_.get();
  // SASL SCRAM reads the users from the image as it is at each exchange (core thread).
  state_.scram_credential = [store = metadata_.get()](const std::string& user,
                                                      security::ScramMechanism m) {
    return scram_credential_of(store->image(), user, m);
  };
  state_.partitions = partitions_.get();
  state_.topic_admin = topic_admin_.get();
  if (!config_.password_encoder_secret.empty()) {
    auto encoder = security::PasswordEncoder::make(
        config_.password_encoder_secret, config_.password_encoder_iterations,
        config_.password_encoder_old_secret.empty()
            ? std::nullopt
            : std::optional<std::string>(config_.password_encoder_old_secret));
    if (!encoder.ok()) co_return encoder.status();
    password_encoder_.emplace(std::move(encoder.value()));
  }
  const security::PasswordEncoder* encoder = password_encoder_ ? &*password_encoder_ : nullptr;
  mirrors_ = std::make_unique<mirror::MirrorAdmin>(*metadata_, encoder);
  state_.mirrors = mirrors_.get();
  mirror_manager_ = std::make_unique<mirror::MirrorManager>(
      io_.get_executor(), *metadata_, *partitions_, *topic_admin_, config_.node_id, config_.mirror);
  mirror_manager_->set_password_encoder(encoder);
  state_.mirror_manager = mirror_manager_.get();
  // Every mirror created, altered or deleted re-syncs the runners (a no-op until start()).
  mirrors_->on_change([m = mirror_manager_.get()] { m->sync(); });
  state_.fetch_sessions = fetch_sessions_.get();
  quotas_ = std::make_unique<ClientQuotas>(metadata_->image().client_quotas(), config_.quota_window,
                                           config_.controller_quota_window);
  state_.quotas = quotas_.get();
  state_.metrics = &metrics_;
  state_.cluster_id = meta->cluster_id;
  if (config_.authorizer) {
    authorizer_ = std::make_unique<security::Authorizer>(*config_.authorizer);
    state_.authorizer = authorizer_.get();
    sync_authorizer(state_);
    MIRRA_LOG_INFO("authorizer on: {} ACL(s), {} super user(s)", authorizer_->acl_count(),
                   config_.authorizer->super_users.size());
  }

  offsets_topic_ = std::make_unique<groups::OffsetsTopic>(*metadata_, *partitions_, *topic_admin_,
                                                          config_.groups);
  groups_ = std::make_unique<groups::GroupCoordinator>(
      io_.get_executor(), *offsets_topic_, config_.groups,
      [this](const groups::TopicPartition& tp) {
        return partitions_->find(tp.topic, tp.partition) != nullptr;
      });
  // Share groups assign topic ids (KIP-932); the hooks to the share module are set with it.
  groups_->set_share_topic_lookup(
      {[this](const std::string& name) -> std::optional<groups::ShareTopic> {
         const metadata::TopicInfo* t = metadata_->image().topic(name);
         if (t == nullptr) return std::nullopt;
         return groups::ShareTopic{t->id, static_cast<int32_t>(t->partitions.size())};
       },
       [this](const Uuid& id) -> std::optional<std::string> {
         const metadata::TopicInfo* t = metadata_->image().topic(id);
         return t == nullptr ? std::nullopt : std::optional<std::string>(t->name);
       }});
  groups_->start();
  state_.groups = groups_.get();
  const groups::ShareGroupConfig& sc = config_.groups.share;
  share_ = std::make_unique<share::ShareState>(
      share::ShareLimits{sc.record_lock_duration_ms, static_cast<int16_t>(sc.delivery_count_limit),
                         sc.partition_max_record_locks},
      static_cast<size_t>(sc.max_share_sessions));
  // A member that leaves, is fenced or expires gives its records back; a deleted group's share
  // partitions go with it.
  groups_->set_share_member_gone(
      [s = share_.get()](const std::string& group, const std::string& member) {
        s->member_gone(group, member);
      });
  share_topic_ = std::make_unique<cluster::InternalTopic>(*metadata_, *partitions_, *topic_admin_,
                                                          share::share_state_topic_spec({}));
  share_store_ = std::make_unique<share::ShareStore>(*share_topic_);
  if (Status s = co_await load_share_state(); !s.ok()) co_return s;
  // A deleted group's records in __share_group_state get tombstones, in the background: the
  // group is gone from memory at once, and a crash before the tombstones only brings back
  // state that DeleteGroups may be repeated for.
  groups_->set_share_group_deleted([this](const std::string& group) {
    asio::co_spawn(
        io_,
        [store = share_store_.get(), keys = share_->group_deleted(group),
         group]() -> asio::awaitable<void> {
          if (Status s = co_await store->erase(keys); !s.ok()) {
            MIRRA_LOG_WARN("share group {}: its state was not erased: {}", group, s.to_string());
          }
        },
        asio::detached);
  });
  state_.share = share_.get();
  state_.share_store = share_store_.get();
  // The mirrors' groups sync commits the source's offsets here (docs/mirroring-design.md §8).
  mirror_manager_->on_groups(mirror_group_hooks(state_));

  producer_ids_ = std::make_unique<txn::ProducerIdManager>(*metadata_, config_.node_id);
  txn_topic_ = std::make_unique<cluster::InternalTopic>(*metadata_, *partitions_, *topic_admin_,
                                                        txn::state_topic_spec(config_.txn));
  txn_ = std::make_unique<txn::TxnCoordinator>(
      io_.get_executor(), *txn_topic_, *partitions_, *producer_ids_, config_.txn,
      [this](int64_t producer_id, int32_t partition, bool commit) {
        groups_->complete_txn(producer_id, partition, commit);
      });
  txn_->start();
  state_.txn = txn_.get();
  // A failback ends the transactions open on the topic before truncating it.
  mirror_manager_->on_truncation([t = txn_.get()](std::string topic,
                                                  std::vector<int32_t> partitions,
                                                  std::string why) -> asio::awaitable<Status> {
    co_return co_await t->abort_transactions_on(topic, partitions, why);
  });

  partitions_->start_housekeeping();
  // In-process brokers (handler tests, the fuzzer) never reach out to source clusters.
  if (listen) {
    if (Status s = co_await mirror_manager_->start(); !s.ok()) co_return s;
  }
  if (!listen) {
    state_.endpoints.push_back({"PLAINTEXT", "127.0.0.1", 0});
    co_return Status::OK();
  }
  server_ = std::make_unique<Server>(io_, config_, state_);
  if (Status s = server_->start(); !s.ok()) co_return s;
  if (config_.http_listener) {
    auto http = HttpEndpoints::start(*config_.http_listener, static_settings_, io_, state_,
                                     metrics_, server_.get());
    if (!http.ok()) co_return http.status();
    http_ = std::move(http.value());
  }
  co_return Status::OK();
}

asio::awaitable<void> Broker::stop() {
  http_.reset();
  if (server_) {
    server_->stop();
    // Parked JoinGroup/SyncGroup requests would otherwise hold their connections open.
    if (groups_) groups_->stop();
    co_await server_->wait_closed();
  }
  if (groups_) groups_->stop();
  if (txn_) txn_->stop();
  if (mirror_manager_) co_await mirror_manager_->stop();
  if (partitions_) co_await partitions_->shutdown();
  if (metadata_) co_await metadata_->close();
  if (shards_) shards_->stop();
  MIRRA_LOG_INFO("logs flushed and checkpointed");
}

}  // namespace mirra::server
