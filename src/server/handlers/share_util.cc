#include "server/handlers/share_util.h"

#include "base/log.h"
#include "cluster/metadata_store.h"
#include "cluster/partition_manager.h"
#include "server/handlers/authorize.h"
#include "share/share_store.h"

namespace mirra::server {
namespace {
constexpr std::string_view kMirraLogComponent = "share";
}  // namespace

ErrorCode check_share_ids(const std::optional<std::string>& group_id,
                          const std::optional<std::string>& member_id, std::string& why) {
  if (!group_id || group_id->empty()) {
    why = "A share request needs a group id.";
    return ErrorCode::INVALID_REQUEST;
  }
  if (!member_id || member_id->empty() || member_id->size() > kMaxMemberIdLength) {
    why = "The member id must be 1 to 36 characters long.";
    return ErrorCode::INVALID_REQUEST;
  }
  return ErrorCode::NONE;
}

ShareTarget find_share_target(RequestContext& ctx, const share::SharePartitionId& id) {
  ShareTarget t{id, nullptr, ErrorCode::NONE};
  const metadata::TopicInfo* topic = ctx.broker->metadata->image().topic(id.topic_id);
  if (topic == nullptr) {
    t.error = ErrorCode::UNKNOWN_TOPIC_ID;
  } else if (!authorized(ctx, AclOperation::read, ResourceType::topic, topic->name)) {
    t.error = ErrorCode::TOPIC_AUTHORIZATION_FAILED;
  } else if ((t.part = ctx.broker->partitions->find(topic->name, id.partition)) == nullptr) {
    t.error = ErrorCode::UNKNOWN_TOPIC_OR_PARTITION;
  }
  return t;
}

ErrorCode share_session_for(RequestContext& ctx, const std::string& group_id,
                            const std::string& member_id, int32_t epoch,
                            share::ShareSession*& session) {
  share::ShareState& state = *ctx.broker->share;
  session = nullptr;
  if (epoch == 0) {
    auto opened = state.sessions().open(group_id, member_id, ctx.connection->id);
    if (opened.replaced) state.end_session(*opened.replaced);
    session = opened.session;
    return opened.error;
  }
  if (epoch == -1) {
    session = state.sessions().find(group_id, member_id);
    return session == nullptr ? ErrorCode::SHARE_SESSION_NOT_FOUND : ErrorCode::NONE;
  }
  if (epoch < -1) return ErrorCode::INVALID_SHARE_SESSION_EPOCH;
  return state.sessions().continue_session(group_id, member_id, epoch, session);
}

groups::ShareGroupSettings share_group_settings_of(const RequestContext& ctx,
                                                   const std::string& group_id) {
  const auto& all = ctx.broker->metadata->image().group_configs();
  auto it = all.find(group_id);
  return groups::share_group_settings(ctx.broker->config->groups.share,
                                      it == all.end() ? nullptr : &it->second);
}

share::ShareLimits share_limits_of(const RequestContext& ctx,
                                   const groups::ShareGroupSettings& settings) {
  share::ShareLimits limits = ctx.broker->share->limits();
  limits.lock_duration_ms = settings.record_lock_duration_ms;
  return limits;
}

ErrorCode apply_acks(share::ShareState& state, const share::ShareKey& key,
                     const std::string& member, const std::vector<AckBatch>& batches,
                     int16_t api_version, int64_t now_ms, const share::ShareLimits& limits) {
  const auto max_type = api_version >= 2 ? share::AckType::renew : share::AckType::reject;
  int64_t previous_last = -1;
  for (const AckBatch& b : batches) {
    if (b.first <= previous_last) return ErrorCode::INVALID_REQUEST;
    previous_last = b.last;
    for (share::AckType t : b.types) {
      if (static_cast<int8_t>(t) > static_cast<int8_t>(max_type)) return ErrorCode::INVALID_REQUEST;
    }
  }
  share::SharePartition* p = state.find_current(key, now_ms);
  // Records never handed out to this group cannot be held by the member.
  if (p == nullptr) return batches.empty() ? ErrorCode::NONE : ErrorCode::INVALID_RECORD_STATE;
  for (const AckBatch& b : batches) {
    const ErrorCode e = p->acknowledge(member, b.first, b.last, b.types, now_ms, limits);
    if (e != ErrorCode::NONE) return e;
  }
  return ErrorCode::NONE;
}

asio::awaitable<ErrorCode> persist_share_state(BrokerState& broker, const share::ShareKey& key) {
  if (broker.share_store == nullptr) co_return ErrorCode::NONE;
  share::ShareState* state = broker.share;
  // Named, not a temporary inside co_await: g++ 12 destroys such temporaries twice.
  std::function<std::optional<share::ShareSnapshot>()> take =
      [state, key]() -> std::optional<share::ShareSnapshot> {
    const share::SharePartition* p = state->find(key);
    if (p == nullptr) return std::nullopt;
    return p->snapshot();
  };
  const Status s = co_await broker.share_store->write(key, std::move(take));
  if (s.ok()) co_return ErrorCode::NONE;
  MIRRA_LOG_WARN("share group {}: state of partition {} not written: {}", key.group_id,
                 key.partition, s.to_string());
  co_return ErrorCode::KAFKA_STORAGE_ERROR;
}

}  // namespace mirra::server
