// One handler per API; each lives in handlers/<api>.cc and is registered in dispatch.cc.
#pragma once

#include "server/request_context.h"

namespace mirra::server {

asio::awaitable<HandlerResult> handle_add_offsets_to_txn(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_add_partitions_to_txn(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_alter_configs(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_api_versions(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_create_partitions(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_create_topics(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_delete_groups(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_delete_records(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_delete_topics(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_describe_cluster(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_describe_configs(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_describe_groups(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_describe_log_dirs(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_describe_producers(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_describe_topic_partitions(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_describe_transactions(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_end_txn(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_fetch(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_find_coordinator(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_heartbeat(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_incremental_alter_configs(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_init_producer_id(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_join_group(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_leave_group(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_list_groups(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_list_offsets(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_list_transactions(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_metadata(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_offset_commit(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_offset_delete(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_offset_fetch(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_offset_for_leader_epoch(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_share_group_heartbeat(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_share_group_describe(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_describe_share_group_offsets(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_alter_share_group_offsets(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_delete_share_group_offsets(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_produce(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_share_acknowledge(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_share_fetch(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_sync_group(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_txn_offset_commit(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_write_txn_markers(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_create_mirror(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_delete_mirror(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_list_mirrors(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_add_topics_to_mirror(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_describe_mirrors(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_remove_topics_from_mirror(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_pause_mirror_topics(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_resume_mirror_topics(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_last_mirrored_offsets(RequestContext& ctx);

// KIP-588: PRODUCER_FENCED is new in InitProducerId v4 and in AddPartitionsToTxn,
// AddOffsetsToTxn and EndTxn v2. Older clients do not know it and get INVALID_PRODUCER_EPOCH,
// which they handle the same way, as Kafka answers them.
inline ErrorCode fenced_for(ErrorCode e, bool client_knows_fenced) {
  return e == ErrorCode::PRODUCER_FENCED && !client_knows_fenced ? ErrorCode::INVALID_PRODUCER_EPOCH
                                                                 : e;
}

// The KIP-511 answer to an ApiVersions version above Mirra's range: the v0 layout with
// UNSUPPORTED_VERSION and the full list, so the client can retry with a version it sees.
protocol::Bytes api_versions_unsupported_response(int32_t correlation_id);

// ACLs (no authorizer yet: every answer is SECURITY_DISABLED).
asio::awaitable<HandlerResult> handle_create_acls(RequestContext& ctx);
// Authentication (server/sasl_session.h).
asio::awaitable<HandlerResult> handle_sasl_handshake(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_sasl_authenticate(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_delete_acls(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_describe_acls(RequestContext& ctx);

// SCRAM users in the metadata log.
asio::awaitable<HandlerResult> handle_describe_user_scram_credentials(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_alter_user_scram_credentials(RequestContext& ctx);
// Client quotas (metadata log; enforced by server/client_quotas.h).
asio::awaitable<HandlerResult> handle_describe_client_quotas(RequestContext& ctx);
asio::awaitable<HandlerResult> handle_alter_client_quotas(RequestContext& ctx);

}  // namespace mirra::server
