#include "server/dispatch.h"

#include <fmt/format.h>

#include <optional>
#include <vector>

#include "protocol/messages/all_messages.h"
#include "server/broker_metrics.h"
#include "server/handlers/handlers.h"

namespace mirra::server {
namespace {

// Indexed by API key; nullptr where no handler exists yet. Adding an API: write
// handlers/<api>.cc, declare it in handlers/handlers.h, add one line here.
std::vector<Handler> build_table() {
  int16_t max_key = 0;
  for (const protocol::ApiInfo& api : protocol::all_apis()) max_key = std::max(max_key, api.key);
  std::vector<Handler> table(static_cast<size_t>(max_key) + 1, nullptr);
  table[protocol::kApiVersionsKey] = &handle_api_versions;
  table[protocol::CreateTopicsRequest::kApiKey] = &handle_create_topics;
  table[protocol::DeleteTopicsRequest::kApiKey] = &handle_delete_topics;
  table[protocol::FetchRequest::kApiKey] = &handle_fetch;
  table[protocol::ListOffsetsRequest::kApiKey] = &handle_list_offsets;
  table[protocol::MetadataRequest::kApiKey] = &handle_metadata;
  table[protocol::ProduceRequest::kApiKey] = &handle_produce;
  table[protocol::AlterConfigsRequest::kApiKey] = &handle_alter_configs;
  table[protocol::CreatePartitionsRequest::kApiKey] = &handle_create_partitions;
  table[protocol::DeleteRecordsRequest::kApiKey] = &handle_delete_records;
  table[protocol::DescribeClusterRequest::kApiKey] = &handle_describe_cluster;
  table[protocol::DescribeConfigsRequest::kApiKey] = &handle_describe_configs;
  table[protocol::DescribeLogDirsRequest::kApiKey] = &handle_describe_log_dirs;
  table[protocol::DescribeTopicPartitionsRequest::kApiKey] = &handle_describe_topic_partitions;
  table[protocol::IncrementalAlterConfigsRequest::kApiKey] = &handle_incremental_alter_configs;
  table[protocol::OffsetForLeaderEpochRequest::kApiKey] = &handle_offset_for_leader_epoch;
  // Consumer groups (src/groups).
  table[protocol::FindCoordinatorRequest::kApiKey] = &handle_find_coordinator;
  table[protocol::JoinGroupRequest::kApiKey] = &handle_join_group;
  table[protocol::SyncGroupRequest::kApiKey] = &handle_sync_group;
  table[protocol::HeartbeatRequest::kApiKey] = &handle_heartbeat;
  table[protocol::LeaveGroupRequest::kApiKey] = &handle_leave_group;
  table[protocol::OffsetCommitRequest::kApiKey] = &handle_offset_commit;
  table[protocol::OffsetFetchRequest::kApiKey] = &handle_offset_fetch;
  table[protocol::ListGroupsRequest::kApiKey] = &handle_list_groups;
  table[protocol::DescribeGroupsRequest::kApiKey] = &handle_describe_groups;
  table[protocol::DeleteGroupsRequest::kApiKey] = &handle_delete_groups;
  table[protocol::OffsetDeleteRequest::kApiKey] = &handle_offset_delete;
  table[protocol::ShareGroupHeartbeatRequest::kApiKey] = &handle_share_group_heartbeat;
  table[protocol::ShareGroupDescribeRequest::kApiKey] = &handle_share_group_describe;
  table[protocol::DescribeShareGroupOffsetsRequest::kApiKey] = &handle_describe_share_group_offsets;
  table[protocol::AlterShareGroupOffsetsRequest::kApiKey] = &handle_alter_share_group_offsets;
  table[protocol::DeleteShareGroupOffsetsRequest::kApiKey] = &handle_delete_share_group_offsets;
  table[protocol::InitProducerIdRequest::kApiKey] = &handle_init_producer_id;
  table[protocol::AddPartitionsToTxnRequest::kApiKey] = &handle_add_partitions_to_txn;
  table[protocol::AddOffsetsToTxnRequest::kApiKey] = &handle_add_offsets_to_txn;
  table[protocol::EndTxnRequest::kApiKey] = &handle_end_txn;
  table[protocol::TxnOffsetCommitRequest::kApiKey] = &handle_txn_offset_commit;
  table[protocol::WriteTxnMarkersRequest::kApiKey] = &handle_write_txn_markers;
  table[protocol::DescribeTransactionsRequest::kApiKey] = &handle_describe_transactions;
  table[protocol::ListTransactionsRequest::kApiKey] = &handle_list_transactions;
  table[protocol::DescribeProducersRequest::kApiKey] = &handle_describe_producers;
  // Share groups' data path (src/share).
  table[protocol::ShareFetchRequest::kApiKey] = &handle_share_fetch;
  table[protocol::ShareAcknowledgeRequest::kApiKey] = &handle_share_acknowledge;
  // Mirroring (src/mirror).
  table[protocol::CreateMirrorRequest::kApiKey] = &handle_create_mirror;
  table[protocol::DeleteMirrorRequest::kApiKey] = &handle_delete_mirror;
  table[protocol::ListMirrorsRequest::kApiKey] = &handle_list_mirrors;
  table[protocol::AddTopicsToMirrorRequest::kApiKey] = &handle_add_topics_to_mirror;
  table[protocol::DescribeMirrorsRequest::kApiKey] = &handle_describe_mirrors;
  table[protocol::RemoveTopicsFromMirrorRequest::kApiKey] = &handle_remove_topics_from_mirror;
  table[protocol::PauseMirrorTopicsRequest::kApiKey] = &handle_pause_mirror_topics;
  table[protocol::ResumeMirrorTopicsRequest::kApiKey] = &handle_resume_mirror_topics;
  table[protocol::LastMirroredOffsetsRequest::kApiKey] = &handle_last_mirrored_offsets;
  // ACLs: advertised without an authorizer, as Kafka does; they answer SECURITY_DISABLED.
  table[protocol::CreateAclsRequest::kApiKey] = &handle_create_acls;
  table[protocol::DeleteAclsRequest::kApiKey] = &handle_delete_acls;
  table[protocol::DescribeAclsRequest::kApiKey] = &handle_describe_acls;
  // Authentication (server/sasl_session.h).
  table[protocol::SaslHandshakeRequest::kApiKey] = &handle_sasl_handshake;
  table[protocol::SaslAuthenticateRequest::kApiKey] = &handle_sasl_authenticate;
  // SCRAM users (metadata log).
  table[protocol::DescribeUserScramCredentialsRequest::kApiKey] =
      &handle_describe_user_scram_credentials;
  table[protocol::AlterUserScramCredentialsRequest::kApiKey] = &handle_alter_user_scram_credentials;
  // Client quotas (metadata log).
  table[protocol::DescribeClientQuotasRequest::kApiKey] = &handle_describe_client_quotas;
  table[protocol::AlterClientQuotasRequest::kApiKey] = &handle_alter_client_quotas;
  return table;
}

const std::vector<Handler>& table() {
  static const std::vector<Handler> t = build_table();
  return t;
}

Status close_because(std::string message) {
  return Status(ErrorCode::INVALID_REQUEST, std::move(message));
}

// The KIP-511 answer, as a "handler" so that it travels the same path as every response.
asio::awaitable<HandlerResult> answer_unsupported_api_versions(RequestContext& ctx) {
  ctx.error_code = error_number(ErrorCode::UNSUPPORTED_VERSION);
  co_return Response(api_versions_unsupported_response(ctx.header.correlation_id));
}

// /metrics (server/broker_metrics.h): the request under its API, and under version -1
// ("unsupported") when the version is not one Mirra serves, so that a client cannot make a
// series per number. A request that did not decode as far as its key counts nowhere.
void count_request(const RequestContext& ctx, std::span<const uint8_t> frame, BrokerState& broker,
                   int16_t error_code) {
  if (broker.metrics == nullptr || frame.size() < 4) return;
  protocol::Reader peek(frame);
  const int16_t key = peek.read_int16();
  const int16_t version = peek.read_int16();
  const protocol::ApiInfo* api = protocol::find_api(key);
  if (api == nullptr) return;
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - ctx.started;
  broker.metrics->record_request(key, api->supports(version) ? version : int16_t{-1}, error_code,
                                 took.count());
}

}  // namespace

const AdvertisedEndpoint& RequestContext::endpoint() const {
  static const AdvertisedEndpoint none;
  for (const AdvertisedEndpoint& e : broker->endpoints) {
    if (e.listener == connection->listener) return e;
  }
  return broker->endpoints.empty() ? none : broker->endpoints.front();
}

Handler find_handler(int16_t api_key) {
  if (api_key < 0 || static_cast<size_t>(api_key) >= table().size()) return nullptr;
  return table()[static_cast<size_t>(api_key)];
}

Result<Handler> route_request(std::span<uint8_t> frame, RequestContext& ctx) {
  // Key and version first: a version outside the range is reported as such even when its
  // header, read with the newest version's layout, would not decode.
  protocol::Reader peek(frame);
  const int16_t key = peek.read_int16();
  const int16_t version = peek.read_int16();
  const protocol::ApiInfo* api = protocol::find_api(key);
  if (!peek.failed() && api != nullptr && !api->supports(version) &&
      !(key == protocol::kApiVersionsKey && version > api->max_version)) {
    return close_because(fmt::format("{} (key {}) v{} is outside the supported range v{}-v{}",
                                     api->name, key, version, api->min_version, api->max_version));
  }
  ctx.frame = frame;
  auto env = protocol::decode_request_envelope(frame);
  if (!env.ok()) return close_because("request header: " + env.status().to_string());
  ctx.header = std::move(env->header);
  ctx.api = env->api;
  ctx.api_version = ctx.header.request_api_version;
  ctx.body = env->body;
  if (ctx.api == nullptr) return close_because(fmt::format("unknown API key {}", key));
  // KIP-511: the v0-layout answer with UNSUPPORTED_VERSION and the full list.
  if (key == protocol::kApiVersionsKey && version > ctx.api->max_version) {
    return &answer_unsupported_api_versions;
  }
  Handler h = find_handler(key);
  if (h == nullptr) {
    return close_because(fmt::format("{} (key {}) is not implemented yet", ctx.api->name, key));
  }
  return h;
}

asio::awaitable<HandlerResult> dispatch_request(std::span<uint8_t> frame,
                                                const ConnectionInfo& conn, BrokerState& broker,
                                                ConnectionSecurity* security) {
  RequestContext ctx;
  ctx.started = std::chrono::steady_clock::now();
  ctx.connection = &conn;
  ctx.broker = &broker;
  ctx.security = security;
  auto handler = route_request(frame, ctx);
  if (!handler.ok()) {
    count_request(ctx, frame, broker, error_number(ErrorCode::UNSUPPORTED_VERSION));
    co_return handler.status();
  }
  HandlerResult r = co_await handler.value()(ctx);
  count_request(ctx, frame, broker,
                r.ok() ? ctx.error_code : error_number(ErrorCode::UNKNOWN_SERVER_ERROR));
  if (!r.ok()) {
    co_return Status(r.status().code(),
                     fmt::format("{} v{} correlation id {}: {}", ctx.api->name, ctx.api_version,
                                 ctx.header.correlation_id, r.status().to_string()));
  }
  co_return r;
}

HandlerResult dispatch_request_now(std::span<uint8_t> frame, const ConnectionInfo& conn,
                                   BrokerState& broker) {
  asio::io_context io;
  std::optional<HandlerResult> out;
  std::exception_ptr error;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        out.emplace(co_await dispatch_request(frame, conn, broker));
      },
      [&](std::exception_ptr e) { error = e; });
  io.run();
  if (error) std::rethrow_exception(error);
  if (!out) return Status(ErrorCode::UNKNOWN_SERVER_ERROR, "handler did not complete");
  return std::move(*out);
}

}  // namespace mirra::server
