// Broker: everything one Mirra node runs, wired together in start-up order and torn down in
// reverse:
//   meta.properties (cluster id) -> shard threads -> metadata store (replays the metadata log)
//   -> partition manager (opens and recovers every partition) -> group coordinator (loads
//   __consumer_offsets in the background) -> transaction coordinator (loads
//   __transaction_state in the background, then finishes prepared transactions) -> listeners.
// Shutdown: stop accepting, finish in-flight requests, close the logs (flush, checkpoints),
// write a metadata snapshot, join the shard threads.
//
// Threading: the Broker lives on the core thread (the thread that runs `io`).
#pragma once

#include <memory>
#include <optional>

#include "base/asio.h"
#include "base/status.h"
#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "cluster/shard_pool.h"
#include "cluster/topic_admin.h"
#include "groups/group_coordinator.h"
#include "groups/offsets_topic.h"
#include "mirror/mirror_admin.h"
#include "mirror/mirror_manager.h"
#include "security/acl.h"
#include "server/broker_metrics.h"
#include "server/client_quotas.h"
#include "server/config.h"
#include "server/fetch_session.h"
#include "server/http_endpoints.h"
#include "server/request_context.h"
#include "server/server.h"
#include "share/share_state.h"
#include "share/share_store.h"
#include "txn/producer_id_manager.h"
#include "txn/txn_coordinator.h"

namespace mirra::server {

class Broker {
 public:
  Broker(asio::io_context& io, const LoadedConfig& config);
  ~Broker();

  // Opens storage and metadata, then starts listening (unless `listen` is false: in-process
  // tests and fuzzing drive dispatch_request() against state() directly). On error the broker
  // is not serving and the Status names the cause (a bad data dir, a corrupt metadata log, a
  // port in use).
  asio::awaitable<Status> start(bool listen = true);
  // Graceful stop; completes when everything is flushed and closed.
  asio::awaitable<void> stop();

  Server& server() { return *server_; }
  BrokerState& state() { return state_; }

 private:
  // Reads __share_group_state back into share_ (start-up).
  asio::awaitable<Status> load_share_state();

  asio::io_context& io_;
  const ServerConfig& config_;
  std::map<std::string, std::string> static_settings_;
  BrokerState state_;
  std::unique_ptr<cluster::ShardPool> shards_;
  std::unique_ptr<cluster::LocalMetadataStore> metadata_;
  std::unique_ptr<cluster::PartitionManager> partitions_;
  std::unique_ptr<cluster::TopicAdmin> topic_admin_;
  std::unique_ptr<FetchSessionCache> fetch_sessions_;
  std::unique_ptr<groups::OffsetsTopic> offsets_topic_;
  std::unique_ptr<groups::GroupCoordinator> groups_;
  std::unique_ptr<share::ShareState> share_;
  std::unique_ptr<cluster::InternalTopic> share_topic_;  // __share_group_state
  std::unique_ptr<share::ShareStore> share_store_;
  std::unique_ptr<txn::ProducerIdManager> producer_ids_;
  std::unique_ptr<cluster::InternalTopic> txn_topic_;
  std::unique_ptr<txn::TxnCoordinator> txn_;
  // password.encoder.secret's encoder for the mirrors' secrets; nullopt without the secret.
  std::optional<security::PasswordEncoder> password_encoder_;
  std::unique_ptr<mirror::MirrorAdmin> mirrors_;
  std::unique_ptr<mirror::MirrorManager> mirror_manager_;
  std::unique_ptr<security::Authorizer> authorizer_;  // null: no authorizer.class.name
  std::unique_ptr<ClientQuotas> quotas_;              // over metadata_'s image
  BrokerMetrics metrics_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<HttpEndpoints> http_;  // null unless http.listeners is set
};

}  // namespace mirra::server
